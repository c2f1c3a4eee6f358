/// Moving the sliders to absolute positions (never incremental deltas, which VideoLine resets per event
/// and reads back from frames that may not be laid out yet).
extension TimelineState {
    /// Left slider: `start` limited to `[windowStart, end − minEffective]`. Returns whether it moved.
    @discardableResult
    public mutating func moveLeftHandle(toSeconds t: Double) -> Bool {
        guard !t.isNaN else { return false }
        return move(\.startSeconds, toSeconds: t,
                    within: geometry.startBounds(end: endSeconds, windowStart: windowStartSeconds))
    }

    /// Left slider by view position: `x` is the left edge of the left handle.
    @discardableResult
    public mutating func moveLeftHandle(toViewXPoints x: Double) -> Bool {
        moveLeftHandle(toSeconds: geometry.unclampedSeconds(atViewXPoints: x, windowStartSeconds: windowStartSeconds))
    }

    /// Right slider: `end` limited to `[start + minEffective, min(windowStart + maxEffective, duration)]`.
    @discardableResult
    public mutating func moveRightHandle(toSeconds t: Double) -> Bool {
        guard !t.isNaN else { return false }
        return move(\.endSeconds, toSeconds: t,
                    within: geometry.endBounds(start: startSeconds, windowStart: windowStartSeconds))
    }

    /// Right slider by view position: `x` is the right edge of the right handle.
    @discardableResult
    public mutating func moveRightHandle(toViewXPoints x: Double) -> Bool {
        moveRightHandle(toSeconds: geometry.unclampedSeconds(atViewXPoints: x, windowStartSeconds: windowStartSeconds))
    }

    /// One handle to `t` limited to `allowed`, kept only when the selection it makes is valid.
    private mutating func move(_ handle: WritableKeyPath<TimelineState, Double>, toSeconds t: Double,
                               within allowed: ClosedRange<Double>?) -> Bool {
        guard geometry.isAdjustable, let allowed else { return false }
        let seconds = clamp(t, to: allowed)
        guard seconds != self[keyPath: handle] else { return false }
        let start = handle == \.startSeconds ? seconds : startSeconds
        let end = handle == \.endSeconds ? seconds : endSeconds
        guard geometry.isValid(start: start, end: end, windowStart: windowStartSeconds) else { return false }
        self[keyPath: handle] = seconds
        return true
    }
}
