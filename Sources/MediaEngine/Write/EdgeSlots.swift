import Locking

/// How many smart edges of one edit encode at once: a counting semaphore that grants in the order the edges were
/// started, so the range being written gets its edges before the next range's (started early to keep the cores
/// busy) — and memory stays at a few encoders whatever the number of ranges (each holds up to a group of
/// pictures of frames and its packets).
final class EdgeSlots: Sendable {
    private struct State {
        var free: Int
        var nextTicket = 0
        var serving = 0
        /// Cancelled tickets not yet reached: passed over when their turn comes.
        var skipped: Set<Int> = []

        /// The next ticket's turn, passing over cancelled ones.
        mutating func advance() {
            serving += 1
            while skipped.remove(serving) != nil { serving += 1 }
        }

        /// Gives up `ticket`'s turn: taken now if it is being served, passed over when it comes.
        mutating func pass(_ ticket: Int) {
            if serving == ticket { advance() } else if ticket > serving { skipped.insert(ticket) }
        }
    }

    private let state: LockedCondition<State>

    /// Two at once — a range's head and tail, so a cut takes about the copy plus the longer edge — or as many as
    /// the encoder threads allow when each edge has fewer than half of them.
    init(encoderThreads: Int, threadsPerEdge: Int = 1) {
        state = LockedCondition(State(free: max(2, encoderThreads / max(1, threadsPerEdge))))
    }

    /// A place in the queue, taken when the edge is started (on the writer's thread, in range order).
    func ticket() -> Int {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
    }

    /// Waits (on the edge's own thread) for its turn and a free slot; false when `cancelled` says stop first (looked at
    /// every 50 ms).
    func acquire(_ ticket: Int, cancelled: () -> Bool) -> Bool {
        while true {
            let outcome: Bool? = state.wait(until: { $0.serving == ticket && $0.free > 0 }, timeoutSeconds: 0.05) { state, ready in
                if ready {
                    state.free -= 1
                    state.advance()
                    return true
                }
                guard cancelled() else { return nil }
                // Its turn passes to the next edge, so no later one waits for it.
                state.pass(ticket)
                return false
            }
            if let outcome { return outcome }
        }
    }

    /// Gives up `ticket` without waiting for it (its edge never got a thread): its turn passes to the next edge.
    func pass(_ ticket: Int) {
        state.withLock { $0.pass(ticket) }
    }

    func release() {
        state.withLock { $0.free += 1 }
    }
}
