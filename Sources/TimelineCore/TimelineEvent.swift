/// What a trimming control tells its owner (VideoLine's delegate calls, without the duplicates).
public enum TimelineEvent: Sendable, Equatable {
    /// The selection is now `[start, end]`; never sent twice in a row for the same selection.
    case changed(startSeconds: Double, endSeconds: Double)
    /// An interaction finished with this selection; sent exactly once per interaction
    /// (VideoLine sends it twice for a flick: on end of dragging and again on end of deceleration).
    case ended(startSeconds: Double, endSeconds: Double)
}

/// Turns selection snapshots into events: `changed` de-duplicated, `ended` once per interaction.
///
/// Use: `beginInteraction()` when a drag starts, `record` after each step, `endInteraction` when the gesture
/// and any deceleration are over (extra calls are ignored). A `record` outside an interaction is a
/// one-step interaction (a programmatic preset): `changed` then `ended` if the selection changed, nothing
/// otherwise.
public struct TimelineEventRecorder: Sendable, Equatable {
    public private(set) var isInteracting = false
    private var lastReported: Snapshot?

    private struct Snapshot: Sendable, Equatable {
        let start: Double
        let end: Double
    }

    public init() {}

    /// `changed` for a selection nobody has been told about yet (VideoLine sends nothing initially).
    public mutating func announce(startSeconds: Double, endSeconds: Double) -> [TimelineEvent] {
        changedIfNew(startSeconds, endSeconds).map { [$0] } ?? []
    }

    public mutating func beginInteraction() {
        isInteracting = true
    }

    public mutating func record(startSeconds: Double, endSeconds: Double) -> [TimelineEvent] {
        guard let changed = changedIfNew(startSeconds, endSeconds) else { return [] }
        if isInteracting { return [changed] }
        return [changed, .ended(startSeconds: startSeconds, endSeconds: endSeconds)]
    }

    public mutating func endInteraction(startSeconds: Double, endSeconds: Double) -> [TimelineEvent] {
        guard isInteracting else { return [] }
        isInteracting = false
        return [.ended(startSeconds: startSeconds, endSeconds: endSeconds)]
    }

    private mutating func changedIfNew(_ start: Double, _ end: Double) -> TimelineEvent? {
        let snapshot = Snapshot(start: start, end: end)
        guard snapshot != lastReported else { return nil }
        lastReported = snapshot
        return .changed(startSeconds: start, endSeconds: end)
    }
}
