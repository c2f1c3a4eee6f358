/// The rules for a range `[start, end]` on a clip, checked exactly in `Double` arithmetic:
/// `0 ≤ start`, `end ≤ duration`, `0 < end − start`, `minLength ≤ end − start ≤ maxLength`.
///
/// Why: `end − start` computed in floating point can land an ulp below a limit (VideoLine's 1.9999999 s).
/// Callers keep the user's numbers when they already satisfy the rules, otherwise look for the exact edge
/// among neighbouring doubles, and as a last resort use a grid of `quantumSeconds` (the duration's ulp):
/// every multiple of it up to the duration is a double, and sums and differences of such times are exact.
struct ExactRangeRules: Sendable, Equatable {
    let durationSeconds: Double
    /// 0 means "any positive length".
    let minLengthSeconds: Double
    let maxLengthSeconds: Double
    /// The time grid of the exact fallback: one ulp of the duration.
    let quantumSeconds: Double

    /// Expects a valid duration and `0 ≤ minLength ≤ maxLength ≤ duration` (callers validate first).
    /// When no multiple of the quantum lies between the limits (a fixed length such as 0.2 s that no two
    /// times late in the clip can be exactly apart), both limits become the nearest multiple: the length
    /// then differs from the requested one by less than half a quantum, and the rules can always be met.
    init(durationSeconds: Double, minLengthSeconds: Double, maxLengthSeconds: Double) {
        let quantum = durationSeconds.ulp
        var low = max(0, minLengthSeconds)
        var high = min(maxLengthSeconds, durationSeconds)
        if Self.ceilingTicks(low, quantum) > (high / quantum).rounded(.down) {
            let ticks = max(1, (high / quantum).rounded())
            low = min(ticks * quantum, durationSeconds)
            high = low
        }
        self.durationSeconds = durationSeconds
        self.minLengthSeconds = low
        self.maxLengthSeconds = high
        self.quantumSeconds = quantum
    }

    private static func ceilingTicks(_ seconds: Double, _ quantum: Double) -> Double {
        max(1, (seconds / quantum).rounded(.up))
    }

    var durationTicks: Double { durationSeconds / quantumSeconds }
    var minTicks: Double { Self.ceilingTicks(minLengthSeconds, quantumSeconds) }
    var maxTicks: Double { (maxLengthSeconds / quantumSeconds).rounded(.down) }

    /// `seconds` on the grid, rounded to the nearest tick and limited to `lo...hi` ticks.
    func ticks(_ seconds: Double, _ lo: Double, _ hi: Double) -> Double {
        clamp((seconds / quantumSeconds).rounded(), lo, hi)
    }

    func lengthIsValid(start: Double, end: Double) -> Bool {
        let length = end - start
        return length > 0 && length >= minLengthSeconds && length <= maxLengthSeconds
    }

    func isValid(start: Double, end: Double) -> Bool {
        start.isFinite && end.isFinite && start >= 0 && end <= durationSeconds
            && lengthIsValid(start: start, end: end)
    }

    /// Every end allowed with this start that is also at most `cap`; nil when there is none.
    func endBounds(start: Double, cap: Double) -> ClosedRange<Double>? {
        let minLength = minLengthSeconds
        let maxLength = maxLengthSeconds
        guard
            let low = AdjacentDoubles.atOrAbove(
                start + minLength, where: { $0 - start > 0 && $0 - start >= minLength }),
            let highByLength = AdjacentDoubles.atOrBelow(
                start + maxLength, where: { $0 - start <= maxLength })
        else { return nil }
        return closedRange(low, min(highByLength, durationSeconds, cap))
    }

    /// Every start allowed with this end that is also at least `floor`; nil when there is none.
    func startBounds(end: Double, floor: Double) -> ClosedRange<Double>? {
        let minLength = minLengthSeconds
        let maxLength = maxLengthSeconds
        guard
            let lowByLength = AdjacentDoubles.atOrAbove(
                end - maxLength, where: { end - $0 <= maxLength }),
            let high = AdjacentDoubles.atOrBelow(
                end - minLength, where: { end - $0 > 0 && end - $0 >= minLength })
        else { return nil }
        return closedRange(max(lowByLength, 0, floor), high)
    }

    /// The range nearest to `[start, end]` that meets the rules: as given when it does, else with the end
    /// moved, else with the start moved, else on the exact grid (which always succeeds).
    func exactRange(start: Double, end: Double) -> (start: Double, end: Double) {
        if isValid(start: start, end: end) { return (start, end) }
        if let ends = endBounds(start: start, cap: durationSeconds) {
            let movedEnd = clamp(end, to: ends)
            if isValid(start: start, end: movedEnd) { return (start, movedEnd) }
        }
        if let starts = startBounds(end: end, floor: 0) {
            let movedStart = clamp(start, to: starts)
            if isValid(start: movedStart, end: end) { return (movedStart, end) }
        }
        let lengthTicks = ticks(end - start, minTicks, maxTicks)
        let startTicks = ticks(start, 0, durationTicks - lengthTicks)
        return (startTicks * quantumSeconds, (startTicks + lengthTicks) * quantumSeconds)
    }
}
