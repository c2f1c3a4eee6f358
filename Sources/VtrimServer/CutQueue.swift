import DiskNames
import Foundation
import Hummingbird
import LibraryFiles
import Locking
import Synchronization
import WorkerProtocol

/// Cuts posted from the page. The POST waits for the plan (made by an interactive worker, the plan
/// `vtrim cut --dry-run` prints) and answers with it; the cut then waits for a long-work worker, which
/// executes exactly that plan — or fails with `plan_stale` if the clip changed in between. Outputs follow
/// the command line's rules (temporary file renamed into place, never over an existing file, never the
/// input), named `{stem}.{start}-{end}.cut.{ext}` (a join: `{stem}.join-{ranges}.{ext}`), then `-2`, `-3`… so
/// repeated edits never collide. One range or several: the same request, plan and write (`WorkerRequest.plan`,
/// `.write`).
/// `cancel` withdraws a queued cut or stops a running one (its temporary file is removed).
/// Every cut is kept in the state database (`History`): a restarted server lists the cuts made before, and serves
/// their outputs; a cut the last run did not finish is `failed` with the code `interrupted`.
final class CutQueue: Sendable {
    enum Status: String, Sendable { case queued, running, done, failed, cancelled }

    struct Job: Sendable {
        let id: String
        let clip: String
        let output: String
        var status: Status
        var progress: Double
        /// The plan's report, then the run's (`vtrim cut --json`'s object), or an engine error.
        var report: JSON
        /// The shown plan (`POST /api/plans`) this cut runs as it was shown; nil when the cut was planned for itself.
        var planID: String? = nil
        /// Seconds since the epoch: queued, and ended (nil until then).
        var createdAt: Double = 0
        var endedAt: Double? = nil
        /// Another live server's cut (two servers over one state folder): its row number and server, read again from
        /// the database when listed; never cancelled from here.
        var foreign: (number: Int64, owner: ServerProcess?)? = nil
    }

    /// Where the cuts are kept: the state database, under the library's key.
    struct History: Sendable {
        let database: StateDatabase
        let library: String
    }

    /// A plan the page was shown (`POST /api/plans`: the dry run, nothing queued or written), kept so a cut posted
    /// with its id and the same inputs runs exactly that plan instead of planning again.
    struct ShownPlan: Sendable {
        let id: String
        let clip: String
        let version: FileVersion
        let ranges: [ServeRange]
        let shape: EditShape
        /// As asked (nil: the default, resolved into the plan).
        let mode: EditMode?
        /// The output the plan writes (a free name when planned; reserved only when a cut takes the plan).
        let output: String
        /// `planned` of the worker's reply (what a writing worker executes) and the dry run's report.
        let plan: String
        let report: JSON
    }

    enum SubmitError: Error {
        /// The engine refused to plan (its failure report, 422).
        case refused(JSON)
        /// The engine itself failed (crashed, timed out, unavailable).
        case engine(EngineAnswer)
    }

    private let outputFolder: String?
    private let interactive: WorkerPool
    private let pool: WorkerPool
    private let quarantine: Quarantine
    private let threads: ThreadShare
    private let history: History?
    private let jobs = Locked<[String: Job]>([:])
    private let order = Locked<[String]>([])
    private let tickets = Locked<[String: WorkerPool.Ticket]>([:])
    /// Each cut's run until it has ended, so a cancel can wait for it.
    private let runs = Locked<[String: Task<Void, Never>]>([:])
    private let reserved = Locked<Set<String>>([])
    private let counter = Atomic<Int>(0)
    private let shown = Locked<[String: ShownPlan]>([:])
    private let shownOrder = Locked<[String]>([])
    private let planCounter = Atomic<Int>(0)
    /// Shown plans kept for cuts to take: the newest ones (a page plans on every handle move, debounced).
    static let shownKept = 200

    init(outputFolder: String?, interactive: WorkerPool, pool: WorkerPool, quarantine: Quarantine, threads: ThreadShare, history: History? = nil) {
        self.outputFolder = outputFolder
        self.interactive = interactive
        self.pool = pool
        self.quarantine = quarantine
        self.threads = threads
        self.history = history
        restore()
    }

