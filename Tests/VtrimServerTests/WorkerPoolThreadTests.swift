import Foundation
import Glibc
import Locking
import Testing
import TestSupport
import WorkerProtocol
@testable import VtrimServer

/// A pool whose threads cannot all be made answers every request rather than leaving it queued for ever.
@Suite(.timeLimit(.minutes(1)))
struct WorkerPoolThreadTests {
    /// `pthread_create`'s failure on the calls `failing` names (0-based), real threads on the others.
    static func creator(failing: Set<Int>) -> (@escaping @Sendable () -> Void) -> Int32 {
        let calls = Locked(0)
        return { body in
            let call = calls.withLock { count in defer { count += 1 }; return count }
            return failing.contains(call) ? EAGAIN : DetachedThread.create(body)
        }
    }

    static func pool(size: Int, failing: Set<Int>) -> WorkerPool {
        WorkerPool(name: "test", size: size, deadline: .total(seconds: 30), executable: TestPaths.vtrimBinary,
                   verbose: false, create: creator(failing: failing))
    }

    @Test func noSlotThreadMeansEveryRequestIsUnavailable() async {
        let pool = Self.pool(size: 2, failing: [0, 1])
        let result = await pool.run(.probe(path: TestPaths.fixture("h264-aac.mp4")))
        guard case let .unavailable(reason) = result else { Issue.record("\(result)"); return }
        #expect(reason.contains("worker slots"), "\(reason)")
        pool.shutdown()
        pool.waitUntilIdle()
    }

    @Test func noWatchdogMeansEveryRequestIsUnavailable() async {
        let pool = Self.pool(size: 1, failing: [1])
        let result = await pool.run(.probe(path: TestPaths.fixture("h264-aac.mp4")))
        guard case let .unavailable(reason) = result else { Issue.record("\(result)"); return }
        #expect(reason.contains("deadline watchdog"), "\(reason)")
        pool.shutdown()
        pool.waitUntilIdle()
    }

    /// A worker that exits "cannot start" before it takes its request (no thread to watch for the server's end) is
    /// answered unavailable, not as a crash: a crash would quarantine the clip until the file changes.
    @Test func aWorkerThatCannotStartIsUnavailableNotACrash() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let worker = folder.file("worker")
        // Written through a close-on-exec descriptor: a process another test spawns meanwhile must not keep it open
        // for writing, which makes running the script fail with ETXTBSY.
        let descriptor = open(worker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let script = Array("#!/bin/sh\nexit \(WorkerChannel.cannotStartStatus)\n".utf8)
        #expect(write(descriptor, script, script.count) == script.count)
        close(descriptor)
        // As `vtrim serve` does: the request written to a worker already gone is an error, not this process's end.
        signal(SIGPIPE, SIG_IGN)
        let pool = WorkerPool(name: "test", size: 1, deadline: .total(seconds: 30), executable: worker, verbose: false)
        var result = await pool.run(.probe(path: TestPaths.fixture("h264-aac.mp4")))
        // Still, a spawn in the instant between the open and the close holds it until that child execs: try again.
        for _ in 0..<5 {
            guard case let .unavailable(reason) = result, reason.contains("Text file busy") else { break }
            result = await pool.run(.probe(path: TestPaths.fixture("h264-aac.mp4")))
        }
        guard case let .unavailable(reason) = result else { Issue.record("\(result)"); return }
        #expect(reason.contains("could not start"), "\(reason)")
        pool.shutdown()
        pool.waitUntilIdle()
    }

    /// One slot of two is enough: the request runs on it (a real worker probing the fixture).
    @Test func oneSlotOfTwoStillRunsRequests() async {
        let pool = Self.pool(size: 2, failing: [0])
        let result = await pool.run(.probe(path: TestPaths.fixture("h264-aac.mp4")))
        guard case let .reply(reply, _) = result else { Issue.record("\(result)"); return }
        #expect(reply.failure == nil && reply.result != nil, "\(reply)")
        pool.shutdown()
        pool.waitUntilIdle()
    }
}

/// A library whose scanning thread cannot be made lists its folders once and says why it does not follow them (the
/// page would otherwise say "reading the folders…" for ever); stopping it does not wait for a scan that never began.
@Suite(.timeLimit(.minutes(1)))
struct LibraryThreadTests {
    @Test func aScanWithoutAThreadListsTheFoldersOnceAndSaysWhy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: folder.file("clip.mp4"))
        let library = Library(folders: [folder.path], state: nil)
        let problem = library.start(create: { _ in EAGAIN })
        #expect(problem?.contains("library's scan") == true, "\(problem ?? "nil")")
        let listed = library.current
        #expect(listed.walked)
        #expect(listed.clips.map(\.relativePath) == ["clip.mp4"])
        #expect(listed.problems.map(\.reason) == [problem ?? ""])
        let began = Date()
        library.stop()
        #expect(Date().timeIntervalSince(began) < 2)
    }
}
