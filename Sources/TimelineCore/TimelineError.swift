/// Why a `TimelineConfiguration` cannot make a timeline. Each message says what is wrong and what to do.
public enum TimelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// NaN, infinite, not positive, or outside `TimelineLimits`.
    case invalidDuration(seconds: Double)
    case invalidStripWidth(points: Double)
    /// Below `TimelineLimits.minimumThumbnailPoints` (VideoLine traps dividing by `Int(0.5)`), or not finite.
    case invalidThumbnailWidth(points: Double)
    case invalidThumbnailHeight(points: Double)
    case invalidHandleWidth(points: Double)
    case invalidMinDuration(seconds: Double)
    case invalidMaxDuration(seconds: Double)
    case minDurationExceedsMax(minSeconds: Double, maxSeconds: Double)
    /// `floor(width / thumbWidth) − 2 < 1`: no room for one visible thumbnail plus one of margin each side.
    case stripTooNarrow(stripWidthPoints: Double, thumbnailWidthPoints: Double)
    /// The clip would need more than `TimelineLimits.maximumThumbnailCount` cells.
    case tooManyThumbnails(count: Double, limit: Int)

    public var description: String {
        let n = MessageNumber.text
        let limits = TimelineLimits.self
        switch self {
        case .invalidDuration(let d):
            return "duration \(n(d)) s is not usable; it must be a finite number of seconds from "
                + "\(n(limits.minimumSeconds)) to \(n(limits.maximumDurationSeconds)) (probe the file again "
                + "or give the duration explicitly)"
        case .invalidStripWidth(let w):
            return "strip width \(n(w)) pt is not usable; it must be finite, above 0 and at most "
                + "\(n(limits.maximumPoints)) pt"
        case .invalidThumbnailWidth(let w):
            return "thumbnail width \(n(w)) pt is not usable; it must be finite, from "
                + "\(n(limits.minimumThumbnailPoints)) to \(n(limits.maximumPoints)) pt"
        case .invalidThumbnailHeight(let h):
            return "thumbnail height \(n(h)) pt is not usable; it must be finite, from "
                + "\(n(limits.minimumThumbnailPoints)) to \(n(limits.maximumPoints)) pt"
        case .invalidHandleWidth(let w):
            return "handle width \(n(w)) pt is not usable; it must be finite, from 0 to "
                + "\(n(limits.maximumPoints)) pt"
        case .invalidMinDuration(let m):
            return "minimum selection \(n(m)) s is not usable; it must be finite and at least "
                + "\(n(limits.minimumSeconds)) s"
        case .invalidMaxDuration(let m):
            return "maximum selection \(n(m)) s is not usable; it must be finite and at least "
                + "\(n(limits.minimumSeconds)) s"
        case .minDurationExceedsMax(let minimum, let maximum):
            return "minimum selection \(n(minimum)) s is greater than maximum selection \(n(maximum)) s; "
                + "swap them or make the maximum larger"
        case .stripTooNarrow(let width, let thumb):
            return "strip width \(n(width)) pt holds fewer than 3 thumbnails \(n(thumb)) pt wide; "
                + "need at least \(n(3 * thumb)) pt (widen the strip or use narrower thumbnails)"
        case .tooManyThumbnails(let count, let limit):
            return "the clip would need \(n(count.rounded(.up))) thumbnails, more than the limit \(limit); "
                + "use a longer maximum selection or fewer, wider thumbnails"
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.invalidDuration(let a), .invalidDuration(let b)),
            (.invalidStripWidth(let a), .invalidStripWidth(let b)),
            (.invalidThumbnailWidth(let a), .invalidThumbnailWidth(let b)),
            (.invalidThumbnailHeight(let a), .invalidThumbnailHeight(let b)),
            (.invalidHandleWidth(let a), .invalidHandleWidth(let b)),
            (.invalidMinDuration(let a), .invalidMinDuration(let b)),
            (.invalidMaxDuration(let a), .invalidMaxDuration(let b)):
            return a.isSameNumber(as: b)
        case (.minDurationExceedsMax(let a1, let a2), .minDurationExceedsMax(let b1, let b2)),
            (.stripTooNarrow(let a1, let a2), .stripTooNarrow(let b1, let b2)):
            return a1.isSameNumber(as: b1) && a2.isSameNumber(as: b2)
        case (.tooManyThumbnails(let a, let al), .tooManyThumbnails(let b, let bl)):
            return a.isSameNumber(as: b) && al == bl
        default:
            return false
        }
    }
}
