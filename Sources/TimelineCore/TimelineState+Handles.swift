/// Moving the sliders to absolute positions (never incremental deltas, which VideoLine resets per event
/// and reads back from frames that may not be laid out yet).
extension TimelineState {
    /// Left slider: `start` limited to `[windowStart, end − minEffective]`. Returns whether it moved.
    @discardableResult
    public mutating func moveLeftHandle(toSeconds t: Double) -> Bool {
        guard !t.isNaN, geometry.isAdjustable,
            let allowed = geometry.startBounds(end: endSeconds, windowStart: windowStartSeconds)
        else { return false }
        let start = clamp(t, to: allowed)
        guard start != startSeconds,
            geometry.isValid(start: start, end: endSeconds, windowStart: windowStartSeconds)
        else { return false }
        startSeconds = start
        return true
    }

    /// Left slider by view position: `x` is the left edge of the left handle.
    @discardableResult
    public mutating func moveLeftHandle(toViewXPoints x: Double) -> Bool {
        moveLeftHandle(toSeconds: geometry.unclampedSeconds(atViewXPoints: x, windowStartSeconds: windowStartSeconds))
    }

    /// Right slider: `end` limited to `[start + minEffective, min(windowStart + maxEffective, duration)]`.
    @discardableResult
    public mutating func moveRightHandle(toSeconds t: Double) -> Bool {
        guard !t.isNaN, geometry.isAdjustable,
            let allowed = geometry.endBounds(start: startSeconds, windowStart: windowStartSeconds)
        else { return false }
        let end = clamp(t, to: allowed)
        guard end != endSeconds,
            geometry.isValid(start: startSeconds, end: end, windowStart: windowStartSeconds)
        else { return false }
        endSeconds = end
        return true
    }

    /// Right slider by view position: `x` is the right edge of the right handle.
    @discardableResult
    public mutating func moveRightHandle(toViewXPoints x: Double) -> Bool {
        moveRightHandle(toSeconds: geometry.unclampedSeconds(atViewXPoints: x, windowStartSeconds: windowStartSeconds))
    }
}
