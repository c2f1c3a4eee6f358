import Foundation

/// How many smart edges of one edit encode at once: a counting semaphore that grants in the order the edges were
/// started, so the range being written gets its edges before the next range's (started early to keep the cores
/// busy) — and memory stays at a few encoders whatever the number of ranges (each holds up to a group of
/// pictures of frames and its packets).
/// Unchecked Sendable: every stored `var` (`free`, `nextTicket`, `serving`, `skipped`) is read and written only with
/// `condition` locked.
final class EdgeSlots: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: Int
    private var nextTicket = 0
    private var serving = 0
    /// Cancelled tickets not yet reached: passed over when their turn comes.
    private var skipped: Set<Int> = []

    /// Two at once — a range's head and tail, so a cut takes about the copy plus the longer edge — or as many as
    /// the encoder threads allow when each edge has fewer than half of them.
    init(encoderThreads: Int, threadsPerEdge: Int = 1) {
        free = max(2, encoderThreads / max(1, threadsPerEdge))
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
