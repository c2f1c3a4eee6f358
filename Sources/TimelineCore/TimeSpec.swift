/// A time as written on the command line: seconds (`12.5`, `0.040`), `m:ss(.fff)` (`1:05.250`),
/// `h:mm:ss(.fff)` (`1:02:03.5`), `end`, or `end-S` with S in any of those forms (`end-5`, `end-1:30`).
///
/// Strict on purpose, so a typo is an error and not a different time: ASCII digits only; no sign, spaces,
/// exponent, `nan` or `inf`; fields after a colon have exactly two digits and are below 60 (the leading
/// field may be larger: `90:00` is 90 minutes); a fraction only on the last field, with at least one digit
/// on each side of the point. `end+5` is rejected (nothing lies past the end).
public enum TimeSpec: Sendable, Equatable {
    /// Seconds from the start of the file.
    case seconds(Double)
    /// Seconds before the end of the file; `end` is `beforeEnd(0)`.
    case beforeEnd(Double)

    /// Reads `text`. The value is the double nearest to the written decimal (integer and fraction digits
    /// are kept apart, then converted once), so "12.5" is 12.5 and "0:00:01.001" is exactly the double 1.001.
    public init(parsing text: String) throws(TimeSpecError) {
        self = try TimeSpecParser.parse(text)
    }

    /// The time in seconds from the start of a file of `durationSeconds`.
    ///
    /// `end-S` past the start (`end-5` on a 3 s file) resolves to 0: for a batch ("the last 5 s of every
    /// file") the whole short file is the useful answer; `resolution(durationSeconds:)` reports the clamp
    /// so the CLI can warn. An absolute time is returned unchanged even past the end: range checks belong
    /// to `CutRangeClamp`, which can say what is wrong with the whole range.
    public func resolve(durationSeconds: Double) throws(TimeSpecError) -> Double {
        try resolution(durationSeconds: durationSeconds).seconds
    }

    /// Like `resolve`, also saying whether `end-S` had to be clamped to the start of the file.
    public func resolution(durationSeconds: Double) throws(TimeSpecError) -> TimeResolution {
        guard durationSeconds.isFinite, durationSeconds > 0 else { throw .invalidDuration(durationSeconds) }
        switch self {
        case .seconds(let t):
            guard t.isFinite, t >= 0 else { throw .invalidValue(t) }
            return TimeResolution(seconds: t, wasClampedToStart: false)
        case .beforeEnd(let offset):
            guard offset.isFinite, offset >= 0 else { throw .invalidValue(offset) }
            let t = durationSeconds - offset
            return t < 0
                ? TimeResolution(seconds: 0, wasClampedToStart: true)
                : TimeResolution(seconds: t, wasClampedToStart: false)
        }
    }
}

/// A resolved time and whether it was clamped.
public struct TimeResolution: Sendable, Equatable {
    public let seconds: Double
    /// `end-S` reached before the start of the file and was clamped to 0.
    public let wasClampedToStart: Bool

    public init(seconds: Double, wasClampedToStart: Bool) {
        self.seconds = seconds
        self.wasClampedToStart = wasClampedToStart
    }
}
