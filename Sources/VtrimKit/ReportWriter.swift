import Foundation
import Glibc
import MediaEngine

/// Writes outcomes: reports to stdout (JSON Lines or human text), diagnostics to stderr, one line each;
/// on a terminal (and without --quiet) also a progress line on stderr, cleared before every diagnostic.
public final class ReportWriter: @unchecked Sendable {
    public enum Style: Sendable { case human, json }

    private let style: Style
    private let quiet: Bool
    private let standardOutput: (String) -> Void
    private let standardError: (String) -> Void
    private let lock = NSLock()
    public private(set) var failures = 0
    public private(set) var successes = 0
    public private(set) var skips = 0
    private let started = Date()
    private let showsProgress: Bool
    private var progress = ProgressState()

    public init(style: Style, quiet: Bool = false, progressOnTerminal: Bool = true,
                standardOutput: @escaping (String) -> Void = ReportWriter.writeStandardOutput,
                standardError: @escaping (String) -> Void = ReportWriter.writeStandardError) {
        self.style = style
        self.quiet = quiet
        self.standardOutput = standardOutput
        self.standardError = standardError
        showsProgress = progressOnTerminal && !quiet && isatty(2) == 1
    }

    public static func writeStandardOutput(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    public static func writeStandardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    public func write(_ outcome: Outcome) {
        lock.lock()
        defer { lock.unlock() }
        clearProgress()
        for warning in outcome.warnings {
            standardError("vtrim: warning: \(outcome.path): \(warning.message)\n")
        }
        switch outcome.status {
        case .succeeded: successes += 1
        case let .failed(error):
            failures += 1
            standardError("vtrim: error: \(error.path): \(error.message)\n")
        case let .skipped(reason):
            skips += 1
            // A skip that a warning explains (an empty folder) is not said twice.
            let words = reason == MediaError.Code.noVideo.rawValue ? "no video stream (audio only)" : reason
            if !quiet, outcome.warnings.isEmpty { standardError("vtrim: skipped: \(outcome.path): \(words)\n") }
        }
        switch style {
        case .json:
            standardOutput(outcome.json.serialized + "\n")
        case .human:
            if case .succeeded = outcome.status, !outcome.lines.isEmpty {
                standardOutput(outcome.lines.joined(separator: "\n") + "\n")
            }
        }
        drawProgress()
    }

    /// `ok / failed / skipped / elapsed` on stderr, for runs over several inputs.
    public func summary(interrupted: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        clearProgress()
        showsProgressLine = false
        guard !quiet || interrupted else { return }
        let elapsed = Date().timeIntervalSince(started)
        var text = "vtrim: \(successes) ok, \(failures) failed, \(skips) skipped in \(Human.decimal(elapsed, places: 1)) s"
        if interrupted { text += " (interrupted)" }
        standardError(text + "\n")
    }

    // MARK: - Progress

    private struct ProgressState {
        var total = 0
        var done = 0
        var current: [Int: (name: String, fraction: Double)] = [:]
        var lastDraw = Date.distantPast
        var visible = false
        /// The overall fraction last drawn: the line never shows less.
        var shownFraction = 0.0
    }

    private var showsProgressLine = true

    /// The batch has `total` inputs.
    public func begin(total: Int) {
        lock.lock()
        progress.total = total
        lock.unlock()
    }

    public func started(_ index: Int, name: String) {
        lock.lock()
        defer { lock.unlock() }
        progress.current[index] = (name, 0)
        drawProgress(force: true)
    }

    public func advanced(_ index: Int, fraction: Double) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = progress.current[index] else { return }
        progress.current[index] = (entry.name, fraction)
        drawProgress()
    }

    public func finished(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        progress.current[index] = nil
        progress.done += 1
        drawProgress(force: true)
    }

    private func clearProgress() {
        guard showsProgress, progress.visible else { return }
        standardError("\r\u{1B}[K")
        progress.visible = false
    }

    /// `[done/total] 42% a.mp4, b.mp4 · ETA 0:12`, at most ten times a second.
    private func drawProgress(force: Bool = false) {
        guard showsProgress, showsProgressLine, progress.total > 0 else { return }
        let now = Date()
        if !force, now.timeIntervalSince(progress.lastDraw) < 0.1 { return }
        progress.lastDraw = now
        let partial = progress.current.values.reduce(0) { $0 + min(1, max(0, $1.fraction)) }
        // One figure for the whole run, which never goes back (a job's own fraction may), and the files
        // running now beside it, in input order.
        progress.shownFraction = max(progress.shownFraction, min(1, (Double(progress.done) + partial) / Double(progress.total)))
        let fraction = progress.shownFraction
        var line = "[\(progress.done)/\(progress.total)] \(Int(fraction * 100))%"
        let running = progress.current.sorted { $0.key < $1.key }.map(\.value.name)
        if !running.isEmpty {
            line += " " + running.prefix(3).joined(separator: ", ") + (running.count > 3 ? " +\(running.count - 3)" : "")
        }
        let elapsed = now.timeIntervalSince(started)
        if fraction > 0.02, elapsed > 1 {
            let remaining = Int((elapsed / fraction - elapsed).rounded())
            line += " · ETA \(remaining / 60):\(String(format: "%02d", remaining % 60))"
        }
        standardError("\r\u{1B}[K" + line)
        progress.visible = true
    }
}
