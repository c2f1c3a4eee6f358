import PropertyBased
import Testing
import TimelineCore

@Suite struct SampleScheduleTests {
    @Test(arguments: [
        (0.5, 0.0, 2.0, [0, 0.5, 1, 1.5]),
        (0.5, 0.0, 2.1, [0, 0.5, 1, 1.5, 2]),
        (0.3, 1.0, 2.0, [1, 1.3, 1.6, 1 + 3 * 0.3]),  // span not a multiple of the spacing; from + i·spacing
        (1.002 / 7, 0.0, 1.002, (0..<7).map { Double($0) * (1.002 / 7) }),  // 7, not 6, and none at 1.002
        (7.0 / 3, 0.0, 35.0, (0..<15).map { Double($0) * (7.0 / 3) }),
        (5.0, 0.0, 1.002, [0]),
        (0.1, 0.0, 0.3, [0, 0.1, 0.2]),  // 3 × 0.1 = 0.30000000000000004: no sliver sample
    ] as [(Double, Double, Double, [Double])])
    func every(_ spacing: Double, _ from: Double, _ to: Double, _ expected: [Double]) async throws {
        let times = try SampleSchedule.every(spacingSeconds: spacing, from: from, to: to)
        #expect(times == expected)
        #expect(times.allSatisfy { $0 < to && $0 >= from })
    }

    @Test(arguments: [
        (1, 0.0, 1.002, [0.501]),
        (4, 0.0, 2.0, [0.25, 0.75, 1.25, 1.75]),
        (3, 10.0, 11.5, [10.25, 10.75, 11.25]),
    ] as [(Int, Double, Double, [Double])])
    func count(_ n: Int, _ from: Double, _ to: Double, _ expected: [Double]) async throws {
        #expect(try SampleSchedule.count(n, from: from, to: to) == expected)
    }

    @Test func invalidInputs() async {
        #expect(throws: SampleScheduleError.invalidSpacing(seconds: 0)) {
            try SampleSchedule.every(spacingSeconds: 0, from: 0, to: 1)
        }
        #expect(throws: SampleScheduleError.invalidSpacing(seconds: .nan)) {
            try SampleSchedule.every(spacingSeconds: .nan, from: 0, to: 1)
        }
        #expect(throws: SampleScheduleError.emptyInterval(fromSeconds: 1, toSeconds: 1)) {
            try SampleSchedule.every(spacingSeconds: 1, from: 1, to: 1)
        }
        #expect(throws: SampleScheduleError.invalidTo(seconds: .infinity)) {
            try SampleSchedule.count(3, from: 0, to: .infinity)
        }
        #expect(throws: SampleScheduleError.invalidFrom(seconds: .nan)) {
            try SampleSchedule.count(3, from: .nan, to: 1)
        }
        #expect(throws: SampleScheduleError.invalidCount(0)) { try SampleSchedule.count(0, from: 0, to: 1) }
        #expect(throws: SampleScheduleError.tooManySamples(count: 1000 / 1e-9, limit: 1_000_000)) {
            try SampleSchedule.every(spacingSeconds: 1e-9, from: 0, to: 1000)
        }
        #expect(throws: SampleScheduleError.tooManySamples(count: 2e6, limit: 1_000_000)) {
            try SampleSchedule.count(2_000_000, from: 0, to: 1)
        }
    }

    @Test func samplesAreInsideAndEvenlySpaced() async {
        await propertyCheck(
            count: 1000, input: Gen.double(in: 0...5000), Gen.double(in: 0.001...600), Gen.double(in: 0.001...60)
        ) { from, span, spacing in
            let to = from + span
            guard to > from, span / spacing < 1_000_000 else { return }
            guard let times = try? SampleSchedule.every(spacingSeconds: spacing, from: from, to: to) else {
                Issue.record("every failed")
                return
            }
            #expect(!times.isEmpty && times[0] == from)
            #expect(times.allSatisfy { $0 >= from && $0 < to })
            let expectedCount = (span / spacing).rounded(.up)
            #expect(abs(Double(times.count) - expectedCount) <= 1)
            if let last = times.last {
                // The next step would reach the end (up to noise): nothing was dropped.
                #expect(last + spacing >= to - spacing * 1e-6)
            }
            let centres = (try? SampleSchedule.count(7, from: from, to: to)) ?? []
            #expect(centres.count == 7 && centres.allSatisfy { $0 >= from && $0 < to })
            #expect(zip(centres, centres.dropFirst()).allSatisfy { $0 <= $1 })
        }
    }
}
