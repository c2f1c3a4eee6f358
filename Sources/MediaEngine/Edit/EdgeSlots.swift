import Foundation

/// How many smart edges of one edit encode at once, and the threads they encode on: a counting semaphore that grants
/// in the order the edges were started, so the range being written gets its edges before the next range's (started
/// early to keep the cores busy) — and memory stays at a few encoders whatever the number of ranges (each holds up
/// to a group of pictures of frames and its packets). The edges run on as many threads as there are slots, kept for
/// the edit: each thread's malloc arena holds the blocks its last encoder freed (`FreedBlocks`), so the next encoder
/// there reuses them instead of the kernel zeroing fresh pages (measured on a 10-range 1080p join: system time
/// 2.0 s with a thread per edge). `close` ends the threads once the edit is written.
/// Unchecked Sendable: every stored `var` (`free`, `nextTicket`, `serving`, `skipped`, `jobs`, `threads`, `closed`) is
/// read and written only with `condition` locked.
final class EdgeSlots: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private var free: Int
    private var nextTicket = 0
    private var serving = 0
    /// Cancelled tickets not yet reached: passed over when their turn comes.
    private var skipped: Set<Int> = []
    /// Edges started and not yet taken by a thread, in the order they were started.
    private var jobs: [@Sendable () -> Void] = []
    private var threads = 0
    private var closed = false

    /// Two at once — a range's head and tail, so a cut takes about the copy plus the longer edge — or as many as
    /// the encoder threads allow when each edge has fewer than half of them.
    init(encoderThreads: Int, threadsPerEdge: Int = 1) {
        capacity = max(2, encoderThreads / max(1, threadsPerEdge))
        free = capacity
    }

    /// Runs `job` on one of the edit's edge threads (started as needed, up to one per slot), in the order started:
    /// the threads take the earliest edges, so the edge whose turn it is always has a thread.
    func start(named name: String, _ job: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        if threads < min(capacity, jobs.count + busy) {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
        condition.broadcast()
    }

    /// Threads running a job (`condition` locked).
    private var busy = 0

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty, !closed { condition.wait() }
            guard !jobs.isEmpty else {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            busy += 1
            condition.unlock()
            job()
            condition.lock()
            busy -= 1
            condition.unlock()
        }
    }

    /// The edit is written (or failed, its edges cancelled and joined): the threads end once no edge is left.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// A place in the queue, taken when the edge is started (on the writer's thread, in range order).
    func ticket() -> Int {
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        return ticket
    }

    /// Waits (on the edge's own thread) for its turn and a free slot; false when `cancelled` says stop first.
    func acquire(_ ticket: Int, cancelled: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !(serving == ticket && free > 0) {
            if cancelled() {
                // Its turn passes to the next edge, so no later one waits for it.
                if serving == ticket { advance() } else { skipped.insert(ticket) }
                condition.broadcast()
                return false
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        free -= 1
        advance()
        condition.broadcast()
        return true
    }

    /// The next ticket's turn, passing over cancelled ones (`condition` locked).
    private func advance() {
        serving += 1
        while skipped.remove(serving) != nil { serving += 1 }
    }

    func release() {
        condition.lock()
        free += 1
        condition.broadcast()
        condition.unlock()
    }
}
