import Foundation
import MediaEngine

/// Writes outcomes: reports to stdout (JSON Lines or human text), diagnostics to stderr, one line each.
public final class ReportWriter: @unchecked Sendable {
    public enum Style: Sendable { case human, json }

    private let style: Style
    private let standardOutput: (String) -> Void
    private let standardError: (String) -> Void
    private let lock = NSLock()
    public private(set) var failures = 0
    public private(set) var successes = 0
    public private(set) var skips = 0

    public init(style: Style,
                standardOutput: @escaping (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) },
                standardError: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.style = style
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    public func write(_ outcome: Outcome) {
        lock.lock()
        defer { lock.unlock() }
        for warning in outcome.warnings {
            standardError("vtrim: warning: \(outcome.path): \(warning.message)\n")
        }
        switch outcome.status {
        case .succeeded: successes += 1
        case let .failed(error):
            failures += 1
            standardError("vtrim: error: \(error.path): \(error.reason)\n")
        case let .skipped(reason):
            skips += 1
            standardError("vtrim: skipped: \(outcome.path): \(reason)\n")
        }
        switch style {
        case .json:
            standardOutput(outcome.json.serialized + "\n")
        case .human:
            if case .succeeded = outcome.status, !outcome.lines.isEmpty {
                standardOutput(outcome.lines.joined(separator: "\n") + "\n")
            }
        }
    }

    /// A line for stderr that is not about one input (e.g. a usage note).
    public func note(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        standardError("vtrim: \(text)\n")
    }
}
