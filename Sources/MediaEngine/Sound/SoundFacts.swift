/// What a cut of sound is planned from, read from the input (`SoundSurvey`) or made by hand in tests: the stream,
/// its codec and rate, and the packets around each range's edges in samples. Every number in it was checked where it
/// was read; the planner still treats each as untrusted.
struct SoundFacts: Sendable, Equatable {
    var streamIndex: Int
    var codec: String
    /// AAC: whether it is AAC-LC (one priming frame is enough); false for HE-AAC and the rest.
    var lowComplexity = true
    var sampleRate: Int
    var timeBaseNum: Int32
    var timeBaseDen: Int32
    /// The source's sample at the container's time 0.
    var originSample: Int64
    /// One past the last sample the source decodes to.
    var endSample: Int64
    var container: SoundContainer
    var outputName: String
    var lossless: Bool
    /// Whether the output's muxer takes the codec as it is (`SoundContainer.holds`, and FFmpeg's own answer).
    var containerHolds: Bool?
    /// AAC without an AudioSpecificConfig (ADTS frames).
    var adts = false
    var bitRate: Int64 = 0
    /// Encoders this FFmpeg has, by name, among the ones a plan may choose.
    var encoders: Set<String>
    /// The encoder of the source's own codec, where it has one.
    var ownEncoder: String?
    var coverArtIndex: Int?
    var otherStreams = 0
    /// The source's chapters (container µs) and the container's origin (µs).
    var chapters: [Chapter] = []
    var originMicro: Int64 = 0
    /// AAC, MP3, AC-3: the samples every packet decodes to; 0 for codecs of variable frames.
    var fixedFrame: Int64 = 0
    /// A truncated input: the sample where what can be read ends, and why.
    var readableEnd: Int64?
    var truncation = ""
    /// Per range: the packets around its start and its end.
    var edges: [RangeEdges]

    /// One packet: its timestamp (source ticks) and the samples it decodes to (`start` on the source's timeline, in
    /// samples at `sampleRate`). MP3: how far back its bit reservoir reaches (bytes) and what it holds itself.
    struct PacketSpan: Sendable, Equatable {
        var pts: Int64
        var start: Int64
        var count: Int64
        var reservoirBytes = 0
        var mainDataBytes = 0
        /// Where the packet starts in the file (bytes), where the demuxer says.
        var position: Int64 = -1
        var end: Int64 { start.plus(count) }
    }

    /// Packets in decode order: from a little before the range's start to the one holding it (`head`; the stream's
    /// first packet among them when the range starts near it) and around its end (`tail`).
    struct RangeEdges: Sendable, Equatable {
        var head: [PacketSpan]
        var tail: [PacketSpan]
        /// Whether `head` begins with the stream's first packet.
        var headFromFirst: Bool
    }
}
