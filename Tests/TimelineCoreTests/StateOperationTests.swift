import Testing
import TimelineCore

@Suite struct StateOperationTests {
    @Test func initialStateIsExplicit() async throws {
        let state = TimelineState(geometry: try demoGeometry())
        #expect(state.startSeconds == 0 && state.endSeconds == 5)
        #expect(state.windowStartSeconds == 0 && state.playheadSeconds == 0)
        #expect(state.contentOffsetPoints == -37.5)  // VideoLine's intended −margin
        expectInvariants(state)
    }

    @Test func handleEdgeConvention() async throws {
        let g = try demoGeometry()
        var state = TimelineState(geometry: g)
        #expect(state.leftHandleXPoints == 37.5)
        #expect(state.rightHandleMaxXPoints == 337.5)
        #expect(state.rightHandleMinXPoints == 327.5)
        state.setSelection(startSeconds: 1, endSeconds: 4)
        do {
            let result = state.moveLeftHandle(toViewXPoints: g.marginPoints)
            #expect(result)
        }
        do {
            let result = state.moveRightHandle(toViewXPoints: g.configuration.stripWidthPoints - g.marginPoints)
            #expect(result)
        }
        #expect(state.startSeconds == 0 && state.endSeconds == 5)
        #expect(state.seconds(atViewXPoints: 37.5) == 0)
        #expect(state.seconds(atViewXPoints: 337.5) == 5)
        #expect(state.seconds(atViewXPoints: 97.5) == 1)  // 60 pt = 1 s
        #expect(state.viewXPoints(forSeconds: 1) == 97.5)
    }

