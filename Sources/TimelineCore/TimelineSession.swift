/// A timeline state together with its event recorder: what a UI drives.
public struct TimelineSession: Sendable, Equatable {
    public private(set) var state: TimelineState
    public private(set) var recorder = TimelineEventRecorder()

    public init(state: TimelineState) {
        self.state = state
    }

    public init(geometry: TimelineGeometry) {
        self.init(state: TimelineState(geometry: geometry))
    }

    /// The initial `changed` event (once; empty if the selection was already reported).
    public mutating func announceInitialSelection() -> [TimelineEvent] {
        recorder.announce(startSeconds: state.startSeconds, endSeconds: state.endSeconds)
    }

    public mutating func beginInteraction() {
        recorder.beginInteraction()
    }

    /// Applies `operation` and returns the events to emit. Playhead updates never emit events.
    @discardableResult
    public mutating func perform(_ operation: TimelineOperation) -> [TimelineEvent] {
        state.apply(operation)
        guard operation.affectsSelection else { return [] }
        return recorder.record(startSeconds: state.startSeconds, endSeconds: state.endSeconds)
    }

    /// Presets the selection (see `TimelineState.setSelection`): the events to emit and what was clamped.
    public mutating func setSelection(
        startSeconds: Double, endSeconds: Double
    ) -> (events: [TimelineEvent], notes: [RangeNote]) {
        let notes = state.setSelection(startSeconds: startSeconds, endSeconds: endSeconds)
        return (recorder.record(startSeconds: state.startSeconds, endSeconds: state.endSeconds), notes)
    }

    /// Ends the interaction: `ended` exactly once, however often this is called.
    public mutating func endInteraction() -> [TimelineEvent] {
        recorder.endInteraction(startSeconds: state.startSeconds, endSeconds: state.endSeconds)
    }
}
