import Testing
import TimelineCore

/// VideoLine's own numbers (timeline-anchors.md §1.2) and the cases where we deliberately differ.
@Suite struct GeometryGoldenTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        let width: Double
        let thumbWidth: Double
        let thumbHeight: Double
        let minCount: Int
        let margin: Double
        let timeSpacing: Double
        let secondsPerPoint: Double
        let minSpanPoints: Double
        var testDescription: String { "\(width) pt, \(thumbWidth)×\(thumbHeight)" }
    }

    static let goldens: [Golden] = [
        Golden(width: 375, thumbWidth: 30, thumbHeight: 50, minCount: 10, margin: 37.5, timeSpacing: 0.5,
               secondsPerPoint: 1.0 / 60, minSpanPoints: 120),
        Golden(width: 375, thumbWidth: 40, thumbHeight: 70, minCount: 7, margin: 47.5,
               timeSpacing: 0.714285714285714, secondsPerPoint: 0.017857142857142856, minSpanPoints: 112),
        Golden(width: 414, thumbWidth: 40, thumbHeight: 70, minCount: 8, margin: 47, timeSpacing: 0.625,
               secondsPerPoint: 0.015625, minSpanPoints: 128),
    ]

    @Test(arguments: goldens)
    func videoLineNumbers(_ golden: Golden) async throws {
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 60, stripWidthPoints: golden.width, thumbnailWidthPoints: golden.thumbWidth,
            thumbnailHeightPoints: golden.thumbHeight))
        #expect(g.minCount == golden.minCount)
        #expect(g.marginPoints == golden.margin)
        #expect(abs(g.timeSpacingSeconds - golden.timeSpacing) < 1e-12)
        #expect(abs(g.secondsPerPoint - golden.secondsPerPoint) < 1e-15)
        #expect(abs(g.minEffectiveSeconds / g.secondsPerPoint - golden.minSpanPoints) < 1e-9)
        #expect(g.maxEffectiveSeconds == 5 && g.minEffectiveSeconds == 2)
        // The window between the margins is exactly maxDuration seconds wide.
        #expect(g.windowWidthPoints == golden.width - 2 * golden.margin)
        #expect(abs(g.windowWidthPoints * g.secondsPerPoint - 5) < 1e-12)
        expectSaneGeometry(g)
    }

    @Test func demoSecondsPerPointIsExactlyOneSixtieth() async throws {
        #expect(try demoGeometry().secondsPerPoint == 1.0 / 60)
        #expect(try demoGeometry().timeSpacingSeconds == 0.5)
    }

    @Test func minCountFloorsRealValuesUnlikeVideoLine() async throws {
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 60, stripWidthPoints: 375, thumbnailWidthPoints: 37.9, thumbnailHeightPoints: 50))
        #expect(g.minCount == 7)  // floor(375 / 37.9) − 2 = 9 − 2
        // VideoLine truncates both before dividing (Int(375) / Int(37.9) − 2 = 8): one cell more than fits.
        let videoLine = Int(g.configuration.stripWidthPoints) / Int(g.configuration.thumbnailWidthPoints) - 2
        #expect(g.minCount == videoLine - 1)
        #expect(Double(g.minCount + 2) * g.configuration.thumbnailWidthPoints <= g.configuration.stripWidthPoints)
        #expect(g.marginPoints >= 0)
        expectSaneGeometry(g)
    }

    @Test func oneSecondClipKeepsAllSevenCells() async throws {
        // VideoLine: Int(1.002 / (1.002 / 7)) = Int(6.999999999999999) = 6 cells.
        let d = 1.002
        #expect(Int(d / (d / 7)) == 6)
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: d, stripWidthPoints: 375, thumbnailWidthPoints: 40, thumbnailHeightPoints: 70))
        #expect(g.minCount == 7)
        #expect(g.maxEffectiveSeconds == d)
        #expect(g.thumbnailCount == 7)
        expectSaneGeometry(g)
    }

    @Test func exactMultipleKeepsItsLastCell() async throws {
        // max 7 s, minCount 3, 35 s: VideoLine's Int(35 / (7/3)) = 14.
        #expect(Int(35 / (7.0 / 3)) == 14)
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 35, stripWidthPoints: 200, thumbnailWidthPoints: 40, thumbnailHeightPoints: 70,
            minDurationSeconds: 2, maxDurationSeconds: 7))
        #expect(g.minCount == 3)
        #expect(g.thumbnailCount == 15)
        #expect(g.cells.last?.widthPoints == 40 || abs((g.cells.last?.widthPoints ?? 0) - 40) < 1e-9)
        expectSaneGeometry(g)
    }

    @Test func tailIsReachable() async throws {
        let g = try demoGeometry(duration: 61.23)
        #expect(g.thumbnailCount == 123)
        let last = try #require(g.cells.last)
        #expect(last.index == 122 && last.timeSeconds == 61)
        #expect(abs(last.widthPoints - 0.23 / g.secondsPerPoint) < 1e-9)
        #expect(last.sampleTimeSeconds < 61.23)
        #expect(abs(g.contentWidthPoints - 61.23 * 60) < 1e-9)

        var state = TimelineState(geometry: g)
        state.scroll(toWindowStartSeconds: .infinity)
        #expect(state.windowStartSeconds == g.maxWindowStartSeconds)
        state.moveRightHandle(toViewXPoints: g.configuration.stripWidthPoints - g.marginPoints)
        #expect(state.endSeconds == 61.23)
        state.moveRightHandle(toSeconds: 0)
        state.moveRightHandle(toSeconds: .infinity)
        #expect(state.endSeconds == 61.23)
        expectInvariants(state)
    }

    @Test func cellsSampleAtTheirLeftEdges() async throws {
        let g = try demoGeometry(duration: 1.75)
        // maxEffective 1.75 → spacing 0.175, 10 cells; the last is full.
        #expect(g.thumbnailCount == 10)
        let cells = Array(g.cells)
        #expect(cells.map(\.index) == Array(0..<10))
        for cell in cells {
            #expect(cell.sampleTimeSeconds == cell.timeSeconds)
            #expect(cell.xPoints == Double(cell.index) * 30)
        }
        #expect(g.cells.cell(at: 10) == nil)
        #expect(g.cells.cell(at: -1) == nil)
        #expect(g.cells[99] == g.cells[9])  // clamped, not a trap
    }

    @Test func cellsAgreeWithSampleSchedule() async throws {
        for d in [61.23, 1.002, 35.0, 0.5, 12.345, 3600.5] {
            let g = try demoGeometry(duration: d)
            let schedule = try SampleSchedule.every(spacingSeconds: g.timeSpacingSeconds, from: 0, to: d)
            #expect(schedule == g.cells.map(\.sampleTimeSeconds), "duration \(d)")
        }
    }

    @Test func clipShorterThanMaxFillsTheWindow() async throws {
        let g = try demoGeometry(duration: 3)
        #expect(g.maxEffectiveSeconds == 3)
        #expect(g.minEffectiveSeconds == 2)
        #expect(g.isAdjustable)
        #expect(g.thumbnailCount == 10)
        #expect(g.maxWindowStartSeconds == 0)
        #expect(abs(g.contentWidthPoints - g.windowWidthPoints) < 1e-9)
    }

    @Test func handleOverlapFlag() async throws {
        let wide = try demoGeometry()
        #expect(!wide.handlesOverlapAtMinimumSelection)  // 120 pt ≥ 20 pt
        let g = try TimelineGeometry(configuration: TimelineConfiguration(
            durationSeconds: 600, stripWidthPoints: 375, thumbnailWidthPoints: 40, thumbnailHeightPoints: 70,
            minDurationSeconds: 1, maxDurationSeconds: 60))
        #expect(abs(g.minEffectiveSeconds / g.secondsPerPoint - 4.666666) < 1e-5)  // §1.3 item 11
        #expect(g.handlesOverlapAtMinimumSelection)
    }
}
