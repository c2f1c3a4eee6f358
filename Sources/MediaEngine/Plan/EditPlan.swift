/// An edit of one file, decided before anything is written: what the output holds (`output`, every output- and
/// stream-level fact once) and the ranges written into it one after another (`ranges`, each only its own timing) —
/// one range for `--start/--end`, several for a join. What `--dry-run` prints and what the writer
/// (`EditOutput.write`) executes without deciding anything again; a value, so a plan made in one `vtrim serve`
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

/// How a range is cut.
public enum CutMode: String, Sendable, CaseIterable, Codable {
    /// Stream copy; in MP4/MOV edit lists hide what decoding needs before the start and after the end.
    case copy
    /// Stream copy from the keyframe; the lead-in is shown.
    case keyframe
    /// Decode and re-encode the video: from the frame at `start`, lasting exactly `end − start`.
    case exact
    /// Like `exact`, but only the partial groups of pictures at the edges are re-encoded.
    case smart
}
