/// Where the selection, the scroll position and the playhead are: kept in time, not in view frames.
///
/// After every operation, exactly in `Double` arithmetic:
/// `0 ≤ windowStart ≤ maxWindowStart`, `windowStart ≤ start`, `end ≤ duration`,
/// `end ≤ windowStart + maxEffective` and `minEffective ≤ end − start ≤ maxEffective`.
/// A request that would break them is clamped to the nearest allowed value; NaN requests change nothing.
public struct TimelineState: Sendable, Equatable {
    public let geometry: TimelineGeometry
    public internal(set) var startSeconds: Double
    public internal(set) var endSeconds: Double
    /// The time at the window's left edge (the scroll position).
    public internal(set) var windowStartSeconds: Double
    /// The player's time, kept within the clip; see `playhead` for where to draw it.
    public internal(set) var playheadSeconds: Double

    /// The explicit initial state VideoLine leaves to UIKit: window at 0, selection `[0, maxEffective]`
    /// (the whole clip when it is not adjustable), playhead at 0.
    public init(geometry: TimelineGeometry) {
        self.geometry = geometry
        self.startSeconds = 0
        self.endSeconds = geometry.maxEffectiveSeconds
        self.windowStartSeconds = 0
        self.playheadSeconds = 0
    }

    public var selectionDurationSeconds: Double { endSeconds - startSeconds }

    /// True when the invariants above hold (they always do; for tests and assertions in callers).
    public var isConsistent: Bool {
        geometry.isValid(start: startSeconds, end: endSeconds, windowStart: windowStartSeconds)
            && playheadSeconds >= 0 && playheadSeconds <= geometry.durationSeconds
    }

    /// VideoLine's labels for this selection.
    public var labels: SelectionLabels {
        SelectionLabels(startSeconds: startSeconds, endSeconds: endSeconds)
    }
}
