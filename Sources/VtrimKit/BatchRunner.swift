import Dispatch
import Foundation
import LibraryFiles
import Locking
import MediaEngine

/// Runs one job per input on up to `jobs` threads at once, and hands the outcomes over in input order
/// as soon as they are ready. Each job owns its FFmpeg contexts (they never cross threads).
/// With `failFast`, no new job starts after a failure; the inputs not started are reported as skipped.
/// After an interrupt, no new job starts, the inputs not started are reported as skipped
/// ("interrupted"), and the run returns `interrupted: true`.
public struct BatchRunner: Sendable {
    public let jobs: Int
    public let failFast: Bool

    public init(jobs: Int, failFast: Bool) {
        self.jobs = max(1, jobs)
        self.failFast = failFast
    }

    /// Decoder/encoder threads for each job so that jobs × threads stays near the core count.
    public static func threadsPerJob(jobs: Int) -> Int {
        max(1, cores / max(1, jobs))
    }

    /// The cores the command-line runs use (threads, and `-j`'s default): `VTRIM_CORES`, what a scheduler granted
    /// the task (a Ray task's CPUs, which pin no cores), else the machine's.
    public static let cores: Int = coresGranted(ProcessInfo.processInfo.environment["VTRIM_CORES"]).value
        ?? ProcessInfo.processInfo.activeProcessorCount

    /// `VTRIM_CORES`'s value (nil where unset), or why it cannot be used (a usage error at start-up).
    public static func coresGranted(_ text: String?) -> (value: Int?, problem: String?) {
        guard let text else { return (nil, nil) }
        guard let value = Int(text), (1...4096).contains(value) else { return (nil, "VTRIM_CORES=\(text) is not a core count from 1 to 4096") }
        return (value, nil)
    }

    /// - Parameters:
    ///   - job: runs input `index`; may return several outcomes (a cut list) — all are reported.
    ///   - report: called on the calling thread, in input order.
    /// - Returns: whether an interrupt stopped the run.
    public func run(paths: [String], writer: ReportWriter,
                    job: @escaping @Sendable (_ index: Int, _ path: String) -> [Outcome],
                    report: (Outcome) -> Void) -> Bool {
        let state = BatchState(count: paths.count)
        writer.begin(total: paths.count)
        let failFast = self.failFast
        let workers = DispatchGroup()
        for _ in 0..<min(jobs, paths.count) {
            DispatchQueue.global().async(group: workers) {
                while let index = state.claim() {
                    writer.started(index, name: OutputNamer.inputFileName(paths[index]))
                    let outcomes = job(index, paths[index])
                    writer.finished(index)
                    let failed = outcomes.contains(where: \.failed)
                    state.complete(index, consume outcomes, stopAfter: failFast && failed)
                }
            }
        }
        // Every worker is done (and holds nothing) before the run returns and vtrim may exit.
        defer { workers.wait() }
        var next = 0
        while next < paths.count {
            guard let outcomes = state.waitFor(next) else { break }
            outcomes.forEach(report)
            next += 1
        }
        // Inputs never started are reported as skipped, with why: an interrupt or an earlier failure.
        let interrupted = Interrupt.requested
        for index in next..<paths.count {
            report(Outcome(path: OutputNamer.redactedIfURL(paths[index]), status: .skipped(
                reason: interrupted ? Interrupt.skipReason : "not started: an earlier input failed (--fail-fast)")))
        }
        return interrupted
    }
}

/// Shared by the workers and the reporting thread: which input starts next, and the outcomes not yet reported.
private final class BatchState: Sendable {
    private struct State {
        var nextToStart = 0
        var results: [Int: [Outcome]] = [:]
        var stopped = false
    }

    private let count: Int
    private let state = LockedCondition(State())

    init(count: Int) {
        self.count = count
    }

    /// The next input to run, or nil when there is none (all started, fail-fast, or interrupted).
    func claim() -> Int? {
        state.withLock { state in
            guard !state.stopped, !Interrupt.requested, state.nextToStart < count else { return nil }
            defer { state.nextToStart += 1 }
            return state.nextToStart
        }
    }

    func complete(_ index: Int, _ outcomes: consuming [Outcome], stopAfter: Bool) {
        let outcomes = outcomes
        state.withLock { state in
            state.results[index] = outcomes
            if stopAfter { state.stopped = true }
        }
    }

    /// Blocks until input `index` has finished (a claimed input always finishes); nil when it will never
    /// start (fail-fast or interrupted: looked at every 0.2 s).
    func waitFor(_ index: Int) -> [Outcome]? {
        let count = count
        func settled(_ state: State) -> Bool {
            state.results[index] != nil || (index >= state.nextToStart && (state.stopped || Interrupt.requested || state.nextToStart >= count))
        }
        while true {
            let found: [Outcome]?? = state.wait(until: settled, timeoutSeconds: 0.2) { state, ready in
                guard ready else { return .none }
                return .some(state.results.removeValue(forKey: index))
            }
            if let found { return found }
        }
    }
}
