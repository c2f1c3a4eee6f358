/// Times at which `vtrim thumbs` takes frames. Never at or past `to`, so no request falls off the end.
public enum SampleSchedule: Sendable {
    /// `from + i·spacing` for i = 0, 1, … while the time is before `to`. A time within float noise of `to`
    /// (10⁻⁹ of a step plus 10⁻¹² of the times) is not a sample, so noise never adds a sliver sample; with
    /// `from = 0, to = duration, spacing = timeSpacing` these are exactly the timeline's cell sample times.
    public static func every(
        spacingSeconds spacing: Double, from: Double, to: Double
    ) throws(SampleScheduleError) -> [Double] {
        try validate(from: from, to: to)
        guard spacing.isFinite, spacing > 0 else { throw .invalidSpacing(seconds: spacing) }
        let limit = TimelineLimits.maximumSampleCount
        guard let count = StepCount.count(from: from, to: to, spacing: spacing, limit: limit) else {
            throw .tooManySamples(count: (to - from) / spacing, limit: limit)
        }
        return (0..<Int(count)).map { StepCount.time(Double($0), from: from, to: to, spacing: spacing) }
    }

    /// `n` times at the centres of `n` equal parts of `[from, to)`: `from + (i + 0.5)·(to − from)/n`.
    public static func count(_ n: Int, from: Double, to: Double) throws(SampleScheduleError) -> [Double] {
        try validate(from: from, to: to)
        guard n >= 1 else { throw .invalidCount(n) }
        guard n <= TimelineLimits.maximumSampleCount else {
            throw .tooManySamples(count: Double(n), limit: TimelineLimits.maximumSampleCount)
        }
        let span = to - from
        let parts = Double(n)
        let latest = max(from, to.nextDown)
        return (0..<n).map { i in
            // (2i + 1)·span / 2n: one rounding for the fraction, then the offset.
            min(from + (Double(2 * i + 1) * span) / (2 * parts), latest)
        }
    }

    private static func validate(from: Double, to: Double) throws(SampleScheduleError) {
        guard from.isFinite else { throw .invalidFrom(seconds: from) }
        guard to.isFinite else { throw .invalidTo(seconds: to) }
        guard from < to else { throw .emptyInterval(fromSeconds: from, toSeconds: to) }
    }
}

/// Why a sample schedule could not be made.
public enum SampleScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidFrom(seconds: Double)
    case invalidTo(seconds: Double)
    case emptyInterval(fromSeconds: Double, toSeconds: Double)
    case invalidSpacing(seconds: Double)
    case invalidCount(Int)
    case tooManySamples(count: Double, limit: Int)

    public var description: String {
        let n = MessageNumber.text
        switch self {
        case .invalidFrom(let t):
            return "sampling start \(n(t)) s is not a finite time"
        case .invalidTo(let t):
            return "sampling end \(n(t)) s is not a finite time"
        case .emptyInterval(let from, let to):
            return "sampling interval from \(n(from)) s to \(n(to)) s is empty; the end must be after the start"
        case .invalidSpacing(let s):
            return "sample spacing \(n(s)) s is not usable; it must be a finite number of seconds above 0"
        case .invalidCount(let count):
            return "sample count \(count) is not usable; ask for at least 1 sample"
        case .tooManySamples(let count, let limit):
            return "that asks for \(n(count.rounded(.up))) samples, more than the limit \(limit); "
                + "use a larger spacing or fewer samples"
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.invalidFrom(let a), .invalidFrom(let b)),
            (.invalidTo(let a), .invalidTo(let b)),
            (.invalidSpacing(let a), .invalidSpacing(let b)):
            return a.isSameNumber(as: b)
        case (.emptyInterval(let a1, let a2), .emptyInterval(let b1, let b2)):
            return a1.isSameNumber(as: b1) && a2.isSameNumber(as: b2)
        case (.invalidCount(let a), .invalidCount(let b)):
            return a == b
        case (.tooManySamples(let a, let al), .tooManySamples(let b, let bl)):
            return a.isSameNumber(as: b) && al == bl
        default:
            return false
        }
    }
}
