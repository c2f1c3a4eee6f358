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
/// Unchecked because its slots wait on a condition variable, which `Locked` lacks: every stored `var` (and every
/// `var` of its tickets) is read and written only with `condition` locked.
final class WorkerPool: @unchecked Sendable {
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

    /// A request in the pool; `cancel()` withdraws it (queued) or kills its worker (running). Its `var`s are the
    /// pool's state: read and written only with the pool's `condition` locked.
    final class Ticket: @unchecked Sendable {
        fileprivate let request: WorkerRequest
        fileprivate let progress: (@Sendable (Double) -> Void)?
        /// Removes what a killed worker may have left of this request (a cut's temporary file).
        fileprivate let cleanup: (@Sendable () -> Void)?
        fileprivate var continuation: CheckedContinuation<Result, Never>?
        fileprivate var started: Double = 0
        fileprivate var lastProgress: Double = 0
        /// The process running the request, until it is reaped.
        fileprivate var worker: WorkerPID?
        fileprivate var killReason: Result?
        fileprivate var killDeadline: Double?
        fileprivate weak var pool: WorkerPool?

        fileprivate init(request: WorkerRequest, progress: (@Sendable (Double) -> Void)?, cleanup: (@Sendable () -> Void)?) {
            self.request = request
            self.progress = progress
            self.cleanup = cleanup
        }

        func cancel() { pool?.cancel(self) }
    }

    let name: String
    private let deadline: Deadline
    private let executable: String
    private let verbose: Bool
    private let condition = NSCondition()
    private var queue: [Ticket] = []
    private var running: [Ticket] = []
    private var stopping = false
    private var slotsAlive = 0
    private let counter = Atomic<Int>(0)

    init(name: String, size: Int, deadline: Deadline, executable: String, verbose: Bool) {
        self.name = name
        self.deadline = deadline
        self.executable = executable
        self.verbose = verbose
        for number in 0..<max(1, size) {
            let thread = Thread { [self] in slot() }
            thread.name = "\(name)-\(number)"
            slotsAlive += 1
            thread.start()
        }
        let watchdog = Thread { [self] in watch() }
        watchdog.name = "\(name)-watchdog"
        watchdog.start()
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
        let ticket = Ticket(request: request, progress: progress, cleanup: cleanup)
        ticket.pool = self
        return ticket
    }

    func run(_ ticket: Ticket) async -> Result {
        await withCheckedContinuation { continuation in
            condition.lock()
            if stopping || ticket.killReason != nil {
                condition.unlock()
                continuation.resume(returning: .cancelled)
                return
            }
            ticket.continuation = continuation
            queue.insert(ticket, at: Self.place(of: ticket.request, in: queue.map(\.request)))
            condition.broadcast()
            condition.unlock()
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
        condition.lock()
        defer { condition.unlock() }
        return (queue.count, running.count)
    }

    private func cancel(_ ticket: Ticket) {
        condition.lock()
        if let index = queue.firstIndex(where: { $0 === ticket }) {
            queue.remove(at: index)
            let continuation = ticket.continuation
            ticket.continuation = nil
            condition.unlock()
            continuation?.resume(returning: .cancelled)
            return
        }
        if ticket.worker == nil {
            ticket.killReason = .cancelled // not running (yet): refused when it comes
        } else {
            kill(ticket, reason: .cancelled)
        }
        condition.unlock()
    }

    /// SIGTERM now, SIGKILL at the kill deadline (the watchdog). Called with the lock held.
    private func kill(_ ticket: Ticket, reason: Result) {
        guard ticket.killReason == nil, let worker = ticket.worker else { return }
        ticket.killReason = reason
        ticket.killDeadline = ProcessInfo.processInfo.systemUptime + 2
        worker.signal(SIGTERM)
    }

    /// Stops taking requests, withdraws the queued ones and kills the running ones; each slot then ends
    /// its worker.
    func shutdown() {
        condition.lock()
        stopping = true
        let withdrawn = queue
        queue = []
        for ticket in running { kill(ticket, reason: .cancelled) }
        condition.broadcast()
        condition.unlock()
        for ticket in withdrawn { finish(ticket, .cancelled) }
    }

    /// Waits until every slot has finished its request (after `shutdown`).
    func waitUntilIdle() {
        condition.lock()
        while slotsAlive > 0 { _ = condition.wait(until: Date().addingTimeInterval(0.05)) }
        condition.unlock()
    }

    // MARK: - Slots

    private func slot() {
        var worker: WorkerProcess?
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                if let worker {
                    // Idle: the end of its requests ends it.
                    worker.closeRequests()
                    _ = worker.reap()
                    Self.removeScratch(of: worker)
                }
                condition.lock()
                slotsAlive -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let ticket = queue.removeFirst()
            condition.unlock()

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
        condition.lock()
        let refused = ticket.killReason
        if refused == nil {
            let now = ProcessInfo.processInfo.systemUptime
            ticket.started = now
            ticket.lastProgress = now
            ticket.worker = process.process
            running.append(ticket)
        }
        condition.unlock()
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
                    condition.lock()
                    ticket.lastProgress = ProcessInfo.processInfo.systemUptime
                    condition.unlock()
                    ticket.progress?(fraction)
                    continue
                }
                condition.lock()
                let killed = ticket.killReason != nil
                condition.unlock()
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
        condition.lock()
        let reason = ticket.killReason
        condition.unlock()
        if let reason { return .workerEnded(reason, taken: true) }
        return .workerEnded(.crashed(ending.description), taken: taken)
    }

    /// The ticket no longer has a running worker (before that worker is reaped).
    private func stopRunning(_ ticket: Ticket) {
        condition.lock()
        running.removeAll { $0 === ticket }
        ticket.worker = nil
        condition.unlock()
    }

    private func finish(_ ticket: Ticket, _ result: Result) {
        condition.lock()
        let continuation = ticket.continuation
        ticket.continuation = nil
        condition.unlock()
        continuation?.resume(returning: result)
    }

    private static func removeScratch(of worker: WorkerProcess) {
        try? FileManager.default.removeItem(atPath: WorkerChannel.scratchFolder(pid: worker.pid))
    }

    // MARK: - Deadlines

    private func watch() {
        while true {
            usleep(100_000)
            condition.lock()
            if stopping, slotsAlive == 0 {
                condition.unlock()
                return
            }
            let now = ProcessInfo.processInfo.systemUptime
            for ticket in running {
                if let killDeadline = ticket.killDeadline {
                    if now >= killDeadline, let worker = ticket.worker {
                        worker.signal(SIGKILL)
                        ticket.killDeadline = nil
                    }
                    continue
                }
                switch deadline {
                case let .total(seconds) where now - ticket.started > seconds:
                    kill(ticket, reason: .timedOut(seconds: seconds))
                case let .progress(seconds) where now - ticket.lastProgress > seconds:
                    kill(ticket, reason: .timedOut(seconds: seconds))
                default:
                    break
                }
            }
            condition.unlock()
        }
    }
}
