/// Why a cut range could not be clamped or checked at all.
public enum CutRangeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidDuration(seconds: Double)
    case invalidStart(seconds: Double)
    case invalidEnd(seconds: Double)
    case invalidMinLength(seconds: Double)
    case invalidMaxLength(seconds: Double)
    case minLengthExceedsMax(minSeconds: Double, maxSeconds: Double)
    case endNotAfterStart(startSeconds: Double, endSeconds: Double)
    case startAtOrPastEnd(startSeconds: Double, durationSeconds: Double)

    public var description: String {
        let n = MessageNumber.text
        switch self {
        case .invalidDuration(let d):
            return "clip duration \(n(d)) s is not usable; it must be a finite number of seconds from "
                + "\(n(TimelineLimits.minimumSeconds)) to \(n(TimelineLimits.maximumDurationSeconds))"
        case .invalidStart(let s):
            return "start \(n(s)) s is not a finite time; give a number of seconds"
        case .invalidEnd(let e):
            return "end \(n(e)) s is not a finite time; give a number of seconds"
        case .invalidMinLength(let m):
            return "minimum length \(n(m)) s is not usable; it must be finite and at least "
                + "\(n(TimelineLimits.minimumSeconds)) s"
        case .invalidMaxLength(let m):
            return "maximum length \(n(m)) s is not usable; it must be finite and at least "
                + "\(n(TimelineLimits.minimumSeconds)) s"
        case .minLengthExceedsMax(let minimum, let maximum):
            return "minimum length \(n(minimum)) s is greater than maximum length \(n(maximum)) s; "
                + "swap them or make the maximum larger"
        case .endNotAfterStart(let s, let e):
            return "end \(n(e)) s is not after start \(n(s)) s; give an end later than the start"
        case .startAtOrPastEnd(let s, let d):
            return "start \(n(s)) s is at or past the end of the clip (\(n(d)) s); give an earlier start"
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.invalidDuration(let a), .invalidDuration(let b)),
            (.invalidStart(let a), .invalidStart(let b)),
            (.invalidEnd(let a), .invalidEnd(let b)),
            (.invalidMinLength(let a), .invalidMinLength(let b)),
            (.invalidMaxLength(let a), .invalidMaxLength(let b)):
            return a.isSameNumber(as: b)
        case (.minLengthExceedsMax(let a1, let a2), .minLengthExceedsMax(let b1, let b2)),
            (.endNotAfterStart(let a1, let a2), .endNotAfterStart(let b1, let b2)),
            (.startAtOrPastEnd(let a1, let a2), .startAtOrPastEnd(let b1, let b2)):
            return a1.isSameNumber(as: b1) && a2.isSameNumber(as: b2)
        default:
            return false
        }
    }
}
