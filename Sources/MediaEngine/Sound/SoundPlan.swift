/// A cut of sound into its own container (`.mp3`, `.m4a`, `.flac`, `.opus`, `.ogg`, `.wav`, `.mka`), decided before
/// anything is written: which stream, how (packets copied with the container's start and end signalling, or decoded and
/// encoded again), every range in samples, the chapters and what the output will hold. What `--dry-run` prints and what
/// `SoundWriter` executes without deciding anything again.
public struct SoundPlan: Sendable, Equatable, Codable {
    public var streamIndex: Int
    public var codec: String
    public var sampleRate: Int
    public var container: SoundContainer
    /// The source's sample at the container's time 0 (the origin of every range's seconds).
    public var originSample: Int64
    /// The ranges, in the source's samples (timestamps at `sampleRate`), in time order.
    public var ranges: [SampleRange]
    public var method: Method
    /// A stream holding cover art, copied where the container keeps it.
    public var coverArtIndex: Int?
    /// On the output's timeline (µs).
    public var chapters: [Chapter]
    /// What FFmpeg 5.1 decodes from the output, against the ranges: the first sample's offset (negative: early) and
    /// the count of samples it gives.
    public var decodedStartErrorSamples: Int64
    public var decodedSamples: Int64
    public var notices: [SoundNotice]

    /// `[start, end)` of the source's decoded samples.
    public struct SampleRange: Sendable, Equatable, Codable {
        public var start: Int64
        public var end: Int64
        public var count: Int64 { end.minus(start) }
    }

    public enum Method: Sendable, Equatable, Codable {
        case copy(SoundCopy)
        case reencode(SoundReencode)
        /// A join with only each seam's window encoded again.
        case seams(SoundSeams)
    }

    /// The samples the output holds as planned (the sum of the ranges; a seam-only join's seams move them).
    public var plannedSamples: Int64 {
        if case let .seams(seams) = method { return seams.endSamples }
        return ranges.reduce(0) { $0.plus($1.count) }
    }

    public var warnings: [SoundNotice] { notices.filter(\.isWarning) }
    /// Copied (nothing decoded) or made again.
    public var copies: Bool { if case .copy = method { true } else { false } }
}

/// Packets copied from `firstPts` to `lastPts` (source ticks, inclusive); the container told to hide `skipStart` samples
/// before the range (what the decoder needs first) and `skipEnd` after it.
public struct SoundCopy: Sendable, Equatable, Codable {
    public enum Signal: String, Sendable, Codable {
        /// MP3: the LAME tag's encoder delay and padding (12 bits each).
        case lameTag = "lame_tag"
        /// MP4: an edit list (and the last sample's duration) in a movie timescale equal to the sample rate.
        case editList = "edit_list"
        /// Opus in Ogg: OpusHead's pre-skip and the last page's granule position.
        case preSkip = "pre_skip"
        /// Vorbis in Ogg: the last page's granule ends the sound; FFmpeg 5.1 plays the first packet whole.
        case granule
        /// No signalling: whole packets from the one holding the start to the one holding the end.
        case none
    }

    public var firstPts: Int64
    public var lastPts: Int64
    /// The source's time base, as num/den.
    public var timeBaseNum: Int32
    public var timeBaseDen: Int32
    public var signal: Signal
    public var prerollPackets: Int
    public var skipStart: Int64
    public var skipEnd: Int64
    /// AAC that comes as ADTS (MPEG-TS, `.aac`) goes into MP4 through aac_adtstoasc.
    public var adtsToMP4: Bool
    /// MP3 and ADTS (no timestamps in the file): the first packet's byte position, where the writer starts reading and
    /// counts the packets' times from `firstPts`; -1 when unknown (read from the start).
    public var firstPosition: Int64 = -1
    /// MP3: where to read the main data the copied frames' bit reservoir reaches back for, which a frame of silence
    /// written before them carries (its samples are part of `skipStart`); nil when they begin the stream.
    public var carrierFrom: SoundSeams.Entry?
}

/// The ranges decoded and encoded back to back by `encoder` (exact to the sample: lossless codecs, a codec the
/// container cannot hold, a join).
public struct SoundReencode: Sendable, Equatable, Codable {
    public var encoder: String
    public var bitRate: Int64
    public var why: Why