    /// The cuts kept from earlier runs (the newest `finishedKept`): one whose server has ended never will; another
    /// live server's is followed in the database and its output name kept from this server's cuts.
    private func restore() {
        guard let history else { return }
        let kept = history.database.cuts(library: history.library, limit: Self.finishedKept)
        var restored: [String: Job] = [:]
        for cut in kept {
            var job = Job(id: Self.id(cut.number), clip: cut.clip, output: cut.output, status: Status(rawValue: cut.status) ?? .failed,
                          progress: cut.status == Status.done.rawValue ? 1 : 0, report: cut.report, planID: cut.planID,
                          createdAt: cut.createdAt, endedAt: cut.endedAt)
            if job.status == .queued || job.status == .running {
                if ServerHeartbeat.hasEnded(cut.owner, in: history.database) {
                    Self.interrupt(&job, cut, history)
                } else {
                    job.foreign = (cut.number, cut.owner)
                    _ = reserve(exactly: cut.output)
                }
            }
            restored[job.id] = job
        }
        jobs.withLock { $0 = restored }
        order.withLock { $0 = kept.map { Self.id($0.number) } }
        if let last = kept.last { counter.store(Int(clamping: last.number), ordering: .relaxed) }
    }

    private static func id(_ number: Int64) -> String { String(format: "c%04lld", number) }

    private static func interrupt(_ job: inout Job, _ cut: StoredCut, _ history: History) {
        job.status = .failed
        job.endedAt = Date().timeIntervalSince1970
        job.report = .object([("path", .string(cut.source)), ("error", .object([
            ("code", .string("interrupted")), ("message", .string("the server stopped before this cut ended; nothing was written")),
        ]))])
        job.foreign = nil
        history.database.updateCut(number: cut.number, status: job.status.rawValue, report: job.report, endedAt: job.endedAt)
    }

    /// Another live server's cuts as its rows say now: ended there, or interrupted once that server has ended.
    private func refreshForeign() {
        guard let history else { return }
        let following = jobs.withLock { table in table.values.compactMap { job in job.foreign.map { (job.id, $0.number) } } }
        for (id, number) in following {
            guard let cut = history.database.cut(number: number) else { continue }
            var ended: Job?
            jobs.withLock { table in
                guard var job = table[id], job.foreign != nil else { return }
                job.status = Status(rawValue: cut.status) ?? .failed
                job.report = cut.report
                job.endedAt = cut.endedAt
                if job.status == .done { job.progress = 1 }
                if job.status != .queued && job.status != .running {
                    job.foreign = nil
                } else if ServerHeartbeat.hasEnded(cut.owner, in: history.database) {
                    Self.interrupt(&job, cut, history)
                }
                table[id] = job
                if job.foreign == nil { ended = job }
            }
            if let ended { release(ended.output) }
        }
    }

    /// Plans the edit of `ranges` (one range, or several joined, in time order) and queues it; the plan's report is
    /// the answer (or why there is no plan). The plan comes back as a value the server keeps as it is and hands to
    /// the worker that writes it. `mode` nil: the default for what is written (`EditDefaults`).
    /// `planID`: a plan shown by `preview`; when its clip (unchanged), ranges, shape and mode are these and its output
    /// name is still free, that plan is queued as it is — the cut the page showed — otherwise the edit is planned afresh.
    func submit(clip: Library.Clip, ranges: [ServeRange], shape: EditShape, mode: EditMode?, planID: String? = nil) async throws(SubmitError) -> Job {
        if let planID, let taken = shownPlan(planID), taken.clip == clip.id, taken.version == clip.version, taken.ranges == ranges,
           taken.shape == shape, taken.mode == mode, reserve(exactly: taken.output) {
            return enqueue(clip: clip, ranges: ranges, shape: shape, mode: mode, output: taken.output, plan: taken.plan, report: taken.report,
                           planID: taken.id)
        }
        let output = reserveName(for: clip, ranges: ranges, shape: shape)
        let made: (plan: String, report: JSON)
        do throws(SubmitError) {
            made = try await plan(clip: clip, ranges: ranges, shape: shape, mode: mode, output: output)
        } catch {
            release(output)
            throw error
        }
        return enqueue(clip: clip, ranges: ranges, shape: shape, mode: mode, output: output, plan: made.plan, report: made.report, planID: nil)
    }

    /// The plan of an edit as `submit` would make it (the same worker request, into the output name `submit` would
    /// take now), without queueing or writing anything; kept for a cut to take by its id (`ShownPlan`).
    func preview(clip: Library.Clip, ranges: [ServeRange], shape: EditShape, mode: EditMode?) async throws(SubmitError) -> ShownPlan {
        let output = reserveName(for: clip, ranges: ranges, shape: shape, reserving: false)
        let made = try await plan(clip: clip, ranges: ranges, shape: shape, mode: mode, output: output)
        let id = String(format: "p%04d", planCounter.add(1, ordering: .relaxed).newValue)
        let kept = ShownPlan(id: id, clip: clip.id, version: clip.version, ranges: ranges, shape: shape, mode: mode, output: output,
                             plan: made.plan, report: made.report)
        shown.withLock { $0[id] = kept }
        let dropped: [String] = shownOrder.withLock { order in
            order.append(id)
            let excess = max(0, order.count - Self.shownKept)
            let old = Array(order.prefix(excess))
            order.removeFirst(excess)
            return old
        }
        if !dropped.isEmpty { shown.withLock { table in for old in dropped { table[old] = nil } } }
        return kept
    }

