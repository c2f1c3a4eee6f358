import Foundation
import Testing
@testable import MediaEngine

/// Smart edges take their turns in the order they were started; an edge that gives its turn up (no thread could be
/// made for it) must not hold the ones after it. Each wait gives up after 2 s, so a held turn fails rather than hangs.
@Suite(.timeLimit(.minutes(1)))
struct EdgeSlotsTests {
    static func acquired(_ slots: EdgeSlots, _ ticket: Int) -> Bool {
        let giveUp = Date().addingTimeInterval(2)
        return slots.acquire(ticket, cancelled: { Date() > giveUp })
    }

    @Test func aTurnGivenUpBeforeItComesIsPassedOver() {
        let slots = EdgeSlots(encoderThreads: 2)
        let first = slots.ticket(), given = slots.ticket(), third = slots.ticket()
        slots.pass(given)
        #expect(Self.acquired(slots, first))
        #expect(Self.acquired(slots, third))
    }

    @Test func aTurnGivenUpWhenItIsServedPassesAtOnce() {
        let slots = EdgeSlots(encoderThreads: 2)
        let given = slots.ticket(), next = slots.ticket()
        slots.pass(given)
        #expect(Self.acquired(slots, next))
    }

    /// Without a slot free the next edge waits: the turn is passed, the slot is not given.
    @Test func passingATurnFreesNoSlot() {
        let slots = EdgeSlots(encoderThreads: 2)
        let tickets = (0..<4).map { _ in slots.ticket() }
        #expect(Self.acquired(slots, tickets[0]))
        #expect(Self.acquired(slots, tickets[1]))
        slots.pass(tickets[2])
        #expect(!Self.acquired(slots, tickets[3]))
        slots.release()
        // The cancelled wait passed ticket 3's turn as well: a later ticket takes the freed slot.
        #expect(Self.acquired(slots, slots.ticket()))
    }
}
