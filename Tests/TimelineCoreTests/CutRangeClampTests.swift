import PropertyBased
import Testing
import TimelineCore

@Suite struct CutRangeClampTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let start: Double
        let end: Double
        let duration: Double
        let min: Double?
        let max: Double?
        let expectedStart: Double
        let expectedEnd: Double
        let notes: [RangeNote]
        var testDescription: String { "[\(start), \(end)] on \(duration) s, min \(String(describing: min)), max \(String(describing: max))" }
    }

    static let cases: [Case] = [
        Case(start: 1, end: 4, duration: 60, min: nil, max: nil, expectedStart: 1, expectedEnd: 4, notes: []),
        Case(start: 10, end: 100, duration: 60, min: nil, max: nil, expectedStart: 10, expectedEnd: 60,
             notes: [.endClampedToDuration(requestedSeconds: 100, durationSeconds: 60)]),
        Case(start: 1, end: 2, duration: 60, min: 2, max: 5, expectedStart: 1, expectedEnd: 3,
             notes: [.endExtendedToMinimumLength(requestedLengthSeconds: 1, minimumSeconds: 2, endSeconds: 3)]),
        Case(start: 1, end: 9, duration: 60, min: 2, max: 5, expectedStart: 1, expectedEnd: 6,
             notes: [.endShortenedToMaximumLength(requestedLengthSeconds: 8, maximumSeconds: 5, endSeconds: 6)]),
        Case(start: 59, end: 59.5, duration: 60, min: 2, max: nil, expectedStart: 58, expectedEnd: 60, notes: [
            .endExtendedToMinimumLength(requestedLengthSeconds: 0.5, minimumSeconds: 2, endSeconds: 61),
            .endClampedToDuration(requestedSeconds: 61, durationSeconds: 60),
            .startMovedBack(fromSeconds: 59, toSeconds: 58, minimumSeconds: 2),
        ]),
        Case(start: 0.2, end: 0.4, duration: 1.5, min: 2, max: 5, expectedStart: 0, expectedEnd: 1.5,
             notes: [.wholeClip(durationSeconds: 1.5, minimumSeconds: 2)]),
        Case(start: 0.2, end: 0.4, duration: 1.002, min: 1.002, max: nil, expectedStart: 0, expectedEnd: 1.002,
             notes: [.wholeClip(durationSeconds: 1.002, minimumSeconds: 1.002)]),
        Case(start: 0.5, end: 1.002, duration: 1.002, min: 0.25, max: 0.5, expectedStart: 0.5, expectedEnd: 1.0,
             notes: [.endShortenedToMaximumLength(requestedLengthSeconds: 0.502, maximumSeconds: 0.5, endSeconds: 1)]),
        Case(start: -1, end: 3, duration: 60, min: nil, max: nil, expectedStart: 0, expectedEnd: 3,
             notes: [.startRaisedToZero(requestedSeconds: -1)]),
        Case(start: 0, end: 8, duration: 6, min: nil, max: 10, expectedStart: 0, expectedEnd: 6,
             notes: [.endClampedToDuration(requestedSeconds: 8, durationSeconds: 6)]),
    ]

    @Test(arguments: cases)
    func clamp(_ c: Case) async throws {
        let result = try CutRangeClamp.clamp(
            startSeconds: c.start, endSeconds: c.end, durationSeconds: c.duration,
            minLengthSeconds: c.min, maxLengthSeconds: c.max)
        #expect(result.startSeconds == c.expectedStart)
        #expect(result.endSeconds == c.expectedEnd)
        #expect(result.notes == c.notes)
        #expect(result.notes.allSatisfy { !$0.description.isEmpty })
        // The result needs no further clamping.
        let again = try CutRangeClamp.violations(
            startSeconds: result.startSeconds, endSeconds: result.endSeconds, durationSeconds: c.duration,
            minLengthSeconds: c.duration <= (c.min ?? 0) ? nil : c.min, maxLengthSeconds: c.max)
        #expect(again.isEmpty)
    }

    @Test func minimumIsExactWhereNaiveArithmeticFallsShort() async throws {
        // 0.7 + 0.2 − 0.7 < 0.2 in doubles: an end at start + min by plain addition would break the minimum.
        let result = try CutRangeClamp.clamp(
            startSeconds: 0.7, endSeconds: 0.75, durationSeconds: 10, minLengthSeconds: 0.2)
        #expect(result.startSeconds == 0.7)
        #expect(result.lengthSeconds >= 0.2)
        #expect(result.endSeconds - result.startSeconds >= 0.2)
        #expect(result.endSeconds != result.startSeconds + 0.2, "the end is not the naive sum, which falls one ulp short")
    }

    @Test func fixedLengthIsExact() async throws {
        let result = try CutRangeClamp.clamp(
            startSeconds: 1.001, endSeconds: 9, durationSeconds: 100, minLengthSeconds: 3, maxLengthSeconds: 3)
        #expect(result.lengthSeconds == 3)
        #expect(abs(result.startSeconds - 1.001) < 1e-12)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let start: Double, end: Double, duration: Double, min: Double?, max: Double?
        let error: CutRangeError
        var testDescription: String { error.description }
    }

    static let bad: [Bad] = [
        Bad(start: 0, end: 1, duration: .nan, min: nil, max: nil, error: .invalidDuration(seconds: .nan)),
        Bad(start: 0, end: 1, duration: 0, min: nil, max: nil, error: .invalidDuration(seconds: 0)),
        Bad(start: .nan, end: 1, duration: 5, min: nil, max: nil, error: .invalidStart(seconds: .nan)),
        Bad(start: 0, end: .infinity, duration: 5, min: nil, max: nil, error: .invalidEnd(seconds: .infinity)),
        Bad(start: 3, end: 2, duration: 5, min: nil, max: nil, error: .endNotAfterStart(startSeconds: 3, endSeconds: 2)),
        Bad(start: 2, end: 2, duration: 5, min: 1, max: nil, error: .endNotAfterStart(startSeconds: 2, endSeconds: 2)),
        Bad(start: 70, end: 80, duration: 60, min: 2, max: nil,
            error: .startAtOrPastEnd(startSeconds: 70, durationSeconds: 60)),
        Bad(start: 0, end: 1, duration: 5, min: 0, max: nil, error: .invalidMinLength(seconds: 0)),
        Bad(start: 0, end: 1, duration: 5, min: nil, max: -1, error: .invalidMaxLength(seconds: -1)),
        Bad(start: 0, end: 1, duration: 5, min: 3, max: 2, error: .minLengthExceedsMax(minSeconds: 3, maxSeconds: 2)),
    ]

    @Test(arguments: bad)
    func invalidRequestsThrow(_ b: Bad) async {
        #expect(throws: b.error) {
            try CutRangeClamp.clamp(
                startSeconds: b.start, endSeconds: b.end, durationSeconds: b.duration,
                minLengthSeconds: b.min, maxLengthSeconds: b.max)
        }
    }

    @Test func violationMessagesForTheCLI() async throws {
        let short = try CutRangeClamp.violations(
            startSeconds: 1, endSeconds: 2, durationSeconds: 60, minLengthSeconds: 2, maxLengthSeconds: 5)
        #expect(short == [.shorterThanMinimum(lengthSeconds: 1, minimumSeconds: 2, maximumSeconds: 5)])
        #expect(short.first?.description == "range 1.0 s is shorter than --min-duration 2 s; allowed 2–5 s")
        let long = try CutRangeClamp.violations(
            startSeconds: 1, endSeconds: 10.25, durationSeconds: 60, maxLengthSeconds: 5)
        #expect(long.first?.description == "range 9.25 s is longer than --max-duration 5 s; allowed at most 5 s")
        let onlyMin = RangeViolation.shorterThanMinimum(lengthSeconds: 1.9999, minimumSeconds: 2, maximumSeconds: nil)
        #expect(onlyMin.description == "range 1.9999 s is shorter than --min-duration 2 s; allowed at least 2 s")
    }

    @Test func violationsWithoutClamping() async throws {
        #expect(try CutRangeClamp.violations(startSeconds: 1, endSeconds: 4, durationSeconds: 60).isEmpty)
        #expect(try CutRangeClamp.violations(startSeconds: -1, endSeconds: 61, durationSeconds: 60)
            == [.startBeforeZero(startSeconds: -1), .endPastDuration(endSeconds: 61, durationSeconds: 60)])
        #expect(try CutRangeClamp.violations(startSeconds: 5, endSeconds: 3, durationSeconds: 60)
            == [.endNotAfterStart(startSeconds: 5, endSeconds: 3)])
        #expect(try CutRangeClamp.violations(startSeconds: 60, endSeconds: 61, durationSeconds: 60)
            == [.startAtOrPastEnd(startSeconds: 60, durationSeconds: 60),
                .endPastDuration(endSeconds: 61, durationSeconds: 60)])
        #expect(try CutRangeClamp.violations(startSeconds: .nan, endSeconds: .infinity, durationSeconds: 60)
            == [.startNotFinite, .endNotFinite])
        // One quantum of float noise is not a violation.
        #expect(try CutRangeClamp.violations(
            startSeconds: 0.7, endSeconds: 0.7 + 0.2, durationSeconds: 10, minLengthSeconds: 0.2).isEmpty)
        #expect(throws: CutRangeError.invalidDuration(seconds: -1)) {
            try CutRangeClamp.violations(startSeconds: 0, endSeconds: 1, durationSeconds: -1)
        }
    }

    @Test func clampedRangesAlwaysMeetTheLimitsExactly() async {
        await propertyCheck(
            count: 1000,
            input: Gen.double(in: 0.001...10_000), Gen.double(in: -0.2...1.2), Gen.double(in: -0.5...1.5),
            Gen.int(in: 0...3), Gen.double(in: 0.001...100), Gen.double(in: 1...20)
        ) { duration, startFraction, endFraction, limitKind, minimum, factor in
            let start = startFraction * duration
            let end = max(endFraction * duration, start + duration * 1e-6)
            let minLength: Double? = limitKind & 1 == 1 ? minimum : nil
            let maxLength: Double? = limitKind & 2 == 2 ? (limitKind == 3 && factor < 3 ? minimum : minimum * factor) : nil
            guard start < duration, end > start else { return }
            do {
                let r = try CutRangeClamp.clamp(
                    startSeconds: start, endSeconds: end, durationSeconds: duration,
                    minLengthSeconds: minLength, maxLengthSeconds: maxLength)
                #expect(r.startSeconds >= 0 && r.endSeconds <= duration && r.endSeconds > r.startSeconds)
                if let minLength {
                    if duration <= minLength {
                        #expect(r.startSeconds == 0 && r.endSeconds == duration)
                    } else {
                        #expect(r.lengthSeconds >= minLength - duration.ulp)
                    }
                }
                if let maxLength { #expect(r.lengthSeconds <= maxLength + duration.ulp) }
                if r.notes.isEmpty { #expect(r.startSeconds == start && r.endSeconds == end) }
                let startMayMove = r.notes.contains {
                    switch $0 {
                    case .startMovedBack, .wholeClip, .startRaisedToZero: return true
                    default: return false
                    }
                }
                if !startMayMove {
                    #expect(r.startSeconds == start || abs(r.startSeconds - start) <= duration.ulp)
                }
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
