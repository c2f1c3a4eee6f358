import CProcess
import Foundation
import Glibc
import MediaEngine
import Locking
import WorkerProtocol

/// `vtrim _worker`: the engine's side of `vtrim serve`. Reads one request at a time from descriptor 3 and
/// answers on descriptor 4 (never stdout, which engine code may write to; the server points it at
/// /dev/null). SIGTERM stops the work at its next checkpoint (a cut's temporary file is removed) and ends
/// the worker; SIGINT is the server's to handle. Exits when the server closes descriptor 3.
public enum EngineWorker {
    static let requestDescriptor = WorkerChannel.requestDescriptor
    static let replyDescriptor = WorkerChannel.replyDescriptor

    public static func run(verbose: Bool, parent: Int32? = nil) -> Int32 {
        // First thing: a worker dies with its server (SIGTERM: its work stops at the next checkpoint). The server may
        // already be gone: then this process's parent is no longer the pid it was given.
        let dying = vtrim_die_with_parent(SIGTERM) == 0
        if let parent, getppid() != parent { return 1 }
        closeInheritedChannels()
        Advice.audience = .page
        FFmpegLog.configure(verbose ? .info : .quiet)
        if !verbose { setenv("SVT_LOG", "1", 0) }
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        Interrupt.install(signals: [SIGTERM])
        signal(SIGINT, SIG_IGN)
        if !dying, !watchParent() {
            FileHandle.standardError.write(Data("vtrim: error: worker: no thread could be started to watch for the server's end\n".utf8))
            return WorkerChannel.cannotStartStatus
        }
        let scratch = WorkerChannel.scratchFolder(pid: getpid())
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let replies = ReplyChannel(descriptor: replyDescriptor)
        var reader = LineReader(descriptor: requestDescriptor)
        while !Interrupt.requested, let line = reader.next() {
            guard let envelope = try? JSONDecoder().decode(WorkerEnvelope.self, from: line) else {
                FileHandle.standardError.write(Data("vtrim: worker: a request it cannot read; ending\n".utf8))
                return 1
            }
            // Taken: from here on, the worker's death is this request's (the server retries one it never took).
            guard replies.send(WorkerReply.accepted(id: envelope.id)) else { return 1 }
            #if DEBUG
            TestHooks.apply(to: envelope.request)
            #endif
            guard handle(envelope, replies: replies, scratch: scratch) else { return 1 }
        }
        return Interrupt.requested ? Interrupt.exitStatus : 0
    }

