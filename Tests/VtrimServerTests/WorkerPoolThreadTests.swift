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

/// A library whose scanning thread cannot be made says so, and stopping it does not wait for a scan that never began.
@Suite(.timeLimit(.minutes(1)))
struct LibraryThreadTests {
    @Test func aScanWithoutAThreadIsReportedAndStopsAtOnce() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Library(folders: [folder.path], state: nil)
        let problem = library.start(create: { _ in EAGAIN })
        #expect(problem?.contains("library's scan") == true, "\(problem ?? "nil")")
        let began = Date()
        library.stop()
        #expect(Date().timeIntervalSince(began) < 2)
    }
}
