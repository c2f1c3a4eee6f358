/// The clamp shared by `CutRangeClamp` and `TimelineState.setSelection`: keep the start, move the end;
/// if the end would pass the end of the clip, move the start back (never below 0).
///
/// Why one implementation: the CLI's `--clamp` and a UI preset must agree on the same numbers.
enum RangeClampCore {
    /// - Parameters:
    ///   - start, end: the request; not NaN (infinities are fine).
    ///   - rules: the effective limits on this clip.
    ///   - wholeClipMinimum: the user's minimum length when the clip is not longer than it (the result is
    ///     then the whole clip); nil otherwise.
    static func clamp(
        start requestedStart: Double, end requestedEnd: Double,
        rules: ExactRangeRules, wholeClipMinimum: Double?
    ) -> (start: Double, end: Double, notes: [RangeNote]) {
        let duration = rules.durationSeconds
        if let minimum = wholeClipMinimum {
            return (0, duration, [.wholeClip(durationSeconds: duration, minimumSeconds: minimum)])
        }
        var notes: [RangeNote] = []
        var start = requestedStart
        if start < 0 {
            notes.append(.startRaisedToZero(requestedSeconds: requestedStart))
            start = 0
        }
        start = min(start, duration)  // a start past the end is moved back below
        var end = requestedEnd
        let length = end - start
        if !(length > 0 && length >= rules.minLengthSeconds) {
            end = start + rules.minLengthSeconds
            if !(end > start) { end = start.nextUp }
            notes.append(.endExtendedToMinimumLength(
                requestedLengthSeconds: length, minimumSeconds: rules.minLengthSeconds, endSeconds: end))
        } else if length > rules.maxLengthSeconds, rules.maxLengthSeconds < duration {
            // A maximum of the whole clip is no limit of its own: the end clamp below reports that case.
            end = start + rules.maxLengthSeconds
            notes.append(.endShortenedToMaximumLength(
                requestedLengthSeconds: length, maximumSeconds: rules.maxLengthSeconds, endSeconds: end))
        }
        if end > duration {
            notes.append(.endClampedToDuration(requestedSeconds: end, durationSeconds: duration))
            end = duration
            let remaining = end - start
            if !(remaining > 0 && remaining >= rules.minLengthSeconds) {
                let movedStart = max(0, duration - max(rules.minLengthSeconds, rules.quantumSeconds))
                notes.append(.startMovedBack(
                    fromSeconds: requestedStart, toSeconds: movedStart, minimumSeconds: rules.minLengthSeconds))
                start = movedStart
            }
        }
        let exact = rules.exactRange(start: start, end: end)
        return (exact.start, exact.end, notes)
    }
}
