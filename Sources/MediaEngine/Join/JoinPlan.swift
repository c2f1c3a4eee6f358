/// Several ranges of one file joined into one output, decided before anything is written: each range's
/// own `CutPlan` moved to where it begins on the output's timeline, and what the whole output holds. The
/// writer executes the ranges one after another into one file (`Cutter.write(join:)`).
public struct JoinPlan: Sendable, Equatable, Codable {
    public struct Range: Sendable, Equatable, Codable {
        /// The range's plan, its output times moved to where it begins (`VideoCut.outputStart`,
        /// `ExactTiming.outputStart`, `CutPlan.companionsOutputStartMicro`).
        public var plan: CutPlan
        public var label: String?
        /// Where the range begins on the output's timeline and how long it shows there (µs).
        public var outputStartMicro: Int64
        public var durationMicro: Int64
    }

    public var requestedMode: CutPlan.Mode
    public var mode: CutPlan.Mode
    public var ranges: [Range]
    /// What the whole output holds: its streams, container, chapters, metadata, the video's edit (the
    /// ranges' total) and the join's notices; the first range's plan otherwise.
    public var whole: CutPlan
    /// Why smart was asked and exact runs, if so.
    public var smartFallback: SmartFallback?

    public var notices: [CutNotice] { whole.notices }
    public var warnings: [CutNotice] { whole.warnings }
    public var notes: [CutNotice] { whole.notes }
    public var durationMicro: Int64 { ranges.last.map { $0.outputStartMicro.plus($0.durationMicro) } ?? 0 }
}

/// One entry of an MP4/MOV edit list: `duration` ticks of the video's media shown from `mediaStart` (output
/// ticks, before the muxer's own offset), both in the video's `editTimeBase`.
public struct MediaEdit: Sendable, Equatable, Codable {
    public var mediaStart: Int64
    public var duration: Int64
}
