/// Presetting the selection (the feature every peer control lacks) and the playhead.
extension TimelineState {
    /// Selects `[start, end]` as closely as the rules allow, with the same clamp as `vtrim cut --clamp`:
    /// keep the start, move the end (to `start + minEffective` when the range is too short or inverted, to
    /// `start + maxEffective` when too long); if the end would pass the clip's end, move the start back.
    /// The window scrolls only as far as needed to show the selection. Returns what changed; a NaN
    /// request changes nothing and returns `[.ignoredNotANumber]`. Infinities are clamped.
    @discardableResult
    public mutating func setSelection(startSeconds start: Double, endSeconds end: Double) -> [RangeNote] {
        guard !start.isNaN, !end.isNaN else { return [.ignoredNotANumber] }
        let minimum = geometry.configuration.minDurationSeconds
        let clamped = RangeClampCore.clamp(
            start: start, end: end, rules: geometry.rules,
            wholeClipMinimum: geometry.isAdjustable ? nil : minimum)
        var window = windowStartSeconds
        if let allowed = geometry.windowBounds(start: clamped.start, end: clamped.end) {
            window = clamp(window, to: allowed)
        }
        _ = commit(geometry.placement(start: clamped.start, end: clamped.end, windowStart: window))
        return clamped.notes
    }

    /// Sets the player's time, clamped to the clip. NaN changes nothing. Returns whether it moved.
    @discardableResult
    public mutating func setPlayhead(seconds t: Double) -> Bool {
        guard !t.isNaN else { return false }
        let time = clamp(t, 0, geometry.durationSeconds)
        guard time != playheadSeconds else { return false }
        playheadSeconds = time
        return true
    }

    /// Where to draw the playhead indicator.
    public var playhead: PlayheadPosition {
        PlayheadPosition(state: self)
    }
}
