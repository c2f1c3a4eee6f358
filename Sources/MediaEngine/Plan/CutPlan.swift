import CAV

/// One range's cut of the source, decided before anything is written (`EditPlan` holds one per range, and what
/// the whole output holds). Ticks are the video stream's, on the source's own timestamps; seconds are on the
/// source's presentation timeline (0 = the container's start).
public struct CutPlan: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, CaseIterable, Codable {
        /// Stream copy; in MP4/MOV edit lists hide what decoding needs before the start and after the end.
        case copy
        /// Stream copy from the keyframe; the lead-in is shown.
        case keyframe
        /// Decode and re-encode the video: from the frame at `start`, lasting exactly `end − start`.
        case exact
        /// Like `exact`, but only the partial groups of pictures at the edges are re-encoded.
        case smart
    }

    public var requestedMode: Mode
    /// The mode that will run (smart falls back to exact; without video everything is a copy).
    public var mode: Mode
    public var video: VideoCut?
    public var smart: SmartCutPlan?
    public var smartFallback: SmartFallback?
    /// H.264/HEVC into MP4/MOV: the sample entry written and where the parameter sets go.
    public var sampleEntry: SampleEntryPlan?
    /// A smart cut of a frame-spliced codec whose output configuration is rewritten from the source's in-stream
    /// header (AV1: its sequence header OBU, from which the muxer builds `av1C`/CodecPrivate); nil keeps the source's.
    public var streamConfiguration: [UInt8]? = nil
    /// A smart cut of a frame-spliced codec: the source's stream header as bytes (AV1's sequence header OBU, MPEG-2's
    /// sequence header and extension) that every re-encoded edge's first packet must state again; nil for VP8/VP9.
    public var edgeHeader: [UInt8]? = nil
    public var streams: [KeptStream]
    public var notices: [CutNotice]
    public var container: ContainerFacts
    /// The encoder of the re-encoded video (exact and smart).
    public var encoder: String?
    /// Encoder and decoder threads per re-encoding part, from the job's share of the cores.
    public var threads: ThreadBudget
    public var crf: Int
    public var preset: String
    public var faststart: Bool

    /// The requested range on the container's µs timeline (origin included).
    public var startMicro: Int64
    public var endMicro: Int64
    /// The container's start time (µs): 0 on vtrim's timeline.
    public var originMicro: Int64
    /// Audio and subtitles are kept from here to `companionsEndMicro` (container µs).
    public var companionsStartMicro: Int64
    public var companionsEndMicro: Int64
    /// Subtracted from companion timestamps (container µs): the output's 0.
    public var companionsZeroSourceMicro: Int64
    /// Where `companionsZeroSourceMicro` lands on a joined output's timeline (µs); 0 for a single cut.
    public var companionsZeroOutputMicro: Int64 = 0
    /// Phone and camera metadata copied into an MP4/MOV output's `moov` after FFmpeg has written it.
    public var movieMetadata: MovieMetadata? = nil
    /// The output's chapters, on its own timeline (µs from its start).
    public var chapters: [Chapter] = []
    /// The output's start timecode: the source's, counted on to the first kept frame (MP4/MOV write it as a
    /// `tmcd` track, Matroska as a tag). Nil when the source states none.
    public var timecode: String? = nil

    public var warnings: [CutNotice] { notices.filter(\.isWarning) }
    public var notes: [CutNotice] { notices.filter { !$0.isWarning } }

    /// Where the output's first frame lies on the source's timeline (seconds).
    public var presentedStartSeconds: Double {
        guard let video else { return seconds(micro: startMicro) }
        return seconds(micro: video.micro(video.firstShown))
    }

    /// Where the output stops presenting on the source's timeline (seconds).
    public var presentedEndSeconds: Double {
        guard let video else { return seconds(micro: endMicro) }
        if let exact = video.exact {
            return seconds(micro: Rescale.ticks(exact.end, from: exact.timeBase, to: Rational(1, 1_000_000)))
        }
        return seconds(micro: video.micro(video.presentedEnd))
    }

    /// The keyframe reading starts from (seconds), and how much is decoded before the first frame shown.
    public var keyframeSeconds: Double? { video.map { seconds(micro: $0.micro($0.keyframe.pts)) } }
    public var preRollSeconds: Double {
        guard let video, mode != .keyframe else { return 0 }
        return max(0, seconds(micro: video.micro(video.firstShown)) - seconds(micro: video.micro(video.keyframe.pts)))
    }

    /// An output time plus this is the source time (seconds): how measured times map back.
    public var sourceOffsetSeconds: Double { seconds(micro: companionsZeroSourceMicro) }

    func seconds(micro: Int64) -> Double { Micro.seconds(micro.minus(originMicro)) }
}