    func shownPlan(_ id: String) -> ShownPlan? { shown.withLock { $0[id] } }

    /// The worker's plan of an edit into `output` (mode nil: the engine's default for that edit, `EditDefaults`): the plan a writing worker
    /// executes and the dry run's report — one function for `submit` and `preview`, so what is shown is what runs.
    private func plan(clip: Library.Clip, ranges: [ServeRange], shape: EditShape, mode: EditMode?,
                      output: String) async throws(SubmitError) -> (plan: String, report: JSON) {
        let planning = WorkerRequest.plan(path: clip.path, output: output, ranges: ranges, shape: shape, mode: mode, threads: threads)
        let result = await interactive.run(planning)
        switch EngineAnswer.from(result, clip: clip, quarantine: quarantine) {
        case let .result(dryRun, reply):
            guard let plan = reply.planned else {
                throw .engine(.failed(APIError.response(.internalServerError, code: "engine_unavailable",
                                                        message: "the engine's answer holds no plan")))
            }
            return (plan, dryRun)
        case let .refused(report):
            throw .refused(report)
        case let answer:
            throw .engine(answer)
        }
    }

    /// Queues a planned edit whose output name is reserved.
    private func enqueue(clip: Library.Clip, ranges: [ServeRange], shape: EditShape, mode: EditMode?, output: String, plan: String,
                         report: JSON, planID: String?) -> Job {
        let request = WorkerRequest.write(path: clip.path, plan: plan)
        let created = Date().timeIntervalSince1970
        // The database numbers the cut (two servers over one library never reuse an id); without it, this run does.
        let asked = JSON.object([
            ("ranges", .array(ranges.map { .object([("start", .number($0.start)), ("end", .number($0.end)), ("label", .optional($0.label))]) })),
            ("shape", .string(shape.rawValue)), ("mode", .optional(mode?.rawValue)),
        ])
        let stored = history.flatMap { history in
            history.database.insertCut(library: history.library, StoredCut(
                number: 0, clip: clip.id, source: clip.path, output: output, request: asked, plan: plan, planID: planID,
                status: Status.queued.rawValue, report: report, createdAt: created, endedAt: nil, owner: ServerProcess.current))
        }
        let number: Int
        if let stored {
            number = Int(clamping: stored)
            counter.store(number, ordering: .relaxed)
        } else {
            number = counter.add(1, ordering: .relaxed).newValue
        }
        let id = Self.id(Int64(number))
        let job = Job(id: id, clip: clip.id, output: output, status: .queued, progress: 0, report: report, planID: planID, createdAt: created)
        jobs.withLock { $0[id] = job }
        order.withLock { $0.append(id) }
        pruneFinished()
        let ticket = pool.makeTicket(request,
                                     progress: { [self] fraction in update(id) { if $0.status == .queued { $0.status = .running }; $0.progress = fraction } },
                                     cleanup: { TemporaryName(output: output).removeStale() })
        tickets.withLock { $0[id] = ticket }
        let task = Task { await run(id, ticket: ticket, clip: clip, output: output, stored: stored) }
        runs.withLock { $0[id] = task }
        Task {
            await task.value
            _ = runs.withLock { $0.removeValue(forKey: id) }
        }
        return job
    }

    private func run(_ id: String, ticket: WorkerPool.Ticket, clip: Library.Clip, output: String, stored: Int64?) async {
        defer {
            release(output)
            tickets.withLock { _ = $0.removeValue(forKey: id) }
            if let ended = job(id) {
                if let history, let stored { history.database.updateCut(number: stored, status: ended.status.rawValue, report: ended.report, endedAt: ended.endedAt) }
            }
        }
        let result = await pool.run(ticket)
        update(id) { job in
            job.endedAt = Date().timeIntervalSince1970
            if case .cancelled = result {
                job.status = .cancelled
                return
            }
            switch EngineAnswer.from(result, clip: clip, quarantine: quarantine) {
            case let .result(report, _):
                job.report = report
                job.progress = 1
                job.status = .done
            case let .refused(report):
                job.report = report
                job.status = report.member("error")?.member("code") == .string("interrupted") ? .cancelled : .failed
            case let .failed(response):
                job.status = .failed
                job.report = .object([("path", .string(clip.path)), ("error", Self.errorObject(response, result: result, clip: clip))])
            case .bytes:
                job.status = .failed
            }
        }
    }

