import Testing
import TimelineCore

/// VideoLine's demo: full-width 375 pt strip, 30×50 thumbnails, range (2, 5).
func demoConfiguration(duration: Double = 60) -> TimelineConfiguration {
    TimelineConfiguration(
        durationSeconds: duration, stripWidthPoints: 375, thumbnailWidthPoints: 30, thumbnailHeightPoints: 50)
}

func demoGeometry(duration: Double = 60) throws -> TimelineGeometry {
    try TimelineGeometry(configuration: demoConfiguration(duration: duration))
}

/// Every invariant the model promises, checked exactly (no tolerance) where the brief says "exactly".
func expectInvariants(_ state: TimelineState, sourceLocation: SourceLocation = #_sourceLocation) {
    let g = state.geometry
    let s = state.startSeconds
    let e = state.endSeconds
    let w = state.windowStartSeconds
    let d = g.durationSeconds
    #expect(s.isFinite && e.isFinite && w.isFinite, "non-finite state", sourceLocation: sourceLocation)
    #expect(w >= 0 && w <= g.maxWindowStartSeconds, "window \(w) outside [0, \(g.maxWindowStartSeconds)]",
            sourceLocation: sourceLocation)
    #expect(w <= s, "window \(w) after start \(s)", sourceLocation: sourceLocation)
    #expect(s >= 0, "start \(s) < 0", sourceLocation: sourceLocation)
    #expect(e <= d, "end \(e) > duration \(d)", sourceLocation: sourceLocation)
    #expect(e <= w + g.maxEffectiveSeconds, "end \(e) past window end", sourceLocation: sourceLocation)
    let length = e - s
    #expect(length >= g.minEffectiveSeconds, "length \(length) < min \(g.minEffectiveSeconds)",
            sourceLocation: sourceLocation)
    #expect(length <= g.maxEffectiveSeconds, "length \(length) > max \(g.maxEffectiveSeconds)",
            sourceLocation: sourceLocation)
    #expect(state.isConsistent, sourceLocation: sourceLocation)
    if !g.isAdjustable {
        #expect(s == 0 && e == d, "not adjustable but [\(s), \(e)]", sourceLocation: sourceLocation)
    }
    #expect(state.playheadSeconds >= 0 && state.playheadSeconds <= d, sourceLocation: sourceLocation)
    let playhead = state.playhead
    let selectionWidth = state.rightHandleMaxXPoints - state.leftHandleXPoints
    #expect(playhead.offsetPoints >= 0 && playhead.offsetPoints <= max(0, selectionWidth) + 1e-9 * g.windowWidthPoints,
            sourceLocation: sourceLocation)
    let layout = [state.leftHandleXPoints, state.rightHandleMaxXPoints, state.rightHandleMinXPoints,
                  state.contentOffsetPoints, playhead.offsetPoints, playhead.viewXPoints]
    #expect(layout.allSatisfy { $0.isFinite }, "non-finite layout \(layout)", sourceLocation: sourceLocation)
    // Handles stay in the window (up to rounding of the mapping).
    let slack = 1e-9 * g.windowWidthPoints
    #expect(state.leftHandleXPoints >= g.marginPoints - slack, sourceLocation: sourceLocation)
    #expect(state.rightHandleMaxXPoints <= g.marginPoints + g.windowWidthPoints + slack,
            sourceLocation: sourceLocation)
}

/// Every derived number of a geometry is finite and consistent.
func expectSaneGeometry(_ g: TimelineGeometry, sourceLocation: SourceLocation = #_sourceLocation) {
    let numbers = [g.maxEffectiveSeconds, g.minEffectiveSeconds, g.timeSpacingSeconds, g.secondsPerPoint,
                   g.marginPoints, g.windowWidthPoints, g.contentWidthPoints, g.maxWindowStartSeconds,
                   g.timeQuantumSeconds]
    #expect(numbers.allSatisfy { $0.isFinite }, "non-finite geometry \(numbers)", sourceLocation: sourceLocation)
    #expect(g.minCount >= 1, sourceLocation: sourceLocation)
    #expect(g.marginPoints >= 0, sourceLocation: sourceLocation)
    #expect(g.secondsPerPoint > 0 && g.timeSpacingSeconds > 0, sourceLocation: sourceLocation)
    #expect(g.thumbnailCount >= g.minCount, sourceLocation: sourceLocation)
    #expect(g.minEffectiveSeconds > 0 && g.minEffectiveSeconds <= g.maxEffectiveSeconds,
            sourceLocation: sourceLocation)
    #expect(g.maxEffectiveSeconds <= g.durationSeconds, sourceLocation: sourceLocation)
    let c = g.configuration
    let expectedMax = min(c.maxDurationSeconds, c.durationSeconds)
    let expectedMin = min(c.minDurationSeconds, expectedMax)
    #expect(abs(g.maxEffectiveSeconds - expectedMax) <= g.timeQuantumSeconds, sourceLocation: sourceLocation)
    #expect(abs(g.minEffectiveSeconds - expectedMin) <= g.timeQuantumSeconds, sourceLocation: sourceLocation)
    #expect(g.isAdjustable == (c.durationSeconds > c.minDurationSeconds), sourceLocation: sourceLocation)
    let cells = g.cells
    #expect(cells.count == g.thumbnailCount, sourceLocation: sourceLocation)
    if let first = cells.first, let last = cells.last {
        #expect(first.timeSeconds == 0 && first.xPoints == 0, sourceLocation: sourceLocation)
        #expect(last.sampleTimeSeconds < g.durationSeconds, "last sample \(last.sampleTimeSeconds) not inside",
                sourceLocation: sourceLocation)
        #expect(last.sampleTimeSeconds >= 0, sourceLocation: sourceLocation)
        #expect(last.widthPoints > 0, sourceLocation: sourceLocation)
        #expect(last.widthPoints <= c.thumbnailWidthPoints * (1 + 1e-6), sourceLocation: sourceLocation)
        let end = last.xPoints + last.widthPoints
        #expect(abs(end - g.contentWidthPoints) <= 1e-9 * g.contentWidthPoints, sourceLocation: sourceLocation)
    }
}

/// A double from a selector: mostly `fraction × scale`, sometimes a wild value.
func wildValue(_ selector: Int, _ fraction: Double, scale: Double) -> Double {
    switch selector {
    case 0: return .nan
    case 1: return .infinity
    case 2: return -.infinity
    case 3: return 1e300
    case 4: return -1e300
    case 5: return -0.0
    default: return fraction * scale
    }
}
