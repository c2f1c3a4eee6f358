import CAV
@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// Every MediaEngine function that takes a number a file can hold — time bases, timestamps, sizes, aspect ratios,
/// cue times, thread counts — gives a value for every input and never traps (a trap ends the run, failing it).
@Suite struct MediaEngineNumericPropertyTests {
    static let int32 = zip(Gen.bool, Gen.element(of: [Int32(0), 1, -1, .min, .max, 1000, 90_000, 1001]), Gen.int32())
        .map { special, value, any in special ? value ?? 0 : any }

    @Test func rescalingSaturatesInsteadOfTrapping() async {
        await propertyCheck(count: 500, input: Wild.int64, Wild.int, Wild.int, Wild.int, Wild.int, Gen.bool) { value, a, b, c, d, down in
            let result = Rescale.ticks(value, from: Rational(a, b), to: Rational(c, d), roundingDown: down)
            if a == c, b == d, b > 0, a > 0 { #expect(result == value) }
            if let expected = Self.reference(value, from: (a, b), to: (c, d), roundingDown: down) { #expect(result == expected) }
        }
    }

    /// Large timestamps between equal or near-equal time bases keep their low bits (CI found 2⁵³ + 1 in 4294967295/1
    /// coming back as 2⁵³ when the product went through a Double).
    @Test(arguments: [(Int64(9_007_199_254_740_993), 4_294_967_295, 1, 4_294_967_295, 1), (.max, 1, 90_000, 1, 90_000),
                      (.min, 1, 48_000, 1, 48_000), (.max - 1, 1001, 30_000, 1001, 30_000), (-9_007_199_254_740_993, 3, 7, 6, 14)])
    func largeTimestampsConvertExactly(value: Int64, a: Int, b: Int, c: Int, d: Int) {
        for down in [false, true] {
            #expect(Rescale.ticks(value, from: Rational(a, b), to: Rational(c, d), roundingDown: down) == value)
        }
    }

    /// The conversion worked at 128 bits: nearest rounds half away from zero, down towards −∞, saturating; nil where the
    /// time bases are not both positive and representable (the function then returns the value unchanged).
    static func reference(_ value: Int64, from: (Int, Int), to: (Int, Int), roundingDown: Bool) -> Int64? {
        let numerator = Int128(from.0) * Int128(to.1), denominator = Int128(from.1) * Int128(to.0)
        guard numerator > 0, denominator > 0, numerator <= Int128(Int64.max), denominator <= Int128(Int64.max) else { return nil }
        let product = Int128(value) * numerator
        var (quotient, remainder) = product.quotientAndRemainder(dividingBy: denominator)
        if remainder != 0 {
            if roundingDown { if product < 0 { quotient -= 1 } }
            else if remainder.magnitude * 2 >= denominator.magnitude { quotient += product > 0 ? 1 : -1 }
        }
        return Int64(clamping: quotient)
    }

    @Test func saturatingArithmeticStaysInRange() async {
        await propertyCheck(count: 500, input: Wild.int64, Wild.int64) { a, b in
            let sum = a.plus(b), difference = a.minus(b)
            let exact = a.addingReportingOverflow(b)
            #expect(exact.overflow || sum == exact.partialValue)
            #expect(a.subtractingReportingOverflow(b).overflow || difference == a &- b)
            let product = a.multipliedReportingOverflow(by: b)
            #expect(a.times(b) == (product.overflow ? ((a < 0) == (b < 0) ? .max : .min) : product.partialValue), "\(a) × \(b)")
        }
    }

    @Test func secondsToMicrosecondsIsNilOrExact() async {
        await propertyCheck(count: 500, input: Wild.double) { seconds in
            if let micro = Micro.from(seconds: seconds) { #expect(abs(Micro.seconds(micro) - seconds) <= max(1e-6, abs(seconds) * 1e-12)) }
            #expect(!Words.seconds(seconds).isEmpty)
        }
    }

    @Test func streamTicksTakeAnyTimeBase() async {
        await propertyCheck(count: 500, input: Wild.int64, Self.int32, Self.int32) { micro, num, den in
            // A range's start rounds down and its end up (each within half a µs): a range of a µs or more never gives an
            // end before its start, whatever the time base.
            let base = AVRational(num: num, den: den), later = micro.plus(1)
            if later > micro { #expect(StreamTime.startTicks(micro, base) <= StreamTime.endTicks(later, base), "\(micro) µs in \(num)/\(den)") }
        }
    }

    @Test func displaySizesAreBounded() async {
        await propertyCheck(count: 500, input: Wild.int, Wild.int, Wild.int, Wild.int, Gen.bool) { width, height, sarNum, sarDen, swaps in
            let size = DisplaySize.resolve(codedWidth: width, codedHeight: height, sar: (sarNum, sarDen), swapsDimensions: swaps)
            #expect((1...DisplaySize.maximumSidePixels).contains(size.width) && (1...DisplaySize.maximumSidePixels).contains(size.height))
        }
    }

    /// Derived decode times never pass their presentation time, whatever the delay and durations.
    @Test func derivedDecodeTimesComeBeforeTheirFrames() async {
        await propertyCheck(count: 300, input: Wild.int, zip(Gen.int64(in: -1_000_000...1_000_000), Gen.int64(in: 0...10_000)).array(of: 1...40),
                            Wild.int64, Wild.int64) { delay, frames, pts, duration in
            var fill = DecodeTimeFill(delay: delay)
            for (time, length) in frames { #expect(fill.decodeTime(pts: time, duration: length) <= time) }
            #expect(fill.decodeTime(pts: pts, duration: duration) <= pts, "\(pts) lasting \(duration) after \(frames.count) frames")
        }
    }

    @Test func cuesAreClippedIntoTheirWindow() async {
        await propertyCheck(count: 500, input: Wild.int64, Wild.int64, Wild.int64, Wild.int64) { start, end, windowStart, windowEnd in
            guard let cue = SubtitleCue.clip(startMicro: start, endMicro: end, windowStartMicro: windowStart, windowEndMicro: windowEnd) else { return }
            #expect(cue.startMicro <= cue.endMicro)
            if windowEnd > windowStart, windowEnd.minus(windowStart) < .max { #expect(cue.endMicro <= windowEnd.minus(windowStart)) }
        }
    }

    @Test func threadSharesAreAtLeastOne() async {
        await propertyCheck(count: 300, input: Wild.int, Wild.int) { cores, jobs in
            let share = ThreadBudget.share(cores: cores, jobs: jobs)
            #expect(share.decoder >= 1 && share.encoder >= 1)
        }
    }
}

/// Joins planned over random streams (GOP lengths, B-frame runs, reorder delays, open GOPs), random ordered range
/// sets, every mode, with and without edit lists: the plan is made or refused with a typed error, its ranges never
/// overlap on the output, and for copies decode times rise across every seam.
@Suite struct EditPlanPropertyTests {
    /// Frames in GOPs of `length` with `bframes` B-frames between anchors, decode times `delay` frames early.
    static func stream(gops: Int, length: Int, bframes: Int, delay: Int, open: Bool) -> [VideoPacket] {
        var order: [(Int, Bool)] = []
        for gop in 0..<gops {
            let base = gop * length
            order.append((base, true))
            var next = 1
            while next < length {
                let anchor = min(next + bframes, length - 1)
                order.append((base + anchor, false))
                for b in next..<anchor { order.append((base + b, false)) }
                next = anchor + 1
            }
        }
        return order.enumerated().map { position, entry in
            let clean = entry.1 && (!open || entry.0 == 0)
            return VideoPacket(pts: Int64(entry.0) * 40, dts: Int64(position - delay) * 40, duration: 40, isKeyframe: entry.1, isClean: clean)
        }
    }

    static let layout = zip(Gen.int(in: 2...6), Gen.int(in: 2...24), Gen.int(in: 0...3), Gen.int(in: 0...2), Gen.bool)
    /// 1–4 ordered ranges (ms): cut points picked from the stream's span, some touching.
    static let cuts = Gen.int(in: 0...5000).array(of: 2...8)
    static let modes = Gen.element(of: [CutMode.copy, .keyframe, .exact, .smart]).map { $0 ?? .copy }
    static let containers = Gen.element(of: [Container.mp4, .mkv]).map { $0 ?? .mp4 }

    @Test func joinsNeverOverlapAndDecodeInOrder() async {
        await propertyCheck(count: 400, input: Self.layout, Self.cuts, Self.modes, Self.containers) { layout, cuts, mode, container in
            let (gops, length, bframes, extraDelay, open) = layout
            let delay = bframes > 0 ? 1 + extraDelay : extraDelay
            let packets = Self.stream(gops: gops, length: length, bframes: bframes, delay: delay, open: open)
            let total = Int64(gops * length) * 40
            let points = Array(Set(cuts.map { Int64($0) % max(1, total) })).sorted()
            var ranges: [(Int64, Int64)] = []
            for pair in stride(from: 0, to: points.count - 1, by: 2) where points[pair + 1] > points[pair] {
                ranges.append((points[pair], points[pair + 1]))
            }
            guard !ranges.isEmpty else { return }
            let plans: [(CutFacts, RangeDraft)]
            do {
                plans = try ranges.map { range in
                    let facts = syntheticFacts(packets, start: range.0, end: range.1, mode: mode, container: container)
                    return (facts, try RangePlanner.plan(facts, joins: ranges.count > 1))
                }
            } catch {
                return  // A typed refusal.
            }
            let decision: EditPlanner.Decision
            do { decision = try EditPlannerTests.join(plans) } catch { return }
            guard case let .plan(plan) = decision else { return }
            for (index, range) in plan.ranges.enumerated() {
                #expect(range.durationMicro >= 0, "range \(index + 1): \(range.durationMicro) µs")
                if index > 0 {
                    let previous = plan.ranges[index - 1]
                    #expect(range.outputStartMicro >= previous.outputStartMicro.plus(previous.durationMicro),
                            "ranges \(index) and \(index + 1) overlap on the output: \(ranges) \(mode) \(container) \(layout)")
                }
            }
            guard plan.output.mode == .copy || plan.output.mode == .keyframe, plan.ranges.count > 1 else { return }
            for index in plan.ranges.indices.dropFirst() {
                guard let before = plan.ranges[index - 1].video, let after = plan.ranges[index].video else { continue }
                let lastDecode = before.output(before.lastNeeded.dts)
                let firstDecode = after.output(after.keyframeDecodeTime(decodeDelayFrames: plan.output.video?.decodeDelayFrames ?? 0))
                #expect(firstDecode > lastDecode, "decode times go back at seam \(index): \(lastDecode) then \(firstDecode); \(ranges) \(mode) \(container) \(layout)")
            }
        }
    }

    /// Every edge value (Int64's and Double's extremes, NaN, infinities, zeros) through the functions that take a
    /// file's numbers, in a process of its own: a trap there fails this test — its exit is a signal — not the whole run.
    @Test func edgeValuesNeverTrap() async {
        await #expect(processExitsWith: .success) {
            let bases = [Rational(1, 1000), Rational(1001, 30000), Rational(0, 0), Rational(-1, 1), Rational(Int(Int32.max), 1), Rational(1, Int(Int32.min))]
            for a in Wild.specialInt64s {
                for b in Wild.specialInt64s {
                    _ = (a.plus(b), a.minus(b), a.times(b))
                    _ = SubtitleCue.clip(startMicro: a, endMicro: b, windowStartMicro: b, windowEndMicro: a)
                    _ = DisplaySize.resolve(codedWidth: Int(a), codedHeight: Int(b), sar: (Int(b), Int(a)), swapsDimensions: a < b)
                    _ = ThreadBudget.share(cores: Int(a), jobs: Int(b))
                }
                for from in bases {
                    for to in bases { _ = Rescale.ticks(a, from: from, to: to, roundingDown: a < 0) }
                    let base = AVRational(num: Int32(clamping: from.numerator), den: Int32(clamping: from.denominator))
                    _ = (StreamTime.startTicks(a, base), StreamTime.endTicks(a, base))
                }
                var fill = DecodeTimeFill(delay: Int(truncatingIfNeeded: a))
                for b in Wild.specialInt64s { _ = fill.decodeTime(pts: a, duration: b) }
            }
            for value in Wild.specialDoubles { _ = (Micro.from(seconds: value), Words.seconds(value)) }
        }
    }
}
