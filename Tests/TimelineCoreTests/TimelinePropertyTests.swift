import PropertyBased
import Testing
import TimelineCore

/// A positive double spread over binary orders of magnitude: `significand × 2^exponent`.
func spread(_ exponent: Int, _ significand: Double) -> Double {
    Double(sign: .plus, exponent: exponent, significand: significand)
}

/// Durations 0.05…10 000 s: half log-spread, half on a millisecond grid (61.23, 1.002, …).
let durationGen = zip(Gen.bool, Gen.int(in: -5...13), Gen.double(in: 1..<2), Gen.int(in: 50...10_000_000))
    .map { onGrid, exponent, significand, milliseconds in
        onGrid ? Double(milliseconds) / 1000 : min(max(spread(exponent, significand), 0.05), 10_000)
    }

/// Selection ranges: nice values or spread ones, sometimes fixed (min == max).
let rangeGen = zip(Gen.int(in: 0...11), Gen.int(in: -4...6), Gen.double(in: 1..<2), Gen.double(in: 1...20))
    .map { pick, exponent, significand, factor -> (Double, Double) in
        let nice: [Double] = [0.05, 0.1, 0.2, 0.3, 1, 2, 2.5, 7]
        let minimum = pick < nice.count ? nice[pick] : min(max(spread(exponent, significand), 0.05), 100)
        let maximum = factor < 2.5 ? minimum : minimum * factor
        return (minimum, maximum)
    }

/// Valid configurations: strips 30…2000 pt holding 3.01…40 thumbnails, any handle width.
let configurationGen = zip(
    durationGen, rangeGen, Gen.double(in: 30...2000), Gen.double(in: 3.01...40), Gen.double(in: 1...300),
    Gen.double(in: 0...30)
).map { duration, range, width, slots, height, handle in
    TimelineConfiguration(
        durationSeconds: duration, stripWidthPoints: width, thumbnailWidthPoints: max(1, width / slots),
        thumbnailHeightPoints: height, minDurationSeconds: range.0, maxDurationSeconds: range.1,
        handleWidthPoints: handle)
}

/// One step of a random interaction: an operation kind and two (possibly wild) values.
let stepsGen = zip(
    Gen.int(in: 0...9), Gen.int(in: 0...11), Gen.double(in: -0.3...1.3), Gen.int(in: 0...11),
    Gen.double(in: -0.3...1.3)
).array(of: 1...60)

/// A wild-or-normal value for invalid-configuration tests.
let anyNumberGen = zip(Gen.int(in: 0...15), Gen.double(in: -1000...1000)).map { pick, value -> Double in
    let specials: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, -1, 1e300, -1e300, 1e-300, 0.5, 1, 3,
                              .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    return pick < specials.count ? specials[pick] : value
}

@Suite struct TimelinePropertyTests {
    @Test func randomOperationsKeepEveryInvariant() async {
        await propertyCheck(count: 400, input: configurationGen, stepsGen) { configuration, steps in
            let geometry: TimelineGeometry
            do {
                geometry = try TimelineGeometry(configuration: configuration)
            } catch {
                // The only acceptable refusal of these configurations: genuinely too many cells.
                guard case .tooManyThumbnails(let count, let limit)? = error as? TimelineError else {
                    Issue.record("valid configuration \(configuration) refused: \(error)")
                    return
                }
                #expect(count > Double(limit))
                return
            }
            expectSaneGeometry(geometry)
            runSteps(steps, on: geometry)
        }
    }

    @Test func invalidConfigurationsNeverTrap() async {
        await propertyCheck(
            count: 1000,
            input: anyNumberGen, anyNumberGen, anyNumberGen, anyNumberGen, anyNumberGen, anyNumberGen, anyNumberGen,
            stepsGen
        ) { duration, width, thumbWidth, thumbHeight, minimum, maximum, handle, steps in
            let configuration = TimelineConfiguration(
                durationSeconds: duration, stripWidthPoints: width, thumbnailWidthPoints: thumbWidth,
                thumbnailHeightPoints: thumbHeight, minDurationSeconds: minimum, maxDurationSeconds: maximum,
                handleWidthPoints: handle)
            do {
                let geometry = try TimelineGeometry(configuration: configuration)
                expectSaneGeometry(geometry)
                runSteps(steps, on: geometry)
            } catch {
                let message = (error as? TimelineError)?.description ?? ""
                #expect(!message.isEmpty)
            }
        }
    }

    @Test func cellsMatchTheSampleSchedule() async {
        await propertyCheck(count: 300, input: configurationGen) { configuration in
            guard let g = try? TimelineGeometry(configuration: configuration),
                g.thumbnailCount <= TimelineLimits.maximumSampleCount
            else { return }
            let schedule = try? SampleSchedule.every(
                spacingSeconds: g.timeSpacingSeconds, from: 0, to: g.durationSeconds)
            #expect(schedule?.count == g.thumbnailCount)
            if let schedule, let last = g.cells.last {
                #expect(schedule.last == last.sampleTimeSeconds)
                #expect(schedule.first == g.cells.first?.sampleTimeSeconds)
            }
        }
    }
}

