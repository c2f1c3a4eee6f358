import MediaEngine
import WorkerProtocol

/// The result of one job on one input: what the report says on stdout (JSON fields or human lines),
/// in input order.
public struct Outcome: Sendable {
    public enum Status: Sendable {
        case succeeded
        case failed(MediaError)
        case skipped(reason: String)
    }

    public var path: String
    public var status: Status
    public var warnings: [MediaWarning]
    /// Report fields after `path`, in order (JSON keys from the command-line contract).
    public var fields: [(String, JSON)]
    /// Human report lines for stdout.
    public var lines: [String]
    /// The report is not about a file (`vtrim timeline --duration`): `path` is null in JSON.
    public var pathIsNull: Bool

    public init(path: String, status: Status, warnings: [MediaWarning] = [], fields: [(String, JSON)] = [],
                lines: [String] = [], pathIsNull: Bool = false) {
        self.path = path
        self.status = status
        self.warnings = warnings
        self.fields = fields
        self.lines = lines
        self.pathIsNull = pathIsNull
    }

    /// A folder given on the command line in which the walk found no media file: skipped with reason
    /// `no_media` and a warning, or (with --strict) failed.
    public static func emptyFolder(_ folder: String, strict: Bool) -> Outcome {
        let warning = MediaWarning(code: "no_media", message: "no media files found")
        guard !strict else {
            return Outcome(path: folder, status: .failed(MediaError(.strictWarning, path: folder, operation: "walk",
                                                                    reason: "warning treated as an error (--strict): \(warning.message)")),
                           warnings: [warning])
        }
        return Outcome(path: folder, status: .skipped(reason: "no_media"), warnings: [warning])
    }

    public static func failure(_ error: MediaError, warnings: [MediaWarning] = []) -> Outcome {
        Outcome(path: error.path, status: .failed(error), warnings: warnings)
    }

    public var failed: Bool {
        if case .failed = status { return true }
        return false
    }

    public var json: JSON {
        var members: [(String, JSON)] = [("path", pathIsNull ? .null : .string(path))]
        switch status {
        case .succeeded:
            members += fields
        case let .failed(error):
            members.append(("error", .object([
                ("code", .string(error.code.rawValue)),
                ("message", .string(error.message)),
                ("operation", .string(error.operation)),
            ])))
        case let .skipped(reason):
            members.append(("skipped", .bool(true)))
            members.append(("reason", .string(reason)))
            members += fields
        }
        members.append(("warnings", .array(warnings.map { warning in
            .object([("code", .string(warning.code)), ("message", .string(warning.message))])
        })))
        return .object(members)
    }

    /// `--strict`: any warning fails the input (the job has already kept no output).
    public func applyingStrict() -> Outcome {
        guard case .succeeded = status, let first = warnings.first else { return self }
        let error = MediaError(.strictWarning, path: path, operation: "strict",
                               reason: "warning treated as an error (--strict): \(first.message)")
        return Outcome(path: path, status: .failed(error), warnings: warnings)
    }
}
