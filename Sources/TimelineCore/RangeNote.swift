/// One thing a clamp changed in a requested range, in the order it happened.
///
/// Why: `vtrim cut --clamp` and a UI preset must say what they did, not silently return other times.
public enum RangeNote: Sendable, Equatable, CustomStringConvertible {
    /// The start was before 0 and became 0.
    case startRaisedToZero(requestedSeconds: Double)
    /// The length was below the minimum (or not positive), so the end moved to `start + minimum`.
    case endExtendedToMinimumLength(requestedLengthSeconds: Double, minimumSeconds: Double, endSeconds: Double)
    /// The length was above the maximum, so the end moved to `start + maximum`.
    case endShortenedToMaximumLength(requestedLengthSeconds: Double, maximumSeconds: Double, endSeconds: Double)
    /// The end was past the end of the clip and became the clip's duration.
    case endClampedToDuration(requestedSeconds: Double, durationSeconds: Double)
    /// The start moved back so that the range still has its minimum length inside the clip.
    case startMovedBack(fromSeconds: Double, toSeconds: Double, minimumSeconds: Double)
    /// The clip is not longer than the minimum length, so the range is the whole clip.
    case wholeClip(durationSeconds: Double, minimumSeconds: Double)
    /// A requested time was NaN; nothing changed.
    case ignoredNotANumber

    public var description: String {
        let n = MessageNumber.text
        switch self {
        case .startRaisedToZero(let requested):
            return "start \(n(requested)) s is before the beginning of the clip; using 0 s"
        case .endExtendedToMinimumLength(let length, let minimum, let end):
            return "length \(n(length)) s is shorter than the minimum \(n(minimum)) s; end moved to \(n(end)) s"
        case .endShortenedToMaximumLength(let length, let maximum, let end):
            return "length \(n(length)) s is longer than the maximum \(n(maximum)) s; end moved to \(n(end)) s"
        case .endClampedToDuration(let requested, let duration):
            return "end \(n(requested)) s is past the end of the clip (\(n(duration)) s); using \(n(duration)) s"
        case .startMovedBack(let from, let to, let minimum):
            return "start moved back from \(n(from)) s to \(n(to)) s to keep the minimum length \(n(minimum)) s inside the clip"
        case .wholeClip(let duration, let minimum):
            return "the clip (\(n(duration)) s) is not longer than the minimum length \(n(minimum)) s; using the whole clip"
        case .ignoredNotANumber:
            return "a requested time was not a number; the range is unchanged"
        }
    }
}