/// The video part of a cut.
public struct VideoCut: Sendable, Equatable, Codable {
    public var streamIndex: Int
    public var timeBase: Rational
    public var codec: String
    /// Reading (and decoding) starts at this keyframe.
    public var keyframe: VideoPacket
    /// The frame a player shows at `start` (pts).
    public var frameAtStart: Int64
    /// The output's first presented frame (pts): the frame at `start`, or the keyframe when the lead-in is shown.
    public var firstShown: Int64
    /// The last packet written (copy modes) or sent to the decoder (exact), in decode order.
    public var lastNeeded: VideoPacket
    /// The last frame that begins before `end` (pts).
    public var lastWanted: Int64
    /// Where `lastWanted` ends: the next frame's pts (or its own duration at the stream's end). A join's next
    /// range starts at or after it, so no frame is shown twice.
    public var lastWantedEnd: Int64
    /// Where the output stops presenting (source ticks).
    public var presentedEnd: Int64
    /// Output ticks = source ticks − shift (copied packets; exact: frames after the first).
    public var shift: Int64
    /// The source time (ticks) at output time 0; equal to `shift` but in exact cuts whose first frame is
    /// shown whole (then `shift` is smaller by what that frame gains).
    public var outputZero: Int64
    /// MP4/MOV: the length of the video's edit (ticks of `editTimeBase`), written into the header after
    /// muxing, so the edit ends exactly where the cut does. Nil where the container has no edit lists.
    public var editDuration: Int64?
    public var editTimeBase: Rational
    /// Copies into MP4/MOV: where the latest frame among the written packets ends (source ticks), past
    /// `presentedEnd` when frames after `end` are written for the ones before it; a join's next range follows it.
    public var writtenEnd: Int64? = nil
    /// Exact cuts: the re-encoded frames' timing, on a grid fine enough for `end − start`.
    public var exact: ExactTiming?
    /// The requested range in ticks (the start rounded down, the end up, to the stream's grid).
    public var startTicks: Int64
    public var endTicks: Int64
    /// Leading pictures of an open GOP after the keyframe, shown before it: not written.
    public var leadingLeftOut: Int
    /// The reorder delay of the source at the keyframe, so copied decode times stay below presentation times.
    public var sourceHasBFrames: Bool
    /// What the stream's first access unit tells decoders, for the decoders this cut opens mid-stream.
    var beginning = StreamBeginning.unknown
    /// The first copied access unit gets the source's x264 version SEI (`encoder_info_carried`).
    public var carriesEncoderInfo = false
    /// DivX/Xvid packed B-frames (`PackedFrames`): one picture per packet, shown in packet order, so a
    /// decoded picture's time is the earliest time of the packets fed and not yet shown — FFmpeg stamps
    /// each picture with the packet that released it, one slot late.
    public var packedFrames = false
    /// Exact and smart cuts: how the re-encoded frames are made.
    public var reencoding: Reencoding?
    /// The source's reorder delay in frames: copied packets without a decode time (Matroska stores none) get one
    /// derived from presentation times with it (`DecodeTimeFill`), afresh at each range's keyframe.
    public var decodeDelayFrames = 0

    /// The decode time the keyframe is written with (source ticks): its own, or where it has none the one
    /// `DecodeTimeFill` gives the first packet of a range.
    public var keyframeDecodeTime: Int64 {
        keyframe.dts != keyframe.pts || decodeDelayFrames == 0 ? keyframe.dts
            : keyframe.pts.minus(Int64(decodeDelayFrames).times(max(0, keyframe.duration)))
    }
    /// Where this cut's output zero lands on a joined output's timeline (exact cuts: `ExactTiming.outputStart`);
    /// zero for a single cut.
    public var outputStart = OutputTicks.zero
    /// A smart cut's re-encoded tail followed by the next range's head (a join): its decode times are set this
    /// many ticks early, as the head's are, so they stay in order across the seam. 0 for a single cut.
    public var tailDecodeDelay: Int64 = 0
    /// A join's head after a seam whose tail leaves it less room than the copied keyframe's reorder delay (an open
    /// GOP's leading pictures on both sides): its decode times are set this many ticks early instead. nil: K1's delay.
    public var headDecodeDelay: Int64?

    /// Where a copied packet's source time (pts or dts) lands on the output.
    public func output(_ sourceTicks: Int64) -> OutputTicks { outputStart.plus(sourceTicks.minus(shift)) }

    /// What copied packets' timestamps move by: source ticks minus this are output ticks.
    var packetShift: Int64 { shift.minus(outputStart.value) }

    public func micro(_ ticks: Int64) -> Int64 {
        guard timeBase.denominator > 0 else { return ticks }
        return Rescale.ticks(ticks, from: timeBase, to: Rational(1, 1_000_000))
    }
}

