/// An edit of one file, decided before anything is written: what the output holds, and the ranges written into
/// it one after another — one range for `--start/--end`, several for a join. What `--dry-run` prints and what the
/// writer (`EditOutput.write`) executes without deciding anything again; a value, so a plan made in one `vtrim serve`
/// worker runs the same in another.
public struct EditPlan: Sendable, Equatable, Codable {
    public var output: OutputPlan
    public var ranges: [RangePlan]

    public var notices: [CutNotice] { output.notices }
    public var warnings: [CutNotice] { output.notices.filter(\.isWarning) }
    public var notes: [CutNotice] { output.notices.filter { !$0.isWarning } }
    /// How long the output shows (µs).
    public var durationMicro: Int64 { ranges.last.map { $0.outputStartMicro.plus($0.durationMicro) } ?? 0 }
}

/// One range of an edit: its own cut of the source (the video cut, smart record, exact timing and companion
/// window, output times moved to where the range begins: `VideoCut.outputStart`, `ExactTiming.outputStart`,
/// `CutPlan.companionsZeroOutputMicro`), where it begins on the output and how long it shows there.
public struct RangePlan: Sendable, Equatable, Codable {
    public var cut: CutPlan
    public var label: String?
    /// Where the range begins on the output's timeline and how long it shows there (µs).
    public var outputStartMicro: Int64
    public var durationMicro: Int64
}

/// What the whole output holds, decided once for all its ranges: the container, the kept streams with their
/// audio encoder or subtitle conversion, the sample entry, chapters, timecode, metadata, the video's edits,
/// faststart, and whether one encoder spans the ranges. The writer sets the output up from this alone.
public struct OutputPlan: Sendable, Equatable, Codable {
    public var requestedMode: CutPlan.Mode
    /// The mode every range runs in (smart falls back to exact for all of them; without video, a copy).
    public var mode: CutPlan.Mode
    /// Why smart was asked and exact runs, if so.
    public var smartFallback: SmartFallback?
    public var container: ContainerFacts
    public var streams: [KeptStream]
    /// H.264/HEVC into MP4/MOV: the sample entry every range's samples take.
    public var sampleEntry: SampleEntryPlan?
    /// The encoder of the re-encoded video (exact and smart).
    public var encoder: String?
    public var faststart: Bool
    /// The output's chapters, on its own timeline (µs from its start).
    public var chapters: [Chapter]
    /// The output's start timecode (the source's at its first kept frame), or nil.
    public var timecode: String?
    /// Phone and camera metadata copied into an MP4/MOV output's `moov` after FFmpeg has written it.
    public var movieMetadata: MovieMetadata?
    /// The video stream and how its edit list ends, or nil without video.
    public var video: OutputVideo?
    /// Exact edits: the ranges' frames go through one encoder, flushed after the last range.
    public var sharesEncoder: Bool
    /// Every notice of the plan, once: about the input, each range's, and the join's.
    public var notices: [CutNotice]
}

/// The output's video track as a whole.
public struct OutputVideo: Sendable, Equatable, Codable {
    public var streamIndex: Int
    public var codec: String
    /// The time base of the edit lengths below (the track's timescale in MP4/MOV).
    public var editTimeBase: Rational
    /// MP4/MOV: the one edit's length (the ranges' total), written into the header after muxing.
    public var editDuration: Int64?
    /// A copy join into MP4/MOV: one edit per range, replacing the muxer's single edit.
    public var edits: [MediaEdit]?
}

/// One entry of an MP4/MOV edit list: `duration` ticks of the video's media shown from `mediaStart` (output
/// ticks, before the muxer's own offset), both in the video's `editTimeBase`.
public struct MediaEdit: Sendable, Equatable, Codable {
    public var mediaStart: Int64
    public var duration: Int64
}
