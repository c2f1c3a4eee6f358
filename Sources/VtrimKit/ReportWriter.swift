import DiskNames
import Foundation
import Glibc
import MediaEngine
import Locking
import RemoteInput
import WorkerProtocol

/// Writes outcomes: reports to stdout (JSON Lines or human text), diagnostics to stderr, one line each;
/// on a terminal (and without --quiet) also a progress line on stderr, cleared before every diagnostic.
/// Called from every job's thread: its counts and progress live behind one lock, held while a line is written,
/// so lines never interleave.
public final class ReportWriter: Sendable {
    public enum Style: Sendable { case human, json }

    private let style: Style
    private let quiet: Bool
    private let standardOutput: @Sendable (String) -> Void
    private let standardError: @Sendable (String) -> Void
    private let started = Date()
    private let showsProgress: Bool
    private let state = Locked(State())

    private struct State {
        var failures = 0
        var successes = 0
        var skips = 0
        var progress = ProgressState()
        var showsProgressLine = true
    }

    public var failures: Int { state.withLock { $0.failures } }
    public var successes: Int { state.withLock { $0.successes } }
    public var skips: Int { state.withLock { $0.skips } }

    public init(style: Style, quiet: Bool = false, progressOnTerminal: Bool = true,
                standardOutput: @escaping @Sendable (String) -> Void = ReportWriter.writeStandardOutput,
                standardError: @escaping @Sendable (String) -> Void = ReportWriter.writeStandardError) {
        self.style = style
        self.quiet = quiet
        // A path carrying bytes that are not UTF-8 (`DiskName`) is shown with them escaped, `caf\xe9.mp4`.
        let json = style == .json
        self.standardOutput = { @Sendable text in standardOutput(json ? DiskName.displayInJSON(text) : DiskName.display(text)) }
        self.standardError = { @Sendable text in standardError(DiskName.display(text)) }
        showsProgress = progressOnTerminal && !quiet && isatty(2) == 1
        // A URL's bytes move the line between a job's own steps (a segment fetched is no fraction of the cut yet).
        if showsProgress { FetchLedger.observe { [weak self] in self?.redraw() } }
    }

    private func redraw() {
        state.withLock { drawProgress(&$0) }
    }

    @Sendable public static func writeStandardOutput(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    @Sendable public static func writeStandardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    public func write(_ outcome: Outcome) {
        state.withLock { state in
            clearProgress(&state.progress)
            for warning in outcome.warnings {
                standardError("vtrim: warning: \(OneLine.text(outcome.path)): \(OneLine.text(warning.message))\n")
            }
            switch outcome.status {
            case .succeeded: state.successes += 1
            case let .failed(error):
                state.failures += 1
                standardError("vtrim: error: \(OneLine.text(error.path)): \(OneLine.text(error.message))\n")
            case let .skipped(reason):
                state.skips += 1
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
            drawProgress(&state)
        }
    }

    /// `ok / failed / skipped / elapsed` on stderr, for runs over several inputs.
    public func summary(interrupted: Bool = false) {
        state.withLock { state in
            clearProgress(&state.progress)
            state.showsProgressLine = false
            guard !quiet || interrupted else { return }
            let elapsed = Date().timeIntervalSince(started)
            var text = "vtrim: \(state.successes) ok, \(state.failures) failed, \(state.skips) skipped in \(Human.decimal(elapsed, places: 1)) s"
            if interrupted { text += " (interrupted)" }
            standardError(text + "\n")
        }
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

    /// The batch has `total` inputs.
    public func begin(total: Int) {
        state.withLock { $0.progress.total = total }
    }

    public func started(_ index: Int, name: String) {
        state.withLock { state in
            state.progress.current[index] = (name, 0)
            drawProgress(&state, force: true)
        }
    }

    public func advanced(_ index: Int, fraction: Double) {
        state.withLock { state in
            guard let entry = state.progress.current[index] else { return }
            state.progress.current[index] = (entry.name, fraction)
            drawProgress(&state)
        }
    }

    public func finished(_ index: Int) {
        state.withLock { state in
            state.progress.current[index] = nil
            state.progress.done += 1
            drawProgress(&state, force: true)
        }
    }

    private func clearProgress(_ progress: inout ProgressState) {
        guard showsProgress, progress.visible else { return }
        standardError("\r\u{1B}[K")
        progress.visible = false
    }

    /// The line (`ProgressLine`), at most ten times a second.
    private func drawProgress(_ state: inout State, force: Bool = false) {
        guard showsProgress, state.showsProgressLine, state.progress.total > 0 else { return }
        let now = Date()
        if !force, now.timeIntervalSince(state.progress.lastDraw) < 0.1 { return }
        state.progress.lastDraw = now
        let partial = state.progress.current.values.reduce(0) { $0 + min(1, max(0, $1.fraction)) }
        // One figure for the whole run, which never goes back (a job's own fraction may), and the files
        // running now beside it, in input order.
        state.progress.shownFraction = max(state.progress.shownFraction,
                                           min(1, (Double(state.progress.done) + partial) / Double(state.progress.total)))
        let line = ProgressLine.text(done: state.progress.done, total: state.progress.total, fraction: state.progress.shownFraction,
                                     running: state.progress.current.sorted { $0.key < $1.key }.map(\.value.name),
                                     elapsedSeconds: now.timeIntervalSince(started), fetchedBytes: FetchLedger.processBytes)
        standardError("\r\u{1B}[K" + line)
        state.progress.visible = true
    }
}

/// The progress line on a terminal: `[3/10] 42% a.mp4, b.mp4 · 12.3 MiB fetched, 4.1 MiB/s · ETA 0:12` — the
/// bytes where URLs are read. Pure.
enum ProgressLine {
    static func text(done: Int, total: Int, fraction: Double, running: [String], elapsedSeconds: Double, fetchedBytes: Int64) -> String {
        let fraction = fraction.isFinite ? min(1, max(0, fraction)) : 0
        var line = "[\(done)/\(total)] \(Int(fraction * 100))%"
        if !running.isEmpty {
            line += " " + running.prefix(3).joined(separator: ", ") + (running.count > 3 ? " +\(running.count - 3)" : "")
        }
        let elapsed = elapsedSeconds.isFinite ? max(0, elapsedSeconds) : 0
        if fetchedBytes > 0 {
            line += " · \(Human.bytes(fetchedBytes)) fetched"
            if elapsed >= 1 { line += ", \(Human.bytes(Int64(min(9e18, Double(fetchedBytes) / elapsed))))/s" }
        }
        if fraction > 0.02, elapsed > 1 {
            let remaining = Int(min(359_999, (elapsed / fraction - elapsed).rounded()))
            line += " · ETA \(remaining / 60):\(String(format: "%02d", remaining % 60))"
        }
        return line
    }
}