/// How a cut's re-encoded frames are made — decided with the plan, so the writers only execute it (and a
/// plan made in one `vtrim serve` worker runs the same in another).
public struct Reencoding: Sendable, Equatable, Codable {
    /// The encoder (libx264, libx265, …) and its options: quality, speed, threads, the profile and level a
    /// smart cut's edges share with the source, HDR metadata, x264's own parameter set id.
    public var encoder: String
    public var options: [String: String]
    /// Encoder threads of each re-encoding part.
    public var threads: Int
    /// The encoder's input pixel format (FFmpeg's name).
    public var pixelFormat: String
    /// A full-range source converted to a limited-range format: the output is tagged limited.
    public var tagsLimitedRange: Bool
    /// The orientation turned into the pixels (the output cannot carry a display matrix), or nil.
    public var bakedOrientation: Orientation?
}

/// An exact cut's output timing. The encoder works in `timeBase`: the source's, refined (as FFmpeg's MP4
/// muxer refines it) to at least 10000 ticks a second, so a coarse source grid (1/10, 1/600) does not
/// round the range; every source tick is a whole number of these.
public struct ExactTiming: Sendable, Equatable, Codable {
    public var timeBase: Rational
    /// Output time 0: `start` (or the keyframe when the video starts later) in these ticks.
    public var zero: Int64
    /// Output ticks of frames after the first = their source time in these ticks − `shift`.
    public var shift: Int64
    /// `end` in these ticks: the last frame lasts until here.
    public var end: Int64
    /// The ticks are an AVI source's frame slots, written into AVI: a frame lasts only its own slot, so the
    /// last one is written again in the cut's last slot for the file to last until `end`.
    public var fillsLastSlot = false
    /// Where this cut begins on a joined output's timeline (these ticks); zero for a single cut.
    public var outputStart = OutputTicks.zero

    /// Where a re-encoded frame after the first (at `fineTicks` of the source, in these ticks) lands on the output.
    func output(_ fineTicks: Int64) -> OutputTicks { outputStart.plus(fineTicks.minus(shift)) }

    /// Where the cut ends on the output.
    var outputEnd: OutputTicks { outputStart.plus(end.minus(zero)) }
}

/// A stream the output keeps, or why one is not kept.
public struct KeptStream: Sendable, Equatable, Codable {
    /// `data`: GoPro telemetry (gpmd), the one data track known to survive a cut into MP4/MOV.
    public enum Kind: String, Sendable, Codable { case video, audio, subtitle, data }
    public var index: Int
    public var kind: Kind
    public var codec: String
    /// AMR-NB packets holding several frames are split into one frame per packet (3GP/MOV need it).
    public var splitsAudioFrames: Bool
    /// Text subtitles converted to the codec the output holds (FFmpeg's encoder name), or nil when copied.
    public var convertsTo: String? = nil
    /// A join's audio re-encoded (this encoder, the source's codec) so every seam is sample-exact; nil when copied.
    public var audioEncoder: String? = nil
    /// Joins into MP4/MOV: the encoder that can re-encode this audio exact to the sample (it opened with the
    /// stream's format while planning), whether or not the join asks for it.
    public var exactAudioEncoder: String? = nil
}

/// How a join's audio meets at the seams: copied, following on from the packet nearest its place (within half an
/// audio frame), or re-encoded so every seam is exact to the sample (`exact`; exact joins always).
public enum AudioSeams: String, Sendable, Codable, CaseIterable {
    case nearest
    case exact

    /// The encoder of the source's codec whose input is the decoder's output as it is, when FFmpeg has it.
    static func encoder(forCodec codec: String) -> String? {
        let names = ["aac": "aac", "ac3": "ac3", "eac3": "eac3", "mp3": "libmp3lame", "flac": "flac", "alac": "alac",
                     "pcm_s16le": "pcm_s16le", "pcm_s16be": "pcm_s16be", "pcm_s24le": "pcm_s24le", "pcm_f32le": "pcm_f32le"]
        guard let name = names[codec], avcodec_find_encoder_by_name(name) != nil else { return nil }
        return name
    }
}

/// What the output container can hold and how it keeps time.
public struct ContainerFacts: Sendable, Equatable, Codable {
    /// FFmpeg's muxer name ("mp4", "mov", "matroska", "webm", "avi", …).
    public var formatName: String
    /// MP4/MOV/3GP: edit lists hide what is decoded but not shown, and carry the display matrix.
    public var editLists: Bool
    /// The file stores no presentation times (AVI): frames are shown in decode-time slots.
    public var storesDecodeTimesOnly: Bool
    /// MP4/MOV and Matroska/WebM hold chapters; MPEG-TS and AVI cannot.
    public var holdsChapters = false
    /// MP4/MOV (a `tmcd` track) and Matroska (a tag) keep a start timecode.
    public var keepsTimecode: Bool { editLists || formatName == "matroska" }
    /// How the container holds H.264/HEVC parameter sets, where smart cuts can be written; nil elsewhere.
    public var parameterSetCarriage: ParameterSetCarriage? { ParameterSetCarriage(muxer: formatName) }
}

