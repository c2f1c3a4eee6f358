/// The selection rules in time, checked exactly in `Double` arithmetic (see `ExactRangeRules`):
/// `0 ≤ windowStart ≤ maxWindowStart`, `windowStart ≤ start`, `end ≤ duration`,
/// `end ≤ windowStart + maxEffective`, `minEffective ≤ end − start ≤ maxEffective`.
extension TimelineGeometry {
    func isValid(start: Double, end: Double, windowStart: Double) -> Bool {
        windowStart.isFinite && windowStart >= 0 && windowStart <= maxWindowStartSeconds
            && start >= windowStart && rules.isValid(start: start, end: end)
            && end <= windowStart + maxEffectiveSeconds
    }

    /// Left handle: `start ∈ [windowStart, end − minEffective]` (and no more than `maxEffective` before end).
    func startBounds(end: Double, windowStart: Double) -> ClosedRange<Double>? {
        rules.startBounds(end: end, floor: windowStart)
    }

    /// Right handle: `end ∈ [start + minEffective, min(windowStart + maxEffective, duration)]`.
    func endBounds(start: Double, windowStart: Double) -> ClosedRange<Double>? {
        rules.endBounds(start: start, cap: windowStart + maxEffectiveSeconds)
    }

    /// Window starts that show the whole selection.
    func windowBounds(start: Double, end: Double) -> ClosedRange<Double>? {
        let span = maxEffectiveSeconds
        guard let low = AdjacentDoubles.atOrAbove(end - span, where: { end <= $0 + span }) else { return nil }
        return closedRange(max(low, 0), min(start, maxWindowStartSeconds))
    }

    /// The valid placement nearest to the request: as given; else with the start kept (inside the window)
    /// and the end fitted; else with the end kept (inside the window and clip) and the start fitted; else on
    /// the exact time grid, where it always succeeds.
    func placement(
        start: Double, end: Double, windowStart: Double
    ) -> (start: Double, end: Double, windowStart: Double) {
        if isValid(start: start, end: end, windowStart: windowStart) { return (start, end, windowStart) }
        let keptStart = max(start, windowStart)
        if let ends = endBounds(start: keptStart, windowStart: windowStart) {
            let fittedEnd = clamp(end, to: ends)
            if isValid(start: keptStart, end: fittedEnd, windowStart: windowStart) {
                return (keptStart, fittedEnd, windowStart)
            }
        }
        let keptEnd = min(end, durationSeconds, windowStart + maxEffectiveSeconds)
        if let starts = startBounds(end: keptEnd, windowStart: windowStart) {
            let fittedStart = clamp(start, to: starts)
            if isValid(start: fittedStart, end: keptEnd, windowStart: windowStart) {
                return (fittedStart, keptEnd, windowStart)
            }
        }
        return gridPlacement(start: start, end: end, windowStart: windowStart)
    }

    /// Everything on multiples of the quantum: sums and differences are exact, so the rules hold by
    /// integer arithmetic. The length is rounded to the grid; the window moves only if it must.
    func gridPlacement(
        start: Double, end: Double, windowStart: Double
    ) -> (start: Double, end: Double, windowStart: Double) {
        let q = rules.quantumSeconds
        let durationTicks = rules.durationTicks
        let maxTicks = rules.maxTicks
        let lengthTicks = rules.ticks(end - start, rules.minTicks, maxTicks)
        let startTicks = rules.ticks(start, 0, durationTicks - lengthTicks)
        let windowTicks = rules.ticks(
            windowStart, max(0, startTicks + lengthTicks - maxTicks), min(startTicks, durationTicks - maxTicks))
        return (startTicks * q, (startTicks + lengthTicks) * q, windowTicks * q)
    }
}