    public enum Why: String, Sendable, Codable {
        /// FLAC, PCM, …: decoding and encoding give the same samples.
        case lossless
        /// The container does not hold the source's codec.
        case otherCodec = "other_codec"
        /// Lossy ranges joined: frames meet on one grid only when encoded again.
        case join
    }
}

/// What a cut of sound tells its user besides the file.
public enum SoundNotice: Sendable, Equatable, Codable {
    /// Copied: the container hides `preroll` samples decoded before the range and `padding` after it.
    case copied(signal: SoundCopy.Signal, preroll: Int64, padding: Int64)
    /// FFmpeg 5.1 decodes more or other samples than the range, although the file says exactly where it starts and ends.
    case signalledOnly(startSamples: Int64, extraSamples: Int64, sampleRate: Int, why: String)
    /// Decoded and encoded again.
    case reencoded(encoder: String, why: SoundReencode.Why, from: String)
    /// A join with its seams' windows encoded again, each seam moved onto the frame grid.
    case seamsReencoded(count: Int, encoder: String, largestShift: Int64, sampleRate: Int)
    /// The container cannot say where the sound starts or ends: whole frames are kept.
    case inexact(startSamples: Int64, extraSamples: Int64, sampleRate: Int, container: String)
    case coverArtLeftOut(container: String)
    /// The input is truncated: the range ends where what can be read ends.
    case truncated(readableSeconds: Double, why: String)
    case chaptersLeftOut(count: Int, container: String)
    /// The source's other streams (video, more audio, subtitles) are not in a sound output.
    case otherStreamsLeftOut(count: Int)

    public var code: String {
        switch self {
        case .copied: "sound_copied"
        case .signalledOnly: "sound_signalled_only"
        case .reencoded: "sound_reencoded"
        case .seamsReencoded: "sound_seams"
        case .inexact: "sound_inexact"
        case .coverArtLeftOut: "cover_art_left_out"
        case .truncated: "truncated"
        case .chaptersLeftOut: "chapters_left_out"
        case .otherStreamsLeftOut: "streams_left_out"
        }
    }

    public var isWarning: Bool {
        switch self {
        case .inexact, .truncated: true
        default: false
        }
    }

    public var message: String {
        switch self {
        case let .copied(signal, preroll, padding):
            let how = switch signal {
            case .lameTag: "the LAME tag hides"
            case .editList: "an edit list hides"
            case .preSkip: "Opus pre-skip hides"
            case .granule: "the last granule position trims"
            case .none: "nothing hides"
            }
            return "copied, nothing re-encoded: \(how) \(preroll) sample(s) decoded before the start and \(padding) after the end"
        case let .signalledOnly(start, extra, rate, why):
            var parts: [String] = []
            if start != 0 { parts.append("starts \(Words.samples(-start, rate: rate)) early") }
            if extra != 0 { parts.append("plays \(Words.samples(extra, rate: rate)) past the end") }
            return "the file says exactly where the range starts and ends, but FFmpeg 5.1 \(parts.joined(separator: " and ")) (\(why))"
        case let .reencoded(encoder, why, from):
            return switch why {
            case .lossless: "decoded and encoded again with \(encoder): \(from) is lossless, so every sample is the source's"
            case .otherCodec: "re-encoded from \(from) with \(encoder): the container does not hold \(from)"
            case .join: "re-encoded with \(encoder) so the ranges join sample-exact (\(from) frames meet on one grid only when encoded again)"
            }
        case let .seamsReencoded(count, encoder, largest, rate):
            return "\(count) seam(s) encoded again with \(encoder) (a window of two or three frames each, crossfaded); every other frame copied. Each seam moves onto the frame grid by at most \(Words.samples(largest, rate: rate))"
        case let .inexact(start, extra, rate, container):
            return "\(container) cannot say where sound starts or ends: whole frames are kept, so the output starts \(Words.samples(start, rate: rate)) early and holds \(Words.samples(extra, rate: rate)) more than the range (.m4a, .mp3, .opus signal it)"
        case let .truncated(readable, why):
            return "the file is truncated (\(why)): the range ends at \(Words.seconds(readable)), where what can be read ends"
        case let .coverArtLeftOut(container):
            return "cover art left out: FFmpeg 5.1 writes none into \(container)"
        case let .chaptersLeftOut(count, container):
            return "\(count) chapter(s) left out: \(container) holds none"
        case let .otherStreamsLeftOut(count):
            return "\(count) other stream(s) left out: a sound output holds one audio stream"
        }
    }
}