    /// Sockets and pipes above the protocol's descriptors that the server had open without close-on-exec
    /// (a listening socket a library made so): a worker holding them would keep the server's port bound
    /// after it stops. Descriptors of other kinds (this process's own event and signal descriptors) stay.
    private static func closeInheritedChannels() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for name in names {
            guard let descriptor = Int32(name), descriptor > replyDescriptor else { continue }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFSOCK || kind == S_IFIFO { close(descriptor) }
        }
    }

    /// Where the kernel refuses PR_SET_PDEATHSIG: a worker whose server is gone (killed, crashed) notices within a
    /// second and stops as if told to: its work stops at the next checkpoint and its temporary files are removed.
    /// False when no thread could be made for the watch: the worker then does not start, rather than outlive its server.
    private static func watchParent() -> Bool {
        let parent = getppid()
        return DetachedThread.create {
            while getppid() == parent { sleep(1) }
            raise(SIGTERM)
        } == 0
    }

    /// Runs one request and sends its reply; false when the server can no longer be reached.
    private static func handle(_ envelope: WorkerEnvelope, replies: ReplyChannel, scratch: String) -> Bool {
        let id = envelope.id
        switch envelope.request {
        case let .probe(path):
            let (outcome, mime) = WorkerTasks.probe(path: path)
            return replies.send(outcome.failed ? WorkerReply.failure(id: id, outcome.json)
                                               : WorkerReply.result(id: id, outcome.json, mime: mime))
        case let .tile(path, request):
            let file = (scratch as NSString).appendingPathComponent("tile-\(id).png")
            defer { unlink(file) }
            if let failure = WorkerTasks.renderTile(path: path, request: request, output: file) {
                return replies.send(WorkerReply.failure(id: id, failure.json))
            }
            guard let bytes = FileManager.default.contents(atPath: file) else {
                return replies.send(WorkerReply.failure(id: id, Outcome.failure(
                    MediaError(.writeFailed, path: path, operation: "tile", reason: "the rendered tile cannot be read back")).json))
            }
            return replies.send(WorkerReply.bytes(id: id, count: bytes.count), payload: bytes)
        case let .frames(path):
            let read = WorkerTasks.framesAndCleanStarts(path: path)
            guard let frames = read.frames else { return replies.send(WorkerReply.failure(id: id, read.failure?.json ?? .null)) }
            return replies.send(WorkerReply.result(id: id, .object([("times", .array(frames.times.map(JSON.number))),
                                                                    ("keyframes", .array(frames.cleanStarts.map(JSON.number)))])))
        case let .plan(path, output, ranges, shape, mode, threads):
            let request = WorkerTasks.editRequest(output: output, ranges: ranges, shape: shape, mode: mode.map(CutMode.init), threads: ThreadBudget(threads))
            switch EditJob.plan(path: path, request: request) {
            case let .finished(outcome): return replies.send(WorkerReply.failure(id: id, outcome.json))
            case let .planned(planned): return sendPlan(planned, id: id, replies: replies)
            }
        case let .write(path, plan):
            guard let planned = try? JSONDecoder().decode(PlannedEdit.self, from: Data(plan.utf8)) else {
                return replies.send(WorkerReply.failure(id: id, Outcome.failure(MediaError(.decodeFailed, path: path, operation: "plan",
                                                                                              reason: "the plan cannot be read back")).json))
            }
            return sendRun(id: id, path: planned.path, replies: replies) { progress in EditJob.execute(planned, shouldStop: { Interrupt.requested }, progress: progress) }
        case let .preview(path, output, threads):
            let progress = ProgressSender(id: id, replies: replies)
            if let error = WorkerTasks.preview(path: path, to: output, threads: ThreadBudget(threads).encoder, shouldStop: { Interrupt.requested },
                                                progress: { progress.send($0) }) {
                unlink(output)
                return replies.send(WorkerReply.failure(id: id, Outcome.failure(error).json))
            }
            return replies.send(WorkerReply.result(id: id, .object([("output", .string(output))])))
        case let .parseList(list):
            return replies.send(listReply(id: id, list, ListRequests.parse(list)))
        case let .renderList(list):
            return replies.send(listReply(id: id, list, ListRequests.render(list)))
        case let .propose(path, ask, threads):
            return sendRun(id: id, path: path, replies: replies) { progress in
                WorkerTasks.propose(path: path, ask: ask, threads: ThreadBudget(threads), progress: progress)
            }
        }
    }

    private static func listReply(id: Int, _ list: ListRequest, _ answer: Result<JSON, CutListError>) -> WorkerReply {
        switch answer {
        case let .success(value): return WorkerReply.result(id: id, value)
        case let .failure(error):
            return WorkerReply.failure(id: id, .object([("path", .string(list.clip.name)), ("warnings", .array([])),
                                                        ("error", .object([("code", .string("bad_list")), ("message", .string(error.message))]))]))
        }
    }

    /// A plan's reply: the dry run's report, and the plan itself as its JSON text for the worker that writes it.
    private static func sendPlan(_ planned: PlannedEdit, id: Int, replies: ReplyChannel) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes  // Base64 bytes are a plan's largest strings.
        guard let plan = try? String(decoding: encoder.encode(planned), as: UTF8.self) else {
            return replies.send(WorkerReply.failure(id: id, Outcome.failure(
                MediaError(.decodeFailed, path: planned.path, operation: "plan", reason: "the plan cannot be encoded")).json))
        }
        return replies.send(WorkerReply.result(id: id, planned.dryRunOutcome.json, planned: plan))
    }

    /// Writes a planned edit, with progress lines, and replies with its report.
    private static func sendRun(id: Int, path: String, replies: ReplyChannel, _ run: (@escaping @Sendable (Double) -> Void) -> Outcome) -> Bool {
        let progress = ProgressSender(id: id, replies: replies)
        let outcome = run { progress.send($0) }
        #if DEBUG
        TestHooks.pauseAfterWriting(path: path)
        #endif
        return replies.send(outcome.failed ? WorkerReply.failure(id: id, outcome.json) : WorkerReply.result(id: id, outcome.json))
    }
}

