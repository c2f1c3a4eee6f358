import Foundation
import Glibc
import Testing
@testable import VtrimServer

/// A worker's pid once reaped may be another process's: the pool's watchdog and cancels signal through
/// `WorkerPID`, which drops every signal after the reap.
struct WorkerPIDTests {
    @Test func noSignalReachesAReapedPid() async throws {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sleep", "30"]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        let worker = WorkerPID(pid)
        #expect(worker.signal(SIGKILL))
        let ending = worker.reap()
        #expect(ending.description.contains("signal 9"), "\(ending)")
        // Reaped: the pid is free for any new process, so nothing may be sent to it.
        #expect(!worker.signal(SIGKILL))
        #expect(worker.reap().description == ending.description)
    }
}
