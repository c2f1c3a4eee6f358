/// Everything the planner needs, read from the input (and the output's muxer) beforehand: a value, so
/// the planner is a pure function of it and tests can build one by hand.
struct CutFacts: Sendable {
    public var path: String
    public var requestedMode: CutMode
    /// The requested range on the container's µs timeline (origin included), and the origin itself.
    public var startMicro: Int64
    public var endMicro: Int64
    public var originMicro: Int64
    public var container: ContainerFacts
    public var streams: [StreamFacts]
    public var video: VideoFacts?
    public var threads: ThreadBudget
    public var crf: Int
    /// `CutSettings.exactCRF`.
    public var exactCRF: Int
    public var preset: String
    public var faststart: Bool
    public var sampleEntry: SampleEntryPlan.Placement = .outOfBand
    /// Where a truncated input's readable media ends (container µs, origin included) and why; nil when whole.
    public var readableEnd: (micro: Int64, why: String)?
    /// An MP4/MOV source's metadata FFmpeg's muxer cannot write (`MovieMetadata`).
    public var movieMetadata: MovieMetadata?
    /// The source's chapters (container µs) and what the cut does with them.
    public var chapters: [Chapter] = []
    public var chapterPolicy: ChapterPolicy = .keep
    /// The source's start timecode, if it states one.
    var startTimecode: StartTimecode?

    public init(path: String, requestedMode: CutMode, startMicro: Int64, endMicro: Int64, originMicro: Int64,
                container: ContainerFacts, streams: [StreamFacts], video: VideoFacts?, threads: ThreadBudget,
                crf: Int, preset: String, faststart: Bool) {
        self.path = path
        self.requestedMode = requestedMode
        self.startMicro = startMicro
        self.endMicro = endMicro
        self.originMicro = originMicro
        self.container = container
        self.streams = streams
        self.video = video
        self.threads = threads
        self.crf = crf
        exactCRF = crf
        self.preset = preset
        self.faststart = faststart
    }
}

/// One input stream and whether the output container can hold it.
struct StreamFacts: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case video, audio, subtitle, data, other }
    public var index: Int
    public var kind: Kind
    public var codec: String
    public var tag: String?
    public var isAttachedPicture: Bool
    public var containerCanHold: Bool
    /// AMR-NB, whose MP4/3GP samples may hold several frames (the 3GP/MOV muxer wants one each).
    public var isAMRNarrowband: Bool
    /// A QuickTime chapter track: text samples FFmpeg's demuxer reads as the file's chapters and then
    /// offers as a data stream.
    public var isChapterTrack = false
    /// Text subtitles the container cannot hold as they are: the encoder (FFmpeg's name) of the text codec it
    /// holds (mov_text for MP4/MOV, webvtt for WebM, srt for Matroska).
    public var convertsTo: String?
    /// Audio of a join into MP4/MOV: the encoder that re-encodes it exact to the sample (it opened with the
    /// stream's format), or nil.
    public var exactAudioEncoder: String?

    public init(index: Int, kind: Kind, codec: String, tag: String? = nil, isAttachedPicture: Bool = false,
                containerCanHold: Bool = true, isAMRNarrowband: Bool = false) {
        self.index = index
        self.kind = kind
        self.codec = codec
        self.tag = tag
        self.isAttachedPicture = isAttachedPicture
        self.containerCanHold = containerCanHold
        self.isAMRNarrowband = isAMRNarrowband
    }
}

/// The picture an exact cut's encoder takes, as the survey read it from the stream and the output.
struct ExactPicture: Sendable, Equatable {
    var pixelFormat: String
    var tagsLimitedRange: Bool
    var bakedOrientation: Orientation?
    var hdrParameters: [String]
    /// The source's pixel format: a smart cut's edges keep it.
    var sourcePixelFormat = ""
}

