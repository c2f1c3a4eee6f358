import Dispatch
import Foundation
import Locking
@testable import MediaEngine
import Testing

/// The edit's edge threads: every edge started runs, never more at once than there are slots, on no more threads
/// than there are slots (each thread takes edge after edge, keeping its arena's blocks), and `close` ends them.
struct EdgeSlotsTests {
    struct Log: Sendable {
        var order: [Int] = []
        var running = 0
        var mostAtOnce = 0
        var threads = 0
    }

    @Test(arguments: [(2, 1, 12), (4, 2, 9), (1, 1, 5), (8, 2, 20)])
    func edgesRunInOrderOnTheSlotsThreads(_ example: (encoderThreads: Int, threadsPerEdge: Int, edges: Int)) {
        let slots = EdgeSlots(encoderThreads: example.encoderThreads, threadsPerEdge: example.threadsPerEdge)
        let capacity = max(2, example.encoderThreads / example.threadsPerEdge)
        let log = Locked(Log())
        let finished = DispatchSemaphore(value: 0)
        for edge in 0..<example.edges {
            let ticket = slots.ticket()
            slots.start(named: "test edge") {
                defer { finished.signal() }
                guard slots.acquire(ticket, cancelled: { false }) else { return }
                log.withLock {
                    $0.order.append(edge)
                    $0.running += 1
                    $0.mostAtOnce = max($0.mostAtOnce, $0.running)
                    // A thread's dictionary starts empty: marked on its first edge, it is counted once.
                    if Thread.current.threadDictionary["EdgeSlotsTests"] == nil {
                        Thread.current.threadDictionary["EdgeSlotsTests"] = true
                        $0.threads += 1
                    }
                }
                usleep(2000)
                log.withLock { $0.running -= 1 }
                slots.release()
            }
        }
        for _ in 0..<example.edges { finished.wait() }
        slots.close()
        let result = log.withLock { $0 }
        #expect(result.order.sorted() == Array(0..<example.edges), "every edge ran once")
        #expect(result.mostAtOnce <= capacity)
        #expect(result.threads <= capacity, "\(result.threads) threads for \(capacity) slots")
    }
}
