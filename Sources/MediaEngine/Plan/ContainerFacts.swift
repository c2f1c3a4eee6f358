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
    /// MP4/MOV (vtrim's `dvcC`/`dvvC`) and Matroska/WebM (FFmpeg's block addition mapping) say a stream is Dolby Vision;
    /// FFmpeg 5.1 writes no Dolby Vision descriptor into MPEG-TS, nor anything into AVI.
    public var signalsDolbyVision: Bool { editLists || formatName == "matroska" || formatName == "webm" }
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
