import Foundation
import Glibc
import Locking
import Synchronization
import WorkerProtocol

/// A fixed number of `vtrim _worker` processes and a FIFO queue (plans first) of engine requests for them. Each slot
/// has a thread that hands its worker one request at a time and blocks on the reply, so nothing the
/// engine does runs on the server's event loops. A worker that crashes costs only its request; one past
/// its deadline gets SIGTERM, then SIGKILL two seconds later. Either way the slot's next request starts a
/// fresh worker, and what the dead one left (its scratch folder, the request's temporary files) is removed.
final class WorkerPool: Sendable {
    /// How long a request may run: interactive work has a deadline; long work (cuts, previews) must show
    /// progress at least this often.
    enum Deadline: Sendable {
        case total(seconds: Double)
        case progress(seconds: Double)
    }

    /// How a request ended.
    enum Result: Sendable {
        /// The worker answered (a result or the engine's refusal), with a tile's bytes.
        case reply(WorkerReply, Data?)
        /// The worker died on it.
        case crashed(String)
        case timedOut(seconds: Double)
        case cancelled
        /// No worker could be started.
        case unavailable(String)
    }

    /// A request in the pool; `cancel()` withdraws it (queued) or kills its worker (running). What changes while it
    /// runs is the pool's state (`Run`, by the ticket's number).
    final class Ticket: Sendable {
        fileprivate let number: Int
        fileprivate let request: WorkerRequest
        fileprivate let progress: (@Sendable (Double) -> Void)?
        /// Removes what a killed worker may have left of this request (a cut's temporary file).
        fileprivate let cleanup: (@Sendable () -> Void)?
        fileprivate let pool: WorkerPool

        fileprivate init(number: Int, request: WorkerRequest, progress: (@Sendable (Double) -> Void)?, cleanup: (@Sendable () -> Void)?,
                         pool: WorkerPool) {
            self.number = number
            self.request = request
            self.progress = progress
            self.cleanup = cleanup
            self.pool = pool
        }

        func cancel() { pool.cancel(self) }
    }

    /// A ticket's run: who waits for its end, when it started and last said how far it is, its worker, and why and
    /// by when it is being stopped.
    private struct Run {
        var continuation: CheckedContinuation<Result, Never>?
        var started: Double = 0
        var lastProgress: Double = 0
        /// The process running the request, until it is reaped.
        var worker: WorkerPID?
        var killReason: Result?
        var killDeadline: Double?
    }

    private struct State {
        var queue: [Ticket] = []
        var running: [Ticket] = []
        /// Every ticket made and not yet finished, by number.
        var runs: [Int: Run] = [:]
        var stopping = false
        var slotsAlive = 0
        /// Why no request can be run (a thread the pool needs could not be made); nil when it can.
        var unavailable: String?

        /// SIGTERM now, SIGKILL at the kill deadline (the watchdog).
        mutating func kill(_ ticket: Ticket, reason: Result) {
            guard runs[ticket.number]?.killReason == nil, let worker = runs[ticket.number]?.worker else { return }
            runs[ticket.number]?.killReason = reason
            runs[ticket.number]?.killDeadline = ProcessInfo.processInfo.systemUptime + 2
            worker.signal(SIGTERM)
        }
    }

    let name: String
    private let deadline: Deadline
    private let executable: String
    private let verbose: Bool
    private let state = LockedCondition(State())
    private let counter = Atomic<Int>(0)
    private let tickets = Atomic<Int>(0)

    /// `create`: how each thread is made (`pthread_create`'s status); tests pass one that fails.
    init(name: String, size: Int, deadline: Deadline, executable: String, verbose: Bool,
         create: (@escaping @Sendable () -> Void) -> Int32 = DetachedThread.create) {
        self.name = name
        self.deadline = deadline
        self.executable = executable
        self.verbose = verbose
        // Threads of their own, made so that one that cannot be made (out of threads or memory) is known: with no slot,
        // or no watchdog to enforce deadlines, every request is answered "unavailable" rather than left waiting.
        var failure: Int32 = 0
        var made = 0
        let wanted = max(1, size)
        for _ in 0..<wanted {
            state.withLock { $0.slotsAlive += 1 }
            let status = create { [self] in slot() }
            if status == 0 { made += 1 } else { failure = status; state.withLock { $0.slotsAlive -= 1 } }
        }
        if made > 0, made < wanted {
            FileHandle.standardError.write(Data(("vtrim: warning: serve: \(name): \(made) of \(wanted) worker slots started; no thread "
                + "could be started for the rest (\(DetachedThread.reason(failure)))\n").utf8))
        }
        let watchdog = create { [self] in watch() }
        state.withLock { state in
            if state.slotsAlive == 0 {
                state.unavailable = "no thread could be started for the worker slots (\(DetachedThread.reason(failure)))"
            } else if watchdog != 0 {
                state.unavailable = "no thread could be started for the deadline watchdog (\(DetachedThread.reason(watchdog)))"
            }
        }
    }

