/// What the whole output holds, decided once for all its ranges: the mode, the container, the kept streams with
/// their audio encoder or subtitle conversion, the video stream's own facts, the sample entry, the encoder and its
/// settings, chapters, timecode, metadata, faststart. The writer sets the output up from this alone.
public struct OutputPlan: Sendable, Equatable, Codable {
    public var requestedMode: CutMode
    /// The mode every range runs in (smart falls back to exact for all of them; without video, a copy).
    public var mode: CutMode
    /// Why smart was asked and exact runs, if so.
    public var smartFallback: SmartFallback?
    public var container: ContainerFacts
    /// The container's start time (µs): 0 on vtrim's timeline; every `…Micro` of the ranges counts from the same origin.
    public var originMicro: Int64
    /// The kept streams, in the source's order.
    public var streams: [KeptStream]
    /// The video stream and its edits, or nil without video.
    public var video: OutputVideo?
    /// H.264/HEVC into MP4/MOV (and smart cuts into Matroska and MPEG-TS): the sample entry every range's samples take.
    public var sampleEntry: SampleEntryPlan?
    /// The encoder of the re-encoded video (exact and smart).
    public var encoder: String?
    /// How re-encoded frames are made (exact: the one encoder; smart: every range's edges).
    public var reencoding: Reencoding?
    /// Decoder and encoder threads per re-encoding part, from the job's share of the cores.
    public var threads: ThreadBudget
    public var faststart: Bool
    /// The output's chapters, on its own timeline (µs from its start).
    public var chapters: [Chapter]
    /// The output's start timecode (the source's at its first kept frame), or nil.
    public var timecode: String?
    /// Phone and camera metadata copied into an MP4/MOV output's `moov` after FFmpeg has written it.
    public var movieMetadata: MovieMetadata?
    /// Exact edits: the ranges' frames go through one encoder, flushed after the last range.
    public var sharesEncoder: Bool
    /// Every notice of the plan, once: about the input, each range's, and the join's.
    public var notices: [CutNotice]

    /// Container µs as seconds on vtrim's timeline (0 = the container's start).
    public func seconds(micro: Int64) -> Double { Micro.seconds(micro.minus(originMicro)) }
}

/// The output's video track as a whole: the source stream it comes from and what is alike in every range.
public struct OutputVideo: Sendable, Equatable, Codable {
    public var streamIndex: Int
    public var codec: String
    /// The source stream's time base: every tick of a range's `VideoCut` is one of these.
    public var timeBase: Rational
    /// The time base of the edit lengths below (the track's timescale in MP4/MOV): the stream's, or an exact edit's finer grid.
    public var editTimeBase: Rational
    /// Exact edits: the grid their frames are timed on (`ExactTiming`), the source's refined; nil otherwise.
    public var exactTimeBase: Rational?
    /// MP4/MOV: the one edit's length (the ranges' total), written into the header after muxing.
    public var editDuration: Int64?
    /// A copy join into MP4/MOV: one edit per range, replacing the muxer's single edit.
    public var edits: [MediaEdit]?
    /// What the stream's first access unit tells decoders, for the decoders an edit opens mid-stream.
    var beginning = StreamBeginning.unknown
    /// DivX/Xvid packed B-frames (`PackedFrames`): one picture per packet, shown in packet order, so a decoded
    /// picture's time is the earliest time of the packets fed and not yet shown — FFmpeg stamps each picture with
    /// the packet that released it, one slot late.
    public var packedFrames = false
    /// The source's reorder delay in frames: copied packets without a decode time (Matroska stores none) get one
    /// derived from presentation times with it (`DecodeTimeFill`), afresh at each range's keyframe.
    public var decodeDelayFrames = 0
    /// A smart edit of a frame-spliced codec whose output configuration is rewritten from the source's in-stream
    /// header (AV1: its sequence header OBU, from which the muxer builds `av1C`/CodecPrivate); nil keeps the source's.
    @OptionalBase64Bytes public var streamConfiguration: [UInt8]? = nil
    /// A smart edit of a frame-spliced codec: the source's stream header (AV1's sequence header OBU, MPEG-2's sequence
    /// header and extension) that every re-encoded edge's first packet must state again; nil for VP8/VP9.
    @OptionalBase64Bytes public var edgeHeader: [UInt8]? = nil
    /// The Dolby Vision configuration the output keeps (every frame carries its source frame's RPU), written into
    /// MP4/MOV's sample entry after muxing and kept as stream side data for Matroska; nil when there is none to keep.
    public var dolbyVision: DolbyVisionConfiguration?
    /// Re-encoded frames carry their source frames' HDR10+ dynamic metadata (a PQ stream of a codec that carries it,
    /// re-encoded alike): the writers find it frame by frame, as no survey reads every frame.
    public var hdr10Plus = false

    /// Stream ticks → µs on the container's timeline.
    public func micro(_ ticks: Int64) -> Int64 {
        guard timeBase.denominator > 0 else { return ticks }
        return Rescale.ticks(ticks, from: timeBase, to: Rational(1, 1_000_000))
    }
}

/// One entry of an MP4/MOV edit list: `duration` ticks of the video's media shown from `mediaStart` (output
/// ticks, before the muxer's own offset), both in the video's `editTimeBase`.
public struct MediaEdit: Sendable, Equatable, Codable {
    public var mediaStart: Int64
    public var duration: Int64
}

extension OutputVideo {
    /// The output's video track from the source stream's facts: its grids (an exact edit's finer one, which MP4/MOV
    /// also time its edit in) and what decoders opened mid-stream need. Its edits are the placed ranges'.
    static func make(_ video: VideoFacts, mode: CutMode, container: ContainerFacts) -> OutputVideo {
        let exact = mode == .exact ? video.fineTimeBase : nil
        var made = OutputVideo(streamIndex: video.index, codec: video.codec, timeBase: video.timeBase,
                               editTimeBase: container.editLists ? exact ?? video.timeBase : video.timeBase, exactTimeBase: exact)
        made.beginning = video.beginning
        made.packedFrames = video.packedFrames
        made.decodeDelayFrames = video.decodeDelayFrames
        if let vision = video.dolbyVision, vision.isKept(mode: mode, codec: video.codec, reencodesAlike: video.reencodesAlike(mode)) {
            made.dolbyVision = vision
        }
        made.hdr10Plus = video.perceptualQuantizer && mode != .copy && mode != .keyframe && FrameMetadataCodec(codec: video.codec) != nil
            && video.reencodesAlike(mode)
        return made
    }
}