/// Drives a session through `steps`, checking the invariants after every step and the event rules.
func runSteps(_ steps: [(Int, Int, Double, Int, Double)], on geometry: TimelineGeometry) {
    var session = TimelineSession(geometry: geometry)
    let d = geometry.durationSeconds
    let width = geometry.configuration.stripWidthPoints
    let q = geometry.timeQuantumSeconds
    let initial = TimelineEvent.changed(startSeconds: 0, endSeconds: geometry.maxEffectiveSeconds)
    #expect(session.announceInitialSelection() == [initial])
    var lastChanged: TimelineEvent? = initial
    var interacting = false
    var expectedEnds = 0
    var ends = 0
    for (kind, pick1, fraction1, pick2, fraction2) in steps {
        let before = session.state
        let seconds = wildValue(pick1, fraction1, scale: d)
        let points = wildValue(pick1, fraction1, scale: width)
        var stepEvents: [TimelineEvent] = []
        switch kind {
        case 0:
            stepEvents = session.perform(.moveLeftHandle(toSeconds: seconds))
            let e = before.endSeconds
            if geometry.isAdjustable, seconds.isFinite, seconds >= before.windowStartSeconds,
                e - seconds >= geometry.minEffectiveSeconds, e - seconds <= geometry.maxEffectiveSeconds {
                #expect(abs(session.state.startSeconds - seconds) <= 4 * q, "left handle did not reach \(seconds)")
            }
        case 1:
            stepEvents = session.perform(.dragLeftHandle(toViewXPoints: points))
        case 2:
            stepEvents = session.perform(.moveRightHandle(toSeconds: seconds))
            let s = before.startSeconds
            if geometry.isAdjustable, seconds.isFinite, seconds <= d,
                seconds <= before.windowStartSeconds + geometry.maxEffectiveSeconds,
                seconds - s >= geometry.minEffectiveSeconds, seconds - s <= geometry.maxEffectiveSeconds {
                #expect(abs(session.state.endSeconds - seconds) <= 4 * q, "right handle did not reach \(seconds)")
            }
        case 3:
            stepEvents = session.perform(.dragRightHandle(toViewXPoints: points))
        case 4:
            stepEvents = session.perform(.scroll(toWindowStartSeconds: seconds))
            if seconds.isFinite, seconds >= 0, seconds <= geometry.maxWindowStartSeconds {
                // Exact unless the limits force the time grid (a few quanta away).
                #expect(abs(session.state.windowStartSeconds - seconds) <= 4 * q)
            }
            let lengthChange = session.state.selectionDurationSeconds - before.selectionDurationSeconds
            #expect(abs(lengthChange) <= 4 * q, "scroll changed the length by \(lengthChange)")
        case 5:
            stepEvents = session.perform(.scrollContent(toOffsetPoints: wildValue(pick1, fraction1, scale: geometry.contentWidthPoints)))
        case 6:
            let end = wildValue(pick2, fraction2, scale: d)
            let result = session.setSelection(startSeconds: seconds, endSeconds: end)
            stepEvents = result.events
            let length = end - seconds
            if geometry.isAdjustable, seconds >= 0, end <= d,
                length >= geometry.minEffectiveSeconds, length <= geometry.maxEffectiveSeconds {
                #expect(result.notes.isEmpty)
                #expect(session.state.startSeconds == seconds && session.state.endSeconds == end,
                        "valid preset [\(seconds), \(end)] not kept")
            }
            if seconds.isNaN || end.isNaN { #expect(session.state == before) }
        case 7:
            stepEvents = session.perform(.setPlayhead(seconds: seconds))
            #expect(stepEvents.isEmpty)
        case 8:
            session.beginInteraction()
            interacting = true
        default:
            stepEvents = session.endInteraction()
            if interacting { expectedEnds += 1 }
            interacting = false
        }
        expectInvariants(session.state)
        // Event rules: changed only when the selection differs from the last one reported, and it
        // reports the current selection; ended once per interaction.
        let selectionMoved = session.state.startSeconds != before.startSeconds
            || session.state.endSeconds != before.endSeconds
        if kind < 8, !interacting, selectionMoved { expectedEnds += 1 }
        for event in stepEvents {
            switch event {
            case .changed(let s, let e):
                #expect(event != lastChanged, "duplicate changed event")
                #expect(s == session.state.startSeconds && e == session.state.endSeconds)
                lastChanged = event
            case .ended:
                ends += 1
            }
        }
    }
    #expect(ends == expectedEnds, "ended \(ends) times for \(expectedEnds) interactions")
}