    @Test func leftHandleBounds() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 10, endSeconds: 14)
        #expect(state.windowStartSeconds == 9)  // the least scroll that shows [10, 14]
        state.scroll(toWindowStartSeconds: 9.5)
        #expect(state.startSeconds == 10.5 && state.endSeconds == 14.5)
        state.moveLeftHandle(toSeconds: 0)
        #expect(state.startSeconds == 9.5)  // windowStart
        state.moveLeftHandle(toSeconds: 14)
        #expect(state.startSeconds == 12.5)  // end − min
        #expect(state.selectionDurationSeconds == 2)
        state.moveLeftHandle(toSeconds: 10.25)
        #expect(state.startSeconds == 10.25)
        expectInvariants(state)
    }

    @Test func rightHandleBounds() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 10, endSeconds: 13)
        #expect(state.windowStartSeconds == 8)
        state.scroll(toWindowStartSeconds: 9)
        #expect(state.startSeconds == 11 && state.endSeconds == 14)
        state.moveLeftHandle(toSeconds: 10)
        state.moveRightHandle(toSeconds: 100)
        #expect(state.endSeconds == 14)  // windowStart + max
        state.moveRightHandle(toSeconds: -100)
        #expect(state.endSeconds == 12)  // start + min
        state.moveRightHandle(toSeconds: .infinity)
        #expect(state.endSeconds == 14)
        expectInvariants(state)
    }

    @Test func minimumLengthIsExactNotOneUlpShort() async throws {
        // 0.7 + 0.2 = 0.8999999999999999 and 0.8999999999999999 − 0.7 = 0.19999999999999996 < 0.2: an end
        // placed at start + min by plain addition would break the minimum (checked below, on the state).
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 3, stripWidthPoints: 375, thumbnailWidthPoints: 30, thumbnailHeightPoints: 50,
            minDurationSeconds: 0.2, maxDurationSeconds: 3))
        var state = TimelineState(geometry: g)
        state.moveLeftHandle(toSeconds: 0.7)
        state.moveRightHandle(toSeconds: 0)
        #expect(state.startSeconds == 0.7)
        #expect(state.endSeconds - state.startSeconds >= 0.2)
        #expect(state.endSeconds == 0.9)  // the nearest end that keeps 0.2 exactly
        #expect(state.endSeconds != state.startSeconds + 0.2, "the end is not the naive sum, which falls one ulp short")
        state.moveLeftHandle(toSeconds: 3)
        #expect(state.endSeconds - state.startSeconds >= 0.2)
        expectInvariants(state)
    }

    @Test func fixedLengthFreezesHandlesAndScrolls() async throws {
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 60, stripWidthPoints: 375, thumbnailWidthPoints: 30, thumbnailHeightPoints: 50,
            minDurationSeconds: 3, maxDurationSeconds: 3))
        var state = TimelineState(geometry: g)
        do {
            let result = state.moveLeftHandle(toSeconds: 1)
            #expect(!result)
        }
        do {
            let result = state.moveRightHandle(toSeconds: 1)
            #expect(!result)
        }
        for w in [1.3, 0.7, 12.345, 56.9, 57, 100] {
            state.scroll(toWindowStartSeconds: w)
            #expect(state.endSeconds - state.startSeconds == 3, "at \(w)")
            expectInvariants(state)
        }
        #expect(state.windowStartSeconds == 57 && state.endSeconds == 60)
    }

    @Test func fixedNonDyadicLengthIsExactToo() async throws {
        // No two times late in a 60 s clip are exactly 0.2 apart; the model snaps to its time quantum.
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 60, stripWidthPoints: 375, thumbnailWidthPoints: 30, thumbnailHeightPoints: 50,
            minDurationSeconds: 0.2, maxDurationSeconds: 0.2))
        #expect(g.minEffectiveSeconds == g.maxEffectiveSeconds)
        #expect(abs(g.maxEffectiveSeconds - 0.2) <= g.timeQuantumSeconds)
        var state = TimelineState(geometry: g)
        for w in [0.7, 1.3, 33.3, 59.9, 12.345] {
            state.scroll(toWindowStartSeconds: w)
            #expect(state.endSeconds - state.startSeconds == g.minEffectiveSeconds)
            expectInvariants(state)
        }
        state.setSelection(startSeconds: 40.1, endSeconds: 41)
        #expect(abs(state.startSeconds - 40.1) < 1e-12)
        expectInvariants(state)
    }

    @Test func scrollKeepsDurationAndStaysInClip() async throws {
        var state = TimelineState(geometry: try demoGeometry(duration: 61.23))
        state.setSelection(startSeconds: 1, endSeconds: 4.5)
        for w in [-5.0, 0.1, 3.3, 56.23, 1e9, -.infinity, .infinity, 20.7] {
            state.scroll(toWindowStartSeconds: w)
            #expect(abs(state.selectionDurationSeconds - 3.5) < 1e-12)
            expectInvariants(state)
        }
        do {
            let result = state.scroll(toWindowStartSeconds: .nan)
            #expect(!result)
        }
        state.scroll(toContentOffsetPoints: -37.5)
        #expect(state.windowStartSeconds == 0)
        state.scroll(toContentOffsetPoints: 600 - 37.5)
        #expect(state.windowStartSeconds == 10)
        #expect(state.contentOffsetPoints == 600 - 37.5)
    }

    @Test func clipShorterThanMaxCannotScroll() async throws {
        var state = TimelineState(geometry: try demoGeometry(duration: 4))
        #expect(state.endSeconds == 4)
        do {
            let result = state.scroll(toWindowStartSeconds: 1)
            #expect(!result)
        }
        state.moveLeftHandle(toSeconds: 1.5)
        #expect(state.startSeconds == 1.5)
        state.moveLeftHandle(toSeconds: 3)
        #expect(state.startSeconds == 2)
        expectInvariants(state)
    }

    @Test func nanRequestsChangeNothing() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 1, endSeconds: 3)
        let before = state
        do {
            let result = state.moveLeftHandle(toSeconds: .nan)
            #expect(!result)
        }
        do {
            let result = state.moveRightHandle(toViewXPoints: .nan)
            #expect(!result)
        }
        do {
            let result = state.setPlayhead(seconds: .nan)
            #expect(!result)
        }
        do {
            let result = state.setSelection(startSeconds: .nan, endSeconds: 2)
            #expect(result == [.ignoredNotANumber])
        }
        #expect(state == before)
        #expect(state.seconds(atViewXPoints: .nan) == nil)
        #expect(state.viewXPoints(forSeconds: .nan) == nil)
    }

    struct Preset: Sendable, CustomTestStringConvertible {
        let start: Double
        let end: Double
        let expectedStart: Double
        let expectedEnd: Double
        let notes: [RangeNote]
        var testDescription: String { "[\(start), \(end)]" }
    }

    static let presets: [Preset] = [
        Preset(start: 1, end: 4, expectedStart: 1, expectedEnd: 4, notes: []),
        Preset(start: 1, end: 1.5, expectedStart: 1, expectedEnd: 3,
               notes: [.endExtendedToMinimumLength(requestedLengthSeconds: 0.5, minimumSeconds: 2, endSeconds: 3)]),
        Preset(start: 1, end: 10, expectedStart: 1, expectedEnd: 6,
               notes: [.endShortenedToMaximumLength(requestedLengthSeconds: 9, maximumSeconds: 5, endSeconds: 6)]),
        Preset(start: -1, end: 3, expectedStart: 0, expectedEnd: 3,
               notes: [.startRaisedToZero(requestedSeconds: -1)]),
        Preset(start: 59.5, end: 60, expectedStart: 58, expectedEnd: 60, notes: [
            .endExtendedToMinimumLength(requestedLengthSeconds: 0.5, minimumSeconds: 2, endSeconds: 61.5),
            .endClampedToDuration(requestedSeconds: 61.5, durationSeconds: 60),
            .startMovedBack(fromSeconds: 59.5, toSeconds: 58, minimumSeconds: 2),
        ]),
        Preset(start: 58, end: 70, expectedStart: 58, expectedEnd: 60,
               notes: [.endShortenedToMaximumLength(requestedLengthSeconds: 12, maximumSeconds: 5, endSeconds: 63),
                       .endClampedToDuration(requestedSeconds: 63, durationSeconds: 60)]),
        Preset(start: 4, end: 2, expectedStart: 4, expectedEnd: 6,
               notes: [.endExtendedToMinimumLength(requestedLengthSeconds: -2, minimumSeconds: 2, endSeconds: 6)]),
        Preset(start: 0.9, end: 3, expectedStart: 0.9, expectedEnd: 3, notes: []),
    ]

    @Test(arguments: presets)
    func presetSelection(_ preset: Preset) async throws {
        var state = TimelineState(geometry: try demoGeometry())
        let notes = state.setSelection(startSeconds: preset.start, endSeconds: preset.end)
        #expect(state.startSeconds == preset.expectedStart)
        #expect(state.endSeconds == preset.expectedEnd)
        #expect(notes == preset.notes)
        #expect(notes.allSatisfy { !$0.description.isEmpty })
        expectInvariants(state)
    }

    @Test func presetScrollsOnlyAsFarAsNeeded() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 20, endSeconds: 23)
        #expect(state.windowStartSeconds == 18)  // e − max: the least scroll from 0
        state.setSelection(startSeconds: 19, endSeconds: 21)
        #expect(state.windowStartSeconds == 18)  // still shows it: no scroll
        state.setSelection(startSeconds: 2, endSeconds: 4)
        #expect(state.windowStartSeconds == 2)
    }

    @Test func playheadIsClampedToTheSelection() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 1, endSeconds: 4)
        state.setPlayhead(seconds: 2)
        #expect(state.playhead.offsetPoints == 60 && state.playhead.isInsideSelection)
        #expect(state.playhead.viewXPoints == 97.5 + 60)
        state.setPlayhead(seconds: 0.5)
        #expect(state.playhead.offsetPoints == 0 && !state.playhead.isInsideSelection)
        state.setPlayhead(seconds: 30)
        #expect(state.playhead.offsetPoints == 180 && !state.playhead.isInsideSelection)
        state.setPlayhead(seconds: 4)
        #expect(!state.playhead.isInsideSelection)  // half-open: loop back to start
        state.setPlayhead(seconds: 1)
        #expect(state.playhead.isInsideSelection)
        state.setPlayhead(seconds: .infinity)
        #expect(state.playheadSeconds == 60)
        state.setPlayhead(seconds: -3)
        #expect(state.playheadSeconds == 0)
        expectInvariants(state)
    }

    @Test func labelsMatchVideoLine() async throws {
        var state = TimelineState(geometry: try demoGeometry())
        state.setSelection(startSeconds: 0.9, endSeconds: 3)
        #expect(state.labels == SelectionLabels(startSeconds: 0.9, endSeconds: 3))
        #expect(state.labels.start == "00:00" && state.labels.end == "00:03" && state.labels.duration == "2.1")
    }

    @Test func mappingClampsAndRoundTrips() async throws {
        let g = try demoGeometry()
        #expect(g.seconds(atContentXPoints: 600) == 10)
        #expect(g.contentXPoints(forSeconds: 10) == 600)
        #expect(g.seconds(atContentXPoints: -5) == 0)
        #expect(g.seconds(atContentXPoints: .infinity) == 60)
        #expect(g.contentXPoints(forSeconds: 1e300) == 3600)
        #expect(g.seconds(atViewXPoints: 1e308, windowStartSeconds: 0) == 60)
        #expect(g.viewXPoints(forSeconds: 5, windowStartSeconds: 1e300) == -2962.5)  // window clamped to 55: 37.5 + 300 · (5 − 55) / 5
        #expect(g.contentOffsetPoints(forWindowStartSeconds: 10) == 562.5)
        #expect(g.windowStartSeconds(forContentOffsetPoints: 562.5) == 10)
        #expect(g.windowStartSeconds(forContentOffsetPoints: 1e300) == 55)
        #expect(g.windowStartSeconds(forContentOffsetPoints: .nan) == nil)
    }

    @Test func operationsAsValues() async throws {
        var byValue = TimelineState(geometry: try demoGeometry())
        var direct = byValue
        let operations: [TimelineOperation] = [
            .setSelection(startSeconds: 3, endSeconds: 6), .scroll(toWindowStartSeconds: 2),
            .dragLeftHandle(toViewXPoints: 100), .dragRightHandle(toViewXPoints: 300),
            .moveLeftHandle(toSeconds: 2.5), .moveRightHandle(toSeconds: 6.5),
            .scrollContent(toOffsetPoints: 200), .setPlayhead(seconds: 7),
        ]
        for operation in operations { byValue.apply(operation) }
        direct.setSelection(startSeconds: 3, endSeconds: 6)
        direct.scroll(toWindowStartSeconds: 2)
        direct.moveLeftHandle(toViewXPoints: 100)
        direct.moveRightHandle(toViewXPoints: 300)
        direct.moveLeftHandle(toSeconds: 2.5)
        direct.moveRightHandle(toSeconds: 6.5)
        direct.scroll(toContentOffsetPoints: 200)
        direct.setPlayhead(seconds: 7)
        #expect(byValue == direct)
        expectInvariants(byValue)
    }
}
