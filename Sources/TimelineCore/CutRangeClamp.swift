/// The effective range of a cut, and the notes saying how it differs from the request.
public struct ClampedRange: Sendable, Equatable {
    public let startSeconds: Double
    public let endSeconds: Double
    /// What changed, in order; empty when the request was used as given.
    public let notes: [RangeNote]

    public var lengthSeconds: Double { endSeconds - startSeconds }
}

/// Clamping and checking of a requested `[start, end]` cut range against a clip and optional length limits.
///
/// Only the limits the user gives apply (the timeline's 2–5 s defaults do not). With `--clamp`: keep the
/// start, move the end; if the end would pass the clip's end, move the start back, never below 0; if the
/// clip is not longer than the minimum, take the whole clip. Results meet the limits exactly in `Double`
/// arithmetic (see `ExactRangeRules`).
public enum CutRangeClamp: Sendable {
    /// The effective range for a request, or an error when the request cannot mean a range on this clip
    /// (non-finite times, end not after start, start at or past the end, invalid limits).
    /// A negative start is raised to 0 with a note.
    public static func clamp(
        startSeconds: Double, endSeconds: Double, durationSeconds: Double,
        minLengthSeconds: Double? = nil, maxLengthSeconds: Double? = nil
    ) throws(CutRangeError) -> ClampedRange {
        let rules = try makeRules(durationSeconds, minLengthSeconds, maxLengthSeconds)
        guard startSeconds.isFinite else { throw .invalidStart(seconds: startSeconds) }
        guard endSeconds.isFinite else { throw .invalidEnd(seconds: endSeconds) }
        guard endSeconds > startSeconds else {
            throw .endNotAfterStart(startSeconds: startSeconds, endSeconds: endSeconds)
        }
        guard startSeconds < durationSeconds else {
            throw .startAtOrPastEnd(startSeconds: startSeconds, durationSeconds: durationSeconds)
        }
        let wholeClip = minLengthSeconds.flatMap { $0 >= durationSeconds ? $0 : nil }
        let result = RangeClampCore.clamp(
            start: startSeconds, end: endSeconds, rules: rules, wholeClipMinimum: wholeClip)
        return ClampedRange(startSeconds: result.start, endSeconds: result.end, notes: result.notes)
    }

    /// What is wrong with a request, without changing it; empty when it can be cut as given.
    /// Throws only when the clip duration or the limits themselves are invalid.
    ///
    /// Lengths within one quantum of a limit (the duration's ulp, about 7 × 10⁻¹⁵ s on a one-minute clip)
    /// count as meeting it: that is the time resolution on the clip, and `clamp` may round a fixed length
    /// that no two times on the clip are exactly apart to that resolution.
    public static func violations(
        startSeconds: Double, endSeconds: Double, durationSeconds: Double,
        minLengthSeconds: Double? = nil, maxLengthSeconds: Double? = nil
    ) throws(CutRangeError) -> [RangeViolation] {
        let rules = try makeRules(durationSeconds, minLengthSeconds, maxLengthSeconds)
        var found: [RangeViolation] = []
        if !startSeconds.isFinite { found.append(.startNotFinite) }
        if !endSeconds.isFinite { found.append(.endNotFinite) }
        guard found.isEmpty else { return found }
        if startSeconds < 0 { found.append(.startBeforeZero(startSeconds: startSeconds)) }
        if startSeconds >= durationSeconds {
            found.append(.startAtOrPastEnd(startSeconds: startSeconds, durationSeconds: durationSeconds))
        }
        if endSeconds > durationSeconds {
            found.append(.endPastDuration(endSeconds: endSeconds, durationSeconds: durationSeconds))
        }
        guard endSeconds > startSeconds else {
            found.append(.endNotAfterStart(startSeconds: startSeconds, endSeconds: endSeconds))
            return found
        }
        let length = endSeconds - startSeconds
        let tolerance = rules.quantumSeconds
        if let minimum = minLengthSeconds, length < minimum - tolerance {
            found.append(.shorterThanMinimum(
                lengthSeconds: length, minimumSeconds: minimum, maximumSeconds: maxLengthSeconds))
        }
        if let maximum = maxLengthSeconds, length > maximum + tolerance {
            found.append(.longerThanMaximum(
                lengthSeconds: length, maximumSeconds: maximum, minimumSeconds: minLengthSeconds))
        }
        return found
    }

    private static func makeRules(
        _ duration: Double, _ minimum: Double?, _ maximum: Double?
    ) throws(CutRangeError) -> ExactRangeRules {
        guard duration.isFinite, duration >= TimelineLimits.minimumSeconds,
            duration <= TimelineLimits.maximumDurationSeconds
        else { throw .invalidDuration(seconds: duration) }
        if let minimum, !(minimum.isFinite && minimum >= TimelineLimits.minimumSeconds) {
            throw .invalidMinLength(seconds: minimum)
        }
        if let maximum, !(maximum.isFinite && maximum >= TimelineLimits.minimumSeconds) {
            throw .invalidMaxLength(seconds: maximum)
        }
        if let minimum, let maximum, minimum > maximum {
            throw .minLengthExceedsMax(minSeconds: minimum, maxSeconds: maximum)
        }
        let maxLength = min(maximum ?? duration, duration)
        return ExactRangeRules(
            durationSeconds: duration, minLengthSeconds: min(minimum ?? 0, maxLength),
            maxLengthSeconds: maxLength)
    }
}
