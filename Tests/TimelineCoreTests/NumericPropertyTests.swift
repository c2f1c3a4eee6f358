import PropertyBased
import PropertySupport
import Testing
import TimelineCore

/// Every TimelineCore function that takes a number a file, a list or a request can hold gives a value or a typed
/// error for every input — 0, negatives, subnormals, 1e-300, 1e300, NaN, ±infinity — and never traps (a trap ends
/// the test run, which fails it).
@Suite struct NumericPropertyTests {
    @Test func timeSpecsParseAndResolveAnything() async {
        await propertyCheck(count: 500, input: Wild.text, Wild.double) { text, duration in
            if let spec = try? TimeSpec(parsing: text), let seconds = try? spec.resolve(durationSeconds: duration) {
                #expect(seconds.isFinite, "\(text) on \(duration) s gave \(seconds)")
            }
        }
        await propertyCheck(count: 300, input: Wild.double, Wild.double) { value, duration in
            for text in [String(value), "end-\(value)", "1:\(value)"] {
                if let resolved = try? TimeSpec(parsing: text).resolution(durationSeconds: duration) {
                    #expect(resolved.seconds.isFinite && resolved.seconds >= 0, "\(text) on \(duration) s: \(resolved.seconds)")
                }
            }
        }
    }

    @Test func rangeClampingAnswersEveryRequest() async {
        await propertyCheck(count: 500, input: Wild.double, Wild.double, Wild.double, Wild.double, Wild.double) { start, end, duration, low, high in
            if let clamped = try? CutRangeClamp.clamp(startSeconds: start, endSeconds: end, durationSeconds: duration,
                                                      minLengthSeconds: low, maxLengthSeconds: high) {
                #expect(clamped.startSeconds.isFinite && clamped.endSeconds.isFinite && clamped.endSeconds >= clamped.startSeconds)
            }
            if let violations = try? CutRangeClamp.violations(startSeconds: start, endSeconds: end, durationSeconds: duration,
                                                              minLengthSeconds: low, maxLengthSeconds: high) {
                #expect(violations.allSatisfy { !$0.description.isEmpty })
            }
        }
    }

    /// The one rule for a join's ranges: nothing it accepts is empty, unordered or overlapping.
    @Test func rangeOrderAcceptsOnlyOrderedRanges() async {
        await propertyCheck(count: 500, input: zip(Wild.double, Wild.double).array(of: 0...6)) { spans in
            let pairs = spans.map { (start: $0.0, end: $0.1) }
            if RangeOrder.problem(spans: pairs) == nil {
                for (index, span) in pairs.enumerated() {
                    #expect(span.start.isFinite && span.end.isFinite && span.end > span.start)
                    if index > 0 { #expect(span.start >= pairs[index - 1].end - 1e-6) }
                }
            }
        }
    }

    @Test func timeLabelsFormatAnyNumber() async {
        await propertyCheck(count: 500, input: Wild.double, Gen.int(in: -5...10)) { seconds, digits in
            for label in [TimeFormatting.clockLabel(seconds: seconds), TimeFormatting.durationLabel(seconds: seconds),
                          TimeFormatting.exactSeconds(seconds), TimeFormatting.fixed(seconds, fractionDigits: digits),
                          TimeFormatting.preciseClock(seconds: seconds), TimeFormatting.webVTT(seconds: seconds),
                          TimeFormatting.truncatedClock(seconds: seconds, fractionDigits: digits)] {
                #expect(!label.isEmpty)
            }
            _ = TimeFormatting.fractionDigits(forSpacing: seconds)
        }
    }

    @Test func sampleSchedulesAreBoundedOrRefused() async {
        await propertyCheck(count: 300, input: Wild.double, Wild.double, Wild.double, Wild.int) { spacing, from, to, count in
            if let times = try? SampleSchedule.every(spacingSeconds: spacing, from: from, to: to) {
                #expect(times.allSatisfy { $0.isFinite && $0 >= from && $0 < to })
            }
            if let times = try? SampleSchedule.count(count, from: from, to: to) { #expect(times.count == count) }
        }
    }

    /// Any geometry a request or a file's duration can ask for: a timeline, or why not; and any handle drag on it.
    @Test func geometryAndStateTakeAnyNumbers() async {
        await propertyCheck(count: 300, input: Wild.double, Wild.double, Wild.double, Wild.double, Wild.double, Wild.double) {
            duration, strip, thumb, low, high, drag in
            var configuration = TimelineConfiguration(durationSeconds: duration, stripWidthPoints: strip, thumbnailWidthPoints: thumb,
                                                      thumbnailHeightPoints: thumb)
            configuration.setLimits(minimumSeconds: low, maximumSeconds: high)
            guard let geometry = try? TimelineGeometry(configuration: configuration) else { return }
            var state = TimelineState(geometry: geometry)
            _ = state.setSelection(startSeconds: drag, endSeconds: high)
            _ = state.moveLeftHandle(toViewXPoints: drag)
            _ = state.moveRightHandle(toSeconds: drag)
            _ = state.scroll(toWindowStartSeconds: drag)
            _ = state.scroll(toContentOffsetPoints: drag)
            _ = state.setPlayhead(seconds: drag)
            _ = state.seconds(atViewXPoints: drag)
            _ = state.viewXPoints(forSeconds: drag)
            #expect(state.startSeconds <= state.endSeconds)
        }
    }

    /// Every edge value through time syntax, clamping, labels and schedules, in a process of its own: a trap there fails
    /// this test — its exit is a signal — not the whole run.
    @Test func edgeValuesNeverTrap() async {
        await #expect(processExitsWith: .success) {
            for value in Wild.specialDoubles {
                for other in Wild.specialDoubles {
                    for text in [String(value), "end-\(value)", "1:\(value)"] { _ = try? TimeSpec(parsing: text).resolution(durationSeconds: other) }
                    _ = try? CutRangeClamp.clamp(startSeconds: value, endSeconds: other, durationSeconds: other, minLengthSeconds: value,
                                                 maxLengthSeconds: other)
                    _ = try? SampleSchedule.every(spacingSeconds: value, from: other, to: value)
                    _ = RangeOrder.problem(spans: [(start: value, end: other), (start: other, end: value)])
                }
                _ = (TimeFormatting.clockLabel(seconds: value), TimeFormatting.durationLabel(seconds: value), TimeFormatting.exactSeconds(value),
                     TimeFormatting.preciseClock(seconds: value), TimeFormatting.webVTT(seconds: value),
                     TimeFormatting.truncatedClock(seconds: value, fractionDigits: 3), TimeFormatting.fractionDigits(forSpacing: value))
            }
        }
    }
}
