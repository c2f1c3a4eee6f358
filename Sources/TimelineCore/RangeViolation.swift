/// One way a requested range breaks the clip's bounds or the user's length limits (found without clamping).
///
/// The length messages name the CLI flags, as `vtrim cut` reports them:
/// "range 1.0 s is shorter than --min-duration 2 s; allowed 2–5 s".
public enum RangeViolation: Sendable, Equatable, CustomStringConvertible {
    case startNotFinite
    case endNotFinite
    case startBeforeZero(startSeconds: Double)
    case startAtOrPastEnd(startSeconds: Double, durationSeconds: Double)
    case endPastDuration(endSeconds: Double, durationSeconds: Double)
    case endNotAfterStart(startSeconds: Double, endSeconds: Double)
    case shorterThanMinimum(lengthSeconds: Double, minimumSeconds: Double, maximumSeconds: Double?)
    case longerThanMaximum(lengthSeconds: Double, maximumSeconds: Double, minimumSeconds: Double?)

    public var description: String {
        let n = MessageNumber.text
        switch self {
        case .startNotFinite:
            return "start is not a finite time"
        case .endNotFinite:
            return "end is not a finite time"
        case .startBeforeZero(let s):
            return "start \(n(s)) s is before the beginning of the clip"
        case .startAtOrPastEnd(let s, let d):
            return "start \(n(s)) s is at or past the end of the clip (\(n(d)) s)"
        case .endPastDuration(let e, let d):
            return "end \(n(e)) s is past the end of the clip (\(n(d)) s)"
        case .endNotAfterStart(let s, let e):
            return "end \(n(e)) s is not after start \(n(s)) s"
        case .shorterThanMinimum(let length, let minimum, let maximum):
            return "range \(MessageNumber.length(length, comparedWith: minimum)) s is shorter than "
                + "--min-duration \(n(minimum)) s; " + Self.allowed(minimum, maximum)
        case .longerThanMaximum(let length, let maximum, let minimum):
            return "range \(MessageNumber.length(length, comparedWith: maximum)) s is longer than "
                + "--max-duration \(n(maximum)) s; " + Self.allowed(minimum, maximum)
        }
    }

    private static func allowed(_ minimum: Double?, _ maximum: Double?) -> String {
        let n = MessageNumber.text
        switch (minimum, maximum) {
        case let (minimum?, maximum?): return "allowed \(n(minimum))–\(n(maximum)) s"
        case let (minimum?, nil): return "allowed at least \(n(minimum)) s"
        case let (nil, maximum?): return "allowed at most \(n(maximum)) s"
        case (nil, nil): return "any length allowed"
        }
    }
}
