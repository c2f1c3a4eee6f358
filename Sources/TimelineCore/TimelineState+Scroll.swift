/// Scrolling the strip under fixed sliders: start and end move with the window, the length is kept
/// (to within one time quantum when it has to be snapped to meet the limits exactly).
extension TimelineState {
    /// Scrolls so the window starts at `w`, limited to `[0, maxWindowStart]`. Returns whether it moved.
    @discardableResult
    public mutating func scroll(toWindowStartSeconds w: Double) -> Bool {
        guard !w.isNaN else { return false }
        let window = geometry.clampedWindowStart(w)
        guard window != windowStartSeconds else { return false }
        let placed = geometry.placement(
            start: window + (startSeconds - windowStartSeconds),
            end: window + (endSeconds - windowStartSeconds),
            windowStart: window)
        return commit(placed)
    }

    /// Scrolls to UIKit's `contentOffset.x`.
    @discardableResult
    public mutating func scroll(toContentOffsetPoints offset: Double) -> Bool {
        guard !offset.isNaN else { return false }
        return scroll(toWindowStartSeconds: (offset + geometry.marginPoints) * geometry.secondsPerPoint)
    }

    /// Applies a placement when it is valid and different; the state never becomes invalid.
    mutating func commit(_ placed: (start: Double, end: Double, windowStart: Double)) -> Bool {
        guard geometry.isValid(start: placed.start, end: placed.end, windowStart: placed.windowStart) else {
            return false
        }
        let changed = placed.start != startSeconds || placed.end != endSeconds
            || placed.windowStart != windowStartSeconds
        startSeconds = placed.start
        endSeconds = placed.end
        windowStartSeconds = placed.windowStart
        return changed
    }
}
