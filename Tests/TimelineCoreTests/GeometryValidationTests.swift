import Testing
import TimelineCore

/// Construction returns errors where VideoLine traps, asserts or produces ∞/NaN.
@Suite struct GeometryValidationTests {
    struct Invalid: Sendable, CustomTestStringConvertible {
        let name: String
        let configuration: TimelineConfiguration
        let error: TimelineError
        var testDescription: String { name }
    }

    static func config(
        duration: Double = 60, width: Double = 375, thumbWidth: Double = 30, thumbHeight: Double = 50,
        min: Double = 2, max: Double = 5, handle: Double = 10
    ) -> TimelineConfiguration {
        TimelineConfiguration(
            durationSeconds: duration, stripWidthPoints: width, thumbnailWidthPoints: thumbWidth,
            thumbnailHeightPoints: thumbHeight, minDurationSeconds: min, maxDurationSeconds: max,
            handleWidthPoints: handle)
    }

    static let cases: [Invalid] = [
        Invalid(name: "119/40: minCount 0", configuration: config(width: 119, thumbWidth: 40),
                error: .stripTooNarrow(stripWidthPoints: 119, thumbnailWidthPoints: 40)),
        Invalid(name: "79/40: minCount −1", configuration: config(width: 79, thumbWidth: 40),
                error: .stripTooNarrow(stripWidthPoints: 79, thumbnailWidthPoints: 40)),
        Invalid(name: "thumb 0.5", configuration: config(thumbWidth: 0.5),
                error: .invalidThumbnailWidth(points: 0.5)),
        Invalid(name: "thumb 0", configuration: config(thumbWidth: 0), error: .invalidThumbnailWidth(points: 0)),
        Invalid(name: "thumb NaN", configuration: config(thumbWidth: .nan),
                error: .invalidThumbnailWidth(points: .nan)),
        Invalid(name: "thumb height 0", configuration: config(thumbHeight: 0),
                error: .invalidThumbnailHeight(points: 0)),
        Invalid(name: "duration NaN", configuration: config(duration: .nan), error: .invalidDuration(seconds: .nan)),
        Invalid(name: "duration +inf", configuration: config(duration: .infinity),
                error: .invalidDuration(seconds: .infinity)),
        Invalid(name: "duration 0", configuration: config(duration: 0), error: .invalidDuration(seconds: 0)),
        Invalid(name: "duration −3", configuration: config(duration: -3), error: .invalidDuration(seconds: -3)),
        Invalid(name: "duration 1e-300", configuration: config(duration: 1e-300),
                error: .invalidDuration(seconds: 1e-300)),
        Invalid(name: "min > max", configuration: config(min: 6, max: 5),
                error: .minDurationExceedsMax(minSeconds: 6, maxSeconds: 5)),
        Invalid(name: "min 0", configuration: config(min: 0), error: .invalidMinDuration(seconds: 0)),
        Invalid(name: "max NaN", configuration: config(max: .nan), error: .invalidMaxDuration(seconds: .nan)),
        Invalid(name: "width −inf", configuration: config(width: -.infinity),
                error: .invalidStripWidth(points: -.infinity)),
        Invalid(name: "width 1e300", configuration: config(width: 1e300), error: .invalidStripWidth(points: 1e300)),
        Invalid(name: "handle −1", configuration: config(handle: -1), error: .invalidHandleWidth(points: -1)),
        Invalid(name: "10 000 s in 1 ms steps",
                configuration: config(duration: 10_000, width: 1000, thumbWidth: 1, min: 0.001, max: 0.002),
                error: .tooManyThumbnails(count: 10_000 / (0.002 / 998), limit: 10_000_000)),
    ]

    @Test(arguments: cases)
    func invalidConfigurationsThrow(_ invalid: Invalid) async {
        #expect(throws: invalid.error) { try TimelineGeometry(configuration: invalid.configuration) }
        #expect(!invalid.error.description.isEmpty)
    }

    @Test func narrowStripMessageSaysWhatToDo() async {
        let message = TimelineError.stripTooNarrow(stripWidthPoints: 119, thumbnailWidthPoints: 40).description
        #expect(message.hasPrefix("strip width 119 pt holds fewer than 3 thumbnails 40 pt wide; need at least 120 pt"))
    }

    @Test func messagesNameTheBadValue() async {
        #expect(TimelineError.invalidDuration(seconds: .nan).description.hasPrefix("duration nan s is not usable"))
        #expect(TimelineError.invalidThumbnailWidth(points: 0.5).description.contains("0.5 pt"))
        #expect(TimelineError.minDurationExceedsMax(minSeconds: 6, maxSeconds: 5).description
            == "minimum selection 6 s is greater than maximum selection 5 s; swap them or make the maximum larger")
    }

    @Test func exactlyThreeThumbnailsFit() async throws {
        let g = try TimelineGeometry(configuration: Self.config(width: 120, thumbWidth: 40))
        #expect(g.minCount == 1 && g.marginPoints == 40)
        expectSaneGeometry(g)
    }

    @Test(arguments: [0.5, 0.05, 1.0, 1.999, 2.0])
    func clipNotLongerThanMinSelectsWholeClip(_ duration: Double) async throws {
        let g = try demoGeometry(duration: duration)
        #expect(!g.isAdjustable)
        #expect(g.minEffectiveSeconds == duration && g.maxEffectiveSeconds == duration)
        #expect(g.thumbnailCount == 10)
        expectSaneGeometry(g)
        var state = TimelineState(geometry: g)
        #expect(state.startSeconds == 0 && state.endSeconds == duration)
        do {
            let result = state.moveLeftHandle(toSeconds: 0.1)
            #expect(!result)
        }
        do {
            let result = state.moveRightHandle(toSeconds: 0)
            #expect(!result)
        }
        do {
            let result = state.scroll(toWindowStartSeconds: 10)
            #expect(!result)
        }
        let notes = state.setSelection(startSeconds: 0.1, endSeconds: 0.2)
        #expect(notes == [.wholeClip(durationSeconds: duration, minimumSeconds: 2)])
        #expect(state.startSeconds == 0 && state.endSeconds == duration)
        expectInvariants(state)
    }

    @Test func clipJustLongerThanMinIsAdjustable() async throws {
        let g = try demoGeometry(duration: 2.5)
        #expect(g.isAdjustable)
        var state = TimelineState(geometry: g)
        #expect(state.endSeconds == 2.5)
        do {
            let result = state.moveLeftHandle(toSeconds: 1)
            #expect(result)
        }
        #expect(state.startSeconds == 0.5)  // end − min
        expectInvariants(state)
    }
}
