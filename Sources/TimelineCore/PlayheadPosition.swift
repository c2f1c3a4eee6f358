/// The playback indicator, clamped to the selection (VideoLine lets it run past the sliders).
public struct PlayheadPosition: Sendable, Equatable {
    /// The player's time (clamped to the clip).
    public let seconds: Double
    /// Distance from the left edge of the left handle, limited to `[0, selection width]`
    /// (VideoLine: `(t − start) / secondsPerPoint`, unclamped).
    public let offsetPoints: Double
    /// The indicator's view position: `leftHandleX + offset`.
    public let viewXPoints: Double
    /// `start ≤ t < end`, half-open like a cut: at `end` the player has reached the loop point and should
    /// restart at `start` exactly.
    public let isInsideSelection: Bool

    init(state: TimelineState) {
        let g = state.geometry
        let t = state.playheadSeconds
        let width = g.windowWidthPoints * (state.selectionDurationSeconds / g.maxEffectiveSeconds)
        let raw = g.windowWidthPoints * ((t - state.startSeconds) / g.maxEffectiveSeconds)
        let offset = clamp(raw, 0, max(0, width))
        self.seconds = t
        self.offsetPoints = offset
        self.viewXPoints = state.leftHandleXPoints + offset
        self.isInsideSelection = t >= state.startSeconds && t < state.endSeconds
    }
}
