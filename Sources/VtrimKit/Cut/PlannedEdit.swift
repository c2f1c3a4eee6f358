import LibraryFiles
import MediaEngine
import WorkerProtocol

/// One edit decided and ready to write: the plan the writer executes and everything its report needs. A value
/// (Codable): `vtrim serve` plans in one worker process and writes in another, and the edit that runs is the plan
/// the page was shown — unless the source changed in between (`plan_stale`).
public struct PlannedEdit: Sendable, Codable {
    public var path: String
    public var output: String
    public var overwrite: Bool
    public var createsFolder: Bool
    /// `--strict`: a run-time warning fails the edit and removes the output.
    public var strict: Bool
    /// A picture edit's plan, or a cut of sound into its own container.
    public var work: PlannedWork
    /// The ranges as requested and resolved against the file, one per range of the plan.
    var ranges: [CutRange]
    var shape: EditShape
    /// Plan-time warnings (the probe's, the ranges', the plan's).
    public var warnings: [MediaWarning]
    /// The source file as planned.
    public var source: FileVersion
    /// A cut-list row written to an output of its own: its 0-based index and label.
    var listRow: ListRow?

    struct ListRow: Sendable, Codable {
        var index: Int
        var label: String?
        /// A split proposal's range opened by a scene cut: the detector's score there.
        var sceneScore: Double? = nil

        /// The report's `segment` object.
        var fields: [(String, JSON)] {
            [("segment", .object([("index", .int(Int64(index + 1))), ("label", .optional(label))]
                + (sceneScore.map { [("scene_score", JSON.number($0))] } ?? [])))]
        }
    }

    /// What `--dry-run` prints for it.
    public var dryRunOutcome: Outcome {
        switch work {
        case let .edit(plan):
            let report = EditReport(path: path, output: output, plan: plan, ranges: ranges, shape: shape, listRow: listRow)
            return Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.dryRunFields, lines: report.dryRunLines)
        case let .sound(plan):
            let report = SoundReport(path: path, output: output, plan: plan, ranges: ranges, shape: shape, listRow: listRow)
            return Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.fields(readBack: nil), lines: report.lines(readBack: nil))
        }
    }
}

/// What a planned edit writes: a picture edit (`EditPlan`: video with its companions, into MP4/MOV, Matroska, MPEG-TS,
/// AVI) or a cut of sound into its own container (`SoundPlan`).
public enum PlannedWork: Sendable, Codable {
    case edit(EditPlan)
    case sound(SoundPlan)
}
