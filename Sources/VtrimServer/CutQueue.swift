import Foundation
import Synchronization
import VtrimKit

/// Cuts posted from the page: planned at once (the plan `vtrim cut --dry-run` prints), then run a few at a
/// time on their own threads by the same code as `vtrim cut` (not a child process), with progress. Outputs
/// follow the command line's rules (temporary file renamed into place, never over an existing file, never
/// the input), named `{stem}.{start}-{end}.cut.{ext}`, then `-2`, `-3`… so repeated cuts never collide.
final class CutQueue: Sendable {
    enum Status: String, Sendable { case queued, running, done, failed, cancelled }

    struct Job: Sendable {
        let id: String
        let clip: String
        let path: String
        let output: String
        var status: Status
        var progress: Double
        /// The dry run's report, then the real run's (`vtrim cut --json`'s object).
        var report: JSON
    }

    private let library: Library
    private let outputFolder: String?
    private let pool: EnginePool
    private let threads: ThreadBudget
    private let jobs = Mutex<[String: Job]>([:])
    private let order = Mutex<[String]>([])
    private let reserved = Mutex<Set<String>>([])
    private let cancelled = Atomic<Bool>(false)
    private let active = Atomic<Int>(0)
    private let counter = Atomic<Int>(0)

    init(library: Library, outputFolder: String?, running: Int, cores: Int) {
        self.library = library
        self.outputFolder = outputFolder
        pool = EnginePool(name: "vtrim-cut", threads: running)
        threads = .share(cores: cores, jobs: running)
    }

    enum SubmitError: Error {
        case plan(JSON)
    }

    /// Plans the cut (answered at once) and queues it; a plan that fails is the answer instead.
    func submit(clip: Library.Clip, start: Double, end: Double, mode: CutMode, through engine: EnginePool) async throws(SubmitError) -> Job {
        let output = reserveName(for: clip, start: start, end: end)
        let request = cutRequest(output: output, start: start, end: end, mode: mode, dryRun: true)
        let plan = await engine.run { CutJob.run(path: clip.path, request: request, shouldStop: { false }) }
        guard !plan.failed else {
            release(output)
            throw .plan(plan.json)
        }
        let id = String(format: "c%04d", counter.add(1, ordering: .relaxed).newValue)
        let job = Job(id: id, clip: clip.id, path: clip.path, output: output, status: .queued, progress: 0, report: plan.json)
        jobs.withLock { $0[id] = job }
        order.withLock { $0.append(id) }
        active.add(1, ordering: .relaxed)
        let run = cutRequest(output: output, start: start, end: end, mode: mode, dryRun: false)
        pool.start { [self] in
            defer {
                release(output)
                active.subtract(1, ordering: .relaxed)
            }
            guard !cancelled.load(ordering: .acquiring) else {
                update(id) { $0.status = .cancelled }
                return
            }
            update(id) { $0.status = .running }
            let outcome = CutJob.run(path: clip.path, request: run, shouldStop: { [self] in cancelled.load(ordering: .relaxed) },
                                     progress: { [self] fraction in update(id) { $0.progress = fraction } })
            update(id) { job in
                job.report = outcome.json
                job.progress = outcome.failed ? job.progress : 1
                if case let .failed(error) = outcome.status {
                    job.status = error.code == .interrupted ? .cancelled : .failed
                } else {
                    job.status = .done
                }
            }
        }
        return job
    }

    func job(_ id: String) -> Job? { jobs.withLock { $0[id] } }

    func all() -> [Job] {
        let ids = order.withLock { $0 }
        return jobs.withLock { table in ids.compactMap { table[$0] } }
    }

    /// At shutdown: running cuts stop at their next packet (their temporary files are removed), queued
    /// ones do not start.
    func cancelAll() { cancelled.store(true, ordering: .releasing) }

    func waitUntilIdle() {
        while active.load(ordering: .acquiring) > 0 { usleep(20_000) }
        pool.stop()
    }

    private func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { table in
            if var job = table[id] {
                change(&job)
                table[id] = job
            }
        }
    }

    private func cutRequest(output: String, start: Double, end: Double, mode: CutMode, dryRun: Bool) -> CutRequest {
        CutRequest(segments: [CutSegment(start: .seconds(start), end: .seconds(end), lengthSeconds: nil)], mode: mode,
                   crf: mode == .smart ? 16 : 20, preset: "veryfast", minDurationSeconds: nil, maxDurationSeconds: nil,
                   clamp: false, output: OutputNamer(choice: .file(output), template: nil), overwrite: false, dryRun: dryRun,
                   strict: false, threads: threads)
    }

    /// `{stem}.{start}-{end}.cut.{ext}` beside the input (or in --output-dir), then `-2`, `-3`… past names
    /// that exist or that a queued cut holds.
    private func reserveName(for clip: Library.Clip, start: Double, end: Double) -> String {
        let folder = outputFolder ?? (clip.path as NSString).deletingLastPathComponent
        let name = (clip.path as NSString).lastPathComponent
        let ext = CutRequest.outputExtension(for: name)
        let stem = OutputChoice.stemPath(name)
        func text(_ seconds: Double) -> String { JSON.format((seconds * 1000).rounded() / 1000) }
        let base = "\(stem).\(text(start))-\(text(end)).cut"
        return reserved.withLock { taken in
            var attempt = 1
            while true {
                let candidate = (folder as NSString).appendingPathComponent(attempt == 1 ? "\(base).\(ext)" : "\(base)-\(attempt).\(ext)")
                if !taken.contains(candidate), !FileManager.default.fileExists(atPath: candidate) {
                    taken.insert(candidate)
                    return candidate
                }
                attempt += 1
            }
        }
    }

    private func release(_ output: String) {
        _ = reserved.withLock { $0.remove(output) }
    }
}