    /// Queues `request` and waits for its end.
    func run(_ request: WorkerRequest, progress: (@Sendable (Double) -> Void)? = nil,
             cleanup: (@Sendable () -> Void)? = nil) async -> Result {
        let ticket = makeTicket(request, progress: progress, cleanup: cleanup)
        return await run(ticket)
    }

    /// A ticket for `request`, to be run with `run(_:)` (kept by whoever may cancel it).
    func makeTicket(_ request: WorkerRequest, progress: (@Sendable (Double) -> Void)? = nil,
                    cleanup: (@Sendable () -> Void)? = nil) -> Ticket {
        let ticket = Ticket(number: tickets.add(1, ordering: .relaxed).newValue, request: request, progress: progress, cleanup: cleanup,
                            pool: self)
        state.withLock { $0.runs[ticket.number] = Run() }
        return ticket
    }

    func run(_ ticket: Ticket) async -> Result {
        await withCheckedContinuation { continuation in
            let refused = state.withLock { state -> Result? in
                if let reason = state.unavailable {
                    state.runs[ticket.number] = nil
                    return .unavailable(reason)
                }
                guard !state.stopping, state.runs[ticket.number]?.killReason == nil else {
                    state.runs[ticket.number] = nil
                    return .cancelled
                }
                state.runs[ticket.number, default: Run()].continuation = continuation
                state.queue.insert(ticket, at: Self.place(of: ticket.request, in: state.queue.map(\.request)))
                return nil
            }
            if let refused { continuation.resume(returning: refused) }
        }
    }

    /// Where a request joins the queue: at the end, except a cut's plan — a click someone waits on — which
    /// goes ahead of queued tiles and probes (in order among plans), so a busy filmstrip does not hold the
    /// Cut button's answer.
    static func place(of request: WorkerRequest, in queued: [WorkerRequest]) -> Int {
        guard request.isPlan else { return queued.count }
        return queued.firstIndex { !$0.isPlan } ?? queued.count
    }

    /// Requests waiting and running (for tests and the status route).
    var load: (queued: Int, running: Int) {
        state.withLock { ($0.queue.count, $0.running.count) }
    }

    private func cancel(_ ticket: Ticket) {
        let withdrawn: CheckedContinuation<Result, Never>?? = state.withLock { state in
            if let index = state.queue.firstIndex(where: { $0 === ticket }) {
                state.queue.remove(at: index)
                return .some(state.runs.removeValue(forKey: ticket.number)?.continuation)
            }
            if state.runs[ticket.number]?.worker == nil {
                state.runs[ticket.number]?.killReason = .cancelled // not running (yet): refused when it comes
            } else {
                state.kill(ticket, reason: .cancelled)
            }
            return .none
        }
        if case let .some(continuation) = withdrawn { continuation?.resume(returning: .cancelled) }
    }

    /// Stops taking requests, withdraws the queued ones and kills the running ones; each slot then ends
    /// its worker.
    func shutdown() {
        let withdrawn = state.withLock { state -> [Ticket] in
            state.stopping = true
            let withdrawn = state.queue
            state.queue = []
            for ticket in state.running { state.kill(ticket, reason: .cancelled) }
            return withdrawn
        }
        for ticket in withdrawn { finish(ticket, .cancelled) }
    }

    /// Waits until every slot has finished its request (after `shutdown`).
    func waitUntilIdle() {
        state.wait(until: { $0.slotsAlive == 0 }) { _, _ in }
    }

    // MARK: - Slots

    private func slot() {
        var worker: WorkerProcess?
        while true {
            let next = state.wait(until: { !$0.queue.isEmpty || $0.stopping }) { state, _ in
                state.stopping ? nil : state.queue.removeFirst()
            }
            guard let ticket = next else {
                if let worker {
                    // Idle: the end of its requests ends it.
                    worker.closeRequests()
                    _ = worker.reap()
                    Self.removeScratch(of: worker)
                }
                state.withLock { $0.slotsAlive -= 1 }
                return
            }

            // A worker that dies before it takes the request (it ended after its last answer) is not
            // this request's fault: a fresh one gets it, once.
            var result = Result.unavailable("no worker")
            for _ in 0..<2 {
                if worker == nil {
                    do {
                        worker = try WorkerProcess.spawn(executable: executable, verbose: verbose)
                    } catch {
                        result = .unavailable(error.description)
                        break
                    }
                }
                guard let process = worker else { break }
                switch serve(ticket, on: process) {
                case let .workerKept(served):
                    result = served
                case let .workerEnded(served, taken):
                    // Reaped already: never used again.
                    worker = nil
                    result = served
                    if !taken { continue }
                }
                break
            }
            finish(ticket, result)
        }
    }

