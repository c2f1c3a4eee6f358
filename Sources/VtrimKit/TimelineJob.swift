import Foundation
import MediaEngine
import TimelineCore
import WorkerProtocol

/// `vtrim timeline`: the numbers a two-slider trimming control shows (`TimelineObject`), for a duration or a
/// probed file.
public enum TimelineJob {
    /// The duration probed from `path`.
    public static func run(path: String, request: TimelineRequest) -> Outcome {
        do throws(MediaError) {
            let info = try Probe.probe(path: path)
            var outcome = outcome(path: path, durationSeconds: info.durationSeconds, request: request)
            outcome.warnings = info.warnings + outcome.warnings
            return outcome
        } catch {
            return .failure(error)
        }
    }

    /// A duration given on the command line (`path` is null in the report).
    public static func run(durationSeconds: Double, request: TimelineRequest) -> Outcome {
        outcome(path: nil, durationSeconds: durationSeconds, request: request)
    }

    private static func outcome(path: String?, durationSeconds: Double, request: TimelineRequest) -> Outcome {
        let label = path ?? "duration \(TimeFormatting.exactSeconds(durationSeconds)) s"
        switch TimelineObject.make(path: path, durationSeconds: durationSeconds, request: request) {
        case let .success(made):
            return Outcome(path: label, status: .succeeded, warnings: made.warnings.map { MediaWarning(code: $0.code, message: $0.message) },
                           fields: made.fields, lines: made.lines, pathIsNull: path == nil)
        case let .failure(failure):
            let code = MediaError.Code(rawValue: failure.code) ?? .invalidRange
            return .failure(MediaError(code, path: label, operation: failure.operation, reason: failure.reason))
        }
    }
}

/// Times as the command line gave them, for file names: `12.5`, `end-5`.
enum TimeSpecText {
    static func describe(_ spec: TimeSpec) -> String {
        switch spec {
        case let .seconds(value): return JSON.format(value)
        case let .beforeEnd(value): return value == 0 ? "end" : "end-" + JSON.format(value)
        }
    }
}
