import Foundation

/// A bounded set of dedicated threads for engine work (probing, filmstrips, cuts, previews): FFmpeg calls
/// block for up to minutes, so they never run on the server's event loops or Swift's cooperative pool,
/// where two filmstrips would stall the Range requests the player needs. Work waits in a FIFO queue.
final class EnginePool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [() -> Void] = []
    private var threads: [Thread] = []
    private var stopping = false

    init(name: String, threads count: Int) {
        for number in 0..<max(1, count) {
            let thread = Thread { self.work() }
            thread.name = "\(name)-\(number)"
            thread.stackSize = 8 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Runs `job` on one of the pool's threads and returns its result.
    func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            enqueue { continuation.resume(returning: job()) }
        }
    }

    /// Starts `job` on one of the pool's threads without waiting for it.
    func start(_ job: @escaping @Sendable () -> Void) { enqueue(job) }

    private func enqueue(_ job: @escaping () -> Void) {
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads finish the queued work, then end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if queue.isEmpty, stopping {
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            condition.unlock()
            job()
        }
    }
}