    /// How a request left its worker: still serving (the next request goes to it), or ended and reaped.
    private enum Served {
        case workerKept(Result)
        /// `taken`: the worker had accepted the request (its death is the request's; else it is retried once).
        case workerEnded(Result, taken: Bool)
    }

    /// Sends the request and reads replies until its final one; when the worker ends first, reaps it,
    /// cleans up after it and says why it ended. A request refused before it is sent leaves the worker as it was.
    private func serve(_ ticket: Ticket, on process: WorkerProcess) -> Served {
        let id = counter.add(1, ordering: .relaxed).newValue
        let refused = state.withLock { state -> Result? in
            if let refused = state.runs[ticket.number]?.killReason { return refused }
            let now = ProcessInfo.processInfo.systemUptime
            state.runs[ticket.number]?.started = now
            state.runs[ticket.number]?.lastProgress = now
            state.runs[ticket.number]?.worker = process.process
            state.running.append(ticket)
            return nil
        }
        if let refused { return .workerKept(refused) }
        guard let line = try? WorkerEnvelope(id: id, request: ticket.request).line() else {
            stopRunning(ticket)
            return .workerKept(.unavailable("the request cannot be encoded"))
        }
        var taken = false
        var answer: Result?
        if process.send(line) {
            while let (message, payload) = process.nextReply() {
                guard message.id == id else { break }
                if message.accepted {
                    taken = true
                    continue
                }
                if let fraction = message.progress {
                    state.withLock { $0.runs[ticket.number]?.lastProgress = ProcessInfo.processInfo.systemUptime }
                    ticket.progress?(fraction)
                    continue
                }
                let killed = state.withLock { $0.runs[ticket.number]?.killReason != nil }
                if !killed {
                    stopRunning(ticket)
                    return .workerKept(.reply(message, payload))
                }
                // Answered while being stopped: the answer stands (a cut that renamed its output is done, not
                // cancelled), but the worker is going.
                answer = .reply(message, payload)
                break
            }
        }
        // The worker is gone (or misbehaved, or is being stopped): no one may signal it once it is reaped.
        stopRunning(ticket)
        process.signal(SIGKILL)
        let ending = process.reap()
        Self.removeScratch(of: process)
        if let answer { return .workerEnded(answer, taken: true) }
        ticket.cleanup?()
        if let reason = state.withLock({ $0.runs[ticket.number]?.killReason }) { return .workerEnded(reason, taken: true) }
        // A worker that could not start (no thread): the request's file is not to blame, and a retry would meet the same.
        if !taken, case .exited(WorkerChannel.cannotStartStatus) = ending {
            return .workerEnded(.unavailable("the worker could not start (\(ending.description)); see the server's log"), taken: true)
        }
        return .workerEnded(.crashed(ending.description), taken: taken)
    }

    /// The ticket no longer has a running worker (before that worker is reaped).
    private func stopRunning(_ ticket: Ticket) {
        state.withLock { state in
            state.running.removeAll { $0 === ticket }
            state.runs[ticket.number]?.worker = nil
        }
    }

    /// The ticket's end: whoever waits for it hears `result`, and the pool forgets it.
    private func finish(_ ticket: Ticket, _ result: Result) {
        state.withLock { $0.runs.removeValue(forKey: ticket.number)?.continuation }?.resume(returning: result)
    }

    private static func removeScratch(of worker: WorkerProcess) {
        try? FileManager.default.removeItem(atPath: WorkerChannel.scratchFolder(pid: worker.pid))
    }

    // MARK: - Deadlines

    private func watch() {
        while true {
            usleep(100_000)
            let ended = state.withLock { state -> Bool in
                if state.stopping, state.slotsAlive == 0 { return true }
                let now = ProcessInfo.processInfo.systemUptime
                for ticket in state.running {
                    guard let run = state.runs[ticket.number] else { continue }
                    if let killDeadline = run.killDeadline {
                        if now >= killDeadline, let worker = run.worker {
                            worker.signal(SIGKILL)
                            state.runs[ticket.number]?.killDeadline = nil
                        }
                        continue
                    }
                    switch deadline {
                    case let .total(seconds) where now - run.started > seconds:
                        state.kill(ticket, reason: .timedOut(seconds: seconds))
                    case let .progress(seconds) where now - run.lastProgress > seconds:
                        state.kill(ticket, reason: .timedOut(seconds: seconds))
                    default:
                        break
                    }
                }
                return false
            }
            if ended { return }
        }
    }
}