/// How an output holds H.264/HEVC parameter sets — what a smart cut's seams must respect.
public enum ParameterSetCarriage: String, Sendable, Codable {
    /// MP4/MOV (the muxers with edit lists): a sample entry (avc1/hvc1's record, or avc3/hev1 with sets in the samples); length-prefixed samples.
    case sampleEntry = "sample_entry"
    /// Matroska: CodecPrivate holds the same avcC/hvcC record; length-prefixed samples; no decode times stored.
    case codecPrivate = "codec_private"
    /// MPEG-TS: an Annex B byte stream, every set in band before the pictures that use it.
    case annexB = "annex_b"

    init?(muxer name: String) {
        switch name {
        case "mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v": self = .sampleEntry
        case "matroska": self = .codecPrivate
        case "mpegts": self = .annexB
        default: return nil
        }
    }
}

/// Threads a re-encoding part may use, so that jobs × (decoder + encoder threads) stays near the cores.
public struct ThreadBudget: Sendable, Equatable, Codable {
    public var decoder: Int
    public var encoder: Int

    /// The share of `cores` for one of `jobs` jobs: the encoder takes it, the decoder half of it (the
    /// encoder is the slower of the two, and a decoder with one thread runs in the caller's thread).
    public static func share(cores: Int, jobs: Int) -> ThreadBudget {
        let each = max(1, cores / max(1, jobs))
        return ThreadBudget(decoder: max(1, each / 2), encoder: each)
    }

    public init(decoder: Int, encoder: Int) {
        self.decoder = decoder
        self.encoder = encoder
    }
}

/// Integer time-base conversion without FFmpeg (the planner is pure): to nearest (half away from zero)
/// or down, saturating.
enum Rescale {
    static func ticks(_ value: Int64, from: Rational, to: Rational, roundingDown: Bool = false) -> Int64 {
        let numerator = Int64(from.numerator).multipliedReportingOverflow(by: Int64(to.denominator))
        let denominator = Int64(from.denominator).multipliedReportingOverflow(by: Int64(to.numerator))
        guard !numerator.overflow, !denominator.overflow, denominator.partialValue > 0, numerator.partialValue > 0 else { return value }
        let product = value.multipliedReportingOverflow(by: numerator.partialValue)
        guard !product.overflow else {
            let scaled = Double(value) * Double(numerator.partialValue) / Double(denominator.partialValue)
            if scaled >= 9.2e18 { return .max }
            if scaled <= -9.2e18 { return .min }
            return Int64(roundingDown ? scaled.rounded(.down) : scaled.rounded())
        }
        let (quotient, remainder) = product.partialValue.quotientAndRemainder(dividingBy: denominator.partialValue)
        if remainder == 0 { return quotient }
        if roundingDown { return product.partialValue < 0 ? quotient - 1 : quotient }
        if remainder.magnitude * 2 >= denominator.partialValue.magnitude { return product.partialValue > 0 ? quotient + 1 : quotient - 1 }
        return quotient
    }
}

/// What a smart cut re-encodes and copies, in seconds on the source's timeline (for reports).
public struct SmartCutSummary: Sendable, Equatable {
    public var headSeconds: ClosedRange<Double>?
    public var copiedSeconds: ClosedRange<Double>
    public var tailSeconds: ClosedRange<Double>?
    /// avc1/hvc1/avc3/hev1 (Matroska and MPEG-TS: the record's kind); nil for VP8, VP9 and AV1, which have none.
    public var sampleEntry: String?
}

extension CutPlan {
    public var smartSummary: SmartCutSummary? {
        guard let smart, let video else { return nil }
        let end = seconds(micro: endMicro)
        func time(_ ticks: Int64) -> Double { min(seconds(micro: video.micro(ticks)), end) }
        func span(_ from: Double, _ to: Double) -> ClosedRange<Double> { min(from, to)...max(from, to) }
        let copiedUntil = smart.tailStart ?? (smart.copiesToEnd ? video.presentedEnd : smart.copyEnd.pts)
        return SmartCutSummary(
            headSeconds: smart.hasHead ? span(time(smart.frameAtStart), time(smart.firstCopied.pts)) : nil,
            copiedSeconds: span(time(smart.firstCopied.pts), time(copiedUntil)),
            tailSeconds: smart.tailStart.map { span(time($0), time(smart.end)) },
            sampleEntry: sampleEntry?.type)
    }
}