/// Writes reply lines (and a tile's bytes) to the server, whole, from whichever thread reports.
private final class ReplyChannel: Sendable {
    /// The descriptor, written only with this lock held so replies never interleave.
    private let descriptor: Locked<Int32>

    init(descriptor: Int32) { self.descriptor = Locked(descriptor) }

    func send(_ reply: WorkerReply, payload: Data? = nil) -> Bool {
        var data = reply.line()
        if let payload { data.append(payload) }
        return descriptor.withLock { PipeWrite.all(data, to: $0) }
    }
}

/// Progress lines at most five times a second (a cut reports every packet).
private final class ProgressSender: Sendable {
    private let id: Int
    private let replies: ReplyChannel
    /// When the last line went (system uptime, seconds).
    private let last = Locked(0.0)

    init(id: Int, replies: ReplyChannel) {
        self.id = id
        self.replies = replies
    }

    func send(_ fraction: Double) {
        let now = ProcessInfo.processInfo.systemUptime
        let due = last.withLock { last in
            guard now - last >= 0.2 else { return false }
            last = now
            return true
        }
        if due { _ = replies.send(WorkerReply.progress(id: id, fraction)) }
    }
}

/// Newline-separated requests from a descriptor (blocking reads).
private struct LineReader {
    let descriptor: Int32
    private var buffer = Data()
    private var ended = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return Data(line)
            }
            guard !ended else { return nil }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                ended = true
                continue
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

#if DEBUG
/// Test-only switches (environment; debug builds only, never in a release binary), so the server's handling of a crashing or hanging engine can be
/// tested with real files: a worker asked about a path containing `VTRIM_TEST_WORKER_TRAP` crashes
/// (SIGABRT); one containing `VTRIM_TEST_WORKER_HANG` never answers. `op:marker` limits a switch to one
/// kind of request (`probe`, `tile`, `frames`, `plan`, `cut`, `preview`). A cut of a path containing
/// `VTRIM_TEST_WORKER_PAUSE_AFTER_WRITE` waits, once its output is in place, until it is told to stop (at most
/// 30 s) before it answers: the window in which a cancel must not call a written cut cancelled. One whose path
/// contains `VTRIM_TEST_WORKER_DELAY` starts 2 s late: the window before a preview's file exists.
private enum TestHooks {
    static func pauseAfterWriting(path: String) {
        guard let marker = ProcessInfo.processInfo.environment["VTRIM_TEST_WORKER_PAUSE_AFTER_WRITE"], !marker.isEmpty,
              path.contains(marker) else { return }
        for _ in 0..<300 where !Interrupt.requested { usleep(100_000) }
    }

    static func apply(to request: WorkerRequest) {
        let environment = ProcessInfo.processInfo.environment
        if matches(environment["VTRIM_TEST_WORKER_TRAP"], request) { abort() }
        if matches(environment["VTRIM_TEST_WORKER_DELAY"], request) { sleep(2) }
        if matches(environment["VTRIM_TEST_WORKER_HANG"], request) {
            while true { sleep(60) }
        }
    }

    private static func matches(_ setting: String?, _ request: WorkerRequest) -> Bool {
        guard let setting, !setting.isEmpty else { return false }
        let parts = setting.split(separator: ":", maxSplits: 1).map(String.init)
        let (op, marker) = parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
        if let op, op != request.kind { return false }
        return request.path.contains(marker)
    }
}
#endif