/// The main video stream: its packets around the edges and what re-encoding it would take.
struct VideoFacts: Sendable {
    public var index: Int
    public var timeBase: Rational
    public var codec: String
    public var width: Int
    public var height: Int
    public var orientation: Orientation
    public var decoderAvailable: Bool
    /// The requested range in this stream's ticks (`StreamTime`: the start rounded down, the end up).
    public var startTicks: Int64
    public var endTicks: Int64
    /// The same range on the grid an exact cut's encoder works on (see `ExactTiming`).
    public var fineTimeBase: Rational
    /// `fineTimeBase` is the source's own frame slots (AVI into AVI).
    public var fineTicksAreSlots = false
    /// Packets (decode order) around `start`, from a keyframe at or before it (see `StartEdge.isSettled`).
    public var startPackets: [VideoPacket]
    /// Packets (decode order) around `end`, from a keyframe shown before it (see `EndEdge.make`); the same
    /// read as `startPackets` when one read covers the range.
    public var endPackets: [VideoPacket]
    public var endReachesEndOfStream: Bool
    /// Frames the source's own edit list hides from here on (pts), if it ends early.
    public var sourceShownUntil: Int64?
    /// Why a smart cut is impossible whatever the range (codec, container, pixel format, encoder), if it is.
    public var smartRefusal: SmartFallback?
    /// A single smart range whose packets rule smart out whatever the encoder (`RangePlanner.fallbackWithoutTrial`): the
    /// survey ran no trial, and the planner falls back for this reason.
    var trialSkippedFor: SmartFallback?
    /// The encoder an exact cut would use, and the pixel format conversion it would need.
    public var exactEncoder: String
    public var pixelFormatConversion: (from: String, to: String)?
    /// What the stream's first access unit tells decoders (x264's version SEI).
    var beginning = StreamBeginning.unknown
    /// MPEG-4 part 2 with B-frames packed two to a packet (DivX/Xvid): `PackedFrames`.
    public var packedFrames = false
    /// The stream's reorder delay in frames (its codec parameters' `video_delay`): how far decode times run
    /// ahead of presentation, where a container stores none.
    public var decodeDelayFrames = 0
    /// H.264/HEVC going into MP4/MOV: the source's parameter sets (record, and those in band over the range).
    var parameterSets: SourceParameterSets?
    /// One frame in the stream's ticks where the container says the rate is constant (its average rate equals its base
    /// rate, a whole number of ticks apart): the whole stream's, never a window's guess. nil otherwise.
    public var constantFrameTicks: Int64?
    /// The stream's Dolby Vision configuration (dvcC/dvvC), if it has one.
    var dolbyVision: DolbyVisionConfiguration?
    /// The stream's transfer is SMPTE ST 2084 (PQ), the one HDR10+ is defined for.
    var perceptualQuantizer = false
    /// No clean start lies at or before the start: `startPackets` count flagged keyframes as starts.
    var startsUnclean = false
    /// What an exact cut's encoder takes (pixel format, range, orientation baked, HDR metadata).
    var exactPicture: ExactPicture?
    /// Smart cuts: what the edges' encoder must match in the source, and the plan's trial of it (out of band:
    /// the ids and the sets it writes).
    var smartMatch: SmartEncoding.Match?
    var smartTrial: SmartTrial.Sets?
    /// Frame-spliced codecs (VP8, VP9, AV1): the stream header the source's keyframe states, which the edges match.
    var smartHeader: StreamHeader?

    public init(index: Int, timeBase: Rational, codec: String, width: Int, height: Int, orientation: Orientation,
                decoderAvailable: Bool, startTicks: Int64, endTicks: Int64,
                fineTimeBase: Rational? = nil, startPackets: [VideoPacket], endPackets: [VideoPacket], endReachesEndOfStream: Bool,
                sourceShownUntil: Int64? = nil, smartRefusal: SmartFallback? = nil, exactEncoder: String = "libx264",
                pixelFormatConversion: (from: String, to: String)? = nil) {
        self.index = index
        self.timeBase = timeBase
        self.codec = codec
        self.width = width
        self.height = height
        self.orientation = orientation
        self.decoderAvailable = decoderAvailable
        self.startTicks = startTicks
        self.endTicks = endTicks
        self.fineTimeBase = fineTimeBase ?? timeBase
        self.startPackets = startPackets
        self.endPackets = endPackets
        self.endReachesEndOfStream = endReachesEndOfStream
        self.sourceShownUntil = sourceShownUntil
        self.smartRefusal = smartRefusal
        self.exactEncoder = exactEncoder
        self.pixelFormatConversion = pixelFormatConversion
    }
}

extension VideoFacts {
    /// Stream ticks → µs on the container's timeline.
    func micro(_ ticks: Int64) -> Int64 { Rescale.ticks(ticks, from: timeBase, to: Rational(1, 1_000_000)) }
}
