import Foundation
import Glibc
import Locking
import WorkerProtocol

/// One `vtrim _worker` child process of the same binary: requests go down a pipe on its descriptor 3,
/// replies come back up a pipe on its descriptor 4. Spawned with posix_spawn because Foundation's
/// `Process` hands a child only descriptors 0–2; its stdin and stdout are /dev/null (engine code may print
/// there), its stderr is the server's. The pipes belong to the pool's slot thread that spawned it; what other
/// threads may do to the worker (signal it) goes through `process`.
final class WorkerProcess {
    let process: WorkerPID
    var pid: pid_t { process.pid }
    private let requestWrite: Int32
    private let replies: ReplyReader
    private var requestsOpen = true

    private init(pid: pid_t, requestWrite: Int32, replyRead: Int32) {
        process = WorkerPID(pid)
        self.requestWrite = requestWrite
        replies = ReplyReader(descriptor: replyRead)
    }

    deinit {
        closeRequests()
        close(replies.descriptor)
    }

    /// No more requests: an idle worker reads the end and exits.
    func closeRequests() {
        guard requestsOpen else { return }
        requestsOpen = false
        close(requestWrite)
    }

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// This binary, as the kernel knows it (argv[0] may be relative or a symlink).
    static let ownExecutable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Pipes are made close-on-exec in two steps (Glibc's module has no pipe2): spawns are serialized so
    /// that no child started in between inherits another's pipe (which would hide that one's death).
    private static let spawnLock = NSLock()

    static func spawn(executable: String, verbose: Bool) throws(SpawnError) -> WorkerProcess {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        guard let requests = pipePair(), let replyPipe = pipePair() else {
            throw SpawnError(description: "cannot make a pipe (\(String(cString: strerror(errno))))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, requests.read, WorkerChannel.requestDescriptor)
        posix_spawn_file_actions_adddup2(&actions, replyPipe.write, WorkerChannel.replyDescriptor)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // Spawned from a pool's slot thread, which outlives its worker: the worker's parent-death signal (which
        // follows the spawning thread, not the process) fires only when the server is gone.
        let arguments = [executable, "_worker", "--parent", String(getpid())] + (verbose ? ["--verbose"] : [])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        close(requests.read)
        close(replyPipe.write)
        guard status == 0 else {
            close(requests.write)
            close(replyPipe.read)
            throw SpawnError(description: "cannot start \(executable) _worker (\(String(cString: strerror(status))))")
        }
        return WorkerProcess(pid: pid, requestWrite: requests.write, replyRead: replyPipe.read)
    }

    /// A pipe whose ends are close-on-exec (no other child inherits them) and above the descriptors the
    /// child's are moved to.
    private static func pipePair() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for index in 0..<2 {
            // Above the child's 3 and 4, and close-on-exec.
            let moved = fcntl(ends[index], F_DUPFD_CLOEXEC, 10)
            close(ends[index])
            guard moved >= 0 else { return nil }
            ends[index] = moved
        }
        return (ends[0], ends[1])
    }

    /// Writes one request line; false when the worker is gone.
    func send(_ data: Data) -> Bool { PipeWrite.all(data, to: requestWrite) }

    /// The next reply (blocking), or nil when the worker closed its end (it exited or crashed) or sent
    /// something that is not a reply.
    func nextReply() -> (reply: WorkerReply, payload: Data?)? {
        guard let line = replies.line(), let reply = WorkerReply(line: line) else { return nil }
        guard let count = reply.bytes else { return (reply, nil) }
        guard count >= 0, count <= ReplyReader.maximumPayloadBytes, let payload = replies.bytes(count) else { return nil }
        return (reply, payload)
    }

    func signal(_ number: Int32) { process.signal(number) }

    /// Waits for the process to end; a description of how it ended.
    func reap() -> WorkerPID.Ending { process.reap() }
}

/// A worker's process id as every thread may use it: signals (the watchdog, a cancel) and the one reap (the
/// slot). Once reaped, the pid may belong to another process, so a signal after that is dropped: the reap and
/// every signal take the same lock, and the reap waits for the end (`waitid` with `WNOWAIT`, the pid still a
/// zombie of ours) before it takes it.
final class WorkerPID: Sendable {
    let pid: pid_t
    private let ended = Locked<Ending?>(nil)

    init(_ pid: pid_t) { self.pid = pid }

    /// Signals the process; false (and nothing sent) once it has been reaped.
    @discardableResult
    func signal(_ number: Int32) -> Bool {
        ended.withLock { ended in
            guard ended == nil else { return false }
            kill(pid, number)
            return true
        }
    }

    /// Waits for the process to end and reaps it (once; later calls return the same ending).
    func reap() -> Ending {
        if let known = ended.withLock({ $0 }) { return known }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        return ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let signalled = status & 0x7f
            let ending: Ending = signalled != 0 && signalled != 0x7f ? .signalled(signalled) : .exited((status >> 8) & 0xff)
            ended = ending
            return ending
        }
    }

    enum Ending: Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case let .exited(code): return "exited with status \(code)"
            case let .signalled(number): return "killed by signal \(number) (\(String(cString: strsignal(number))))"
            }
        }
    }
}

/// Buffered blocking reads of reply lines and payloads from a pipe.
private final class ReplyReader {
    static let maximumLineBytes = 256 << 20
    static let maximumPayloadBytes: Int64 = 1 << 30
    let descriptor: Int32
    private var buffer = Data()
    private var ended = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    func line() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[buffer.startIndex..<newline])
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            guard buffer.count <= Self.maximumLineBytes, fill() else { return nil }
        }
    }

    func bytes(_ count: Int) -> Data? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        let payload = Data(buffer.prefix(count))
        buffer.removeFirst(count)
        return payload
    }

    private func fill() -> Bool {
        guard !ended else { return false }
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                ended = true
                return false
            }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }
}
