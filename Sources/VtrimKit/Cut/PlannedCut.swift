import LibraryFiles
import MediaEngine
import WorkerProtocol

/// One cut decided and ready to write: the plan the writer executes and everything its report needs.
/// A value (Codable): `vtrim serve` plans in one worker process and writes in another, and the cut that
/// runs is the plan the page was shown — unless the source changed in between (`plan_stale`).
public struct PlannedCut: Sendable, Codable {
    public var path: String
    public var output: String
    public var overwrite: Bool
    public var createsFolder: Bool
    /// `--strict`: a run-time warning fails the cut and removes the output.
    public var strict: Bool
    public var plan: CutPlan
    var range: CutRange
    /// Plan-time warnings (the probe's, the range's, the plan's).
    public var warnings: [MediaWarning]
    /// The source file as planned.
    public var source: FileVersion
    /// A cut-list row: its 0-based index and label.
    var listRow: ListRow?

    struct ListRow: Sendable, Codable {
        var index: Int
        var label: String?

        /// The report's `segment` object.
        static func fields(_ row: ListRow) -> [(String, JSON)] {
            [("segment", .object([("index", .int(Int64(row.index + 1))), ("label", .optional(row.label))]))]
        }
    }

    var extraFields: [(String, JSON)] { listRow.map(ListRow.fields) ?? [] }

    var report: CutReport { CutReport(path: path, output: output, plan: plan, range: range) }

    /// What `--dry-run` prints for it.
    public var dryRunOutcome: Outcome {
        Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.dryRunFields + extraFields, lines: report.dryRunLines)
    }
}