    /// The `{code, message}` of an engine error, for the cut's status.
    private static func errorObject(_ response: Response, result: WorkerPool.Result, clip: Library.Clip) -> JSON {
        switch result {
        case let .crashed(how):
            return .object([("code", .string("engine_crashed")), ("message", .string("the engine crashed on \(clip.relativePath) (\(how))"))])
        case let .timedOut(seconds):
            return .object([("code", .string("engine_timeout")),
                            ("message", .string("the cut made no progress for \(Int(seconds)) s and was stopped"))])
        case let .unavailable(why):
            return .object([("code", .string("engine_unavailable")), ("message", .string(why))])
        default:
            return .object([("code", .string("failed")), ("message", .string("HTTP \(response.status.code)"))])
        }
    }

    /// Withdraws a queued cut or stops a running one and waits until its worker has stopped (at its next
    /// checkpoint, or killed two seconds after it was told); nil when there is no such cut or it had ended. The
    /// job it returns says `cancelled` only when nothing was written: a cut that had already renamed its file into
    /// place is `done`.
    func cancel(_ id: String) async -> Job? {
        guard let job = job(id), job.status == .queued || job.status == .running, job.foreign == nil else { return nil }
        if job.status == .queued { update(id) { $0.status = .cancelled } }
        tickets.withLock { $0[id] }?.cancel()
        await runs.withLock { $0[id] }?.value
        return self.job(id)
    }

    func job(_ id: String) -> Job? {
        if jobs.withLock({ $0[id]?.foreign != nil }) { refreshForeign() }
        return jobs.withLock { $0[id] }
    }

    /// Finished cuts kept for `GET /api/cuts`: the newest ones; older finished ones are forgotten (their files stay).
    static let finishedKept = 500

    private func pruneFinished() {
        let ids = order.withLock { $0 }
        let forgotten: Set<String> = jobs.withLock { table in
            let finished = ids.filter { table[$0].map { [.done, .failed, .cancelled].contains($0.status) } ?? true }
            let dropped = Set(finished.dropLast(Self.finishedKept))
            for id in dropped { table[id] = nil }
            return dropped
        }
        if !forgotten.isEmpty { order.withLock { $0.removeAll { forgotten.contains($0) } } }
    }

    func all() -> [Job] {
        refreshForeign()
        let ids = order.withLock { $0 }
        return jobs.withLock { table in ids.compactMap { table[$0] } }
    }

    private func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { table in
            guard var job = table[id] else { return }
            // A cancelled cut stays cancelled whatever its worker reports on the way out.
            let wasCancelled = job.status == .cancelled
            change(&job)
            if wasCancelled, job.status != .done { job.status = .cancelled }
            table[id] = job
        }
    }

    /// `{stem}.{start}-{end}.cut.{ext}` for a cut, `{stem}.join-{ranges}.{ext}` for a join (named for what it holds,
    /// not as one span), beside the input (or in --output-dir); then `-2`, `-3`… past names that exist or that a
    /// queued edit holds.
    /// `reserving` false: the name it would take now, left free (a shown plan's).
    private func reserveName(for clip: Library.Clip, ranges: [ServeRange], shape: EditShape, reserving: Bool = true) -> String {
        let folder = outputFolder ?? (clip.path as NSString).deletingLastPathComponent
        let name = (clip.path as NSString).lastPathComponent
        let ext = CutOutputName.outputExtension(for: name)
        let stem = OutputChoice.stemPath(name)
        func text(_ seconds: Double) -> String { JSON.format((seconds * 1000).rounded() / 1000) }
        let base = shape == .join ? "\(stem).join-\(ranges.count)"
            : "\(stem).\(text(ranges.first?.start ?? 0))-\(text(ranges.last?.end ?? 0)).cut"
        return reserved.withLock { taken in
            var attempt = 1
            while true {
                let candidate = (folder as NSString).appendingPathComponent(attempt == 1 ? "\(base).\(ext)" : "\(base)-\(attempt).\(ext)")
                if !taken.contains(candidate), !DiskFile.exists(candidate) {
                    if reserving { taken.insert(candidate) }
                    return candidate
                }
                attempt += 1
            }
        }
    }

    /// Reserves `output` itself (a shown plan's name); false when it exists or a queued edit holds it.
    private func reserve(exactly output: String) -> Bool {
        reserved.withLock { taken in
            guard !taken.contains(output), !DiskFile.exists(output) else { return false }
            taken.insert(output)
            return true
        }
    }

    private func release(_ output: String) {
        _ = reserved.withLock { $0.remove(output) }
    }
}
