#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PropertyBased
import Testing
import TimelineCore

/// C's printf, the reference for VideoLine's `String(format: "%.1f")`.
func printf(_ value: Double, fractionDigits: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 400)
    let count = buffer.count
    _ = withVaList([value]) { vsnprintf(&buffer, count, "%.\(fractionDigits)f", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite struct FormattingTests {
    @Test(arguments: [
        (4.9, "00:04"), (59.999, "00:59"), (0, "00:00"), (0.9, "00:00"), (3.0, "00:03"), (60, "01:00"),
        (179.99999999999997, "02:59"), (3599.999, "59:59"), (3600, "1:00:00"), (4500, "1:15:00"),
        (36_000 + 61.5, "10:01:01"), (-4.9, "-00:04"), (-0.5, "00:00"), (Double.nan, "--:--"),
        (Double.infinity, "--:--"), (1e300, "--:--"),
    ] as [(Double, String)])
    func clockLabels(_ seconds: Double, _ expected: String) async {
        #expect(TimeFormatting.clockLabel(seconds: seconds) == expected)
    }

    @Test(arguments: [
        (2.1, "2.1"), (3.0 - 0.9, "2.1"), (2.05, "2.0"), (0.25, "0.2"), (0.75, "0.8"), (0.35, "0.3"),
        (0.45, "0.5"), (2.0, "2.0"), (0.04, "0.0"), (-0.04, "-0.0"), (1e20, "100000000000000000000.0"),
        (Double.nan, "nan"), (-Double.infinity, "-inf"),
    ] as [(Double, String)])
    func durationLabelsArePrintfOnePointF(_ seconds: Double, _ expected: String) async {
        #expect(TimeFormatting.durationLabel(seconds: seconds) == expected)
    }

    @Test(arguments: [
        (12.5, "12.500"), (0.04, "0.040"), (1.001, "1.001"), (61.23, "61.230"), (0.0005, "0.001"),
        (0.0015, "0.002"), (2.0005, "2.001"), (0.125, "0.125"), (0.0625, "0.062"), (1e-300, "0.000"), (Double.leastNonzeroMagnitude, "0.000"),
    ] as [(Double, String)])
    func exactSecondsForScripts(_ seconds: Double, _ expected: String) async {
        #expect(TimeFormatting.exactSeconds(seconds) == expected)
    }

    @Test(arguments: [
        (4.9, "0:04.900"), (65.25, "1:05.250"), (3723.5, "1:02:03.500"), (59.9996, "1:00.000"),
        (0, "0:00.000"), (-1.5, "-0:01.500"), (Double.nan, "--:--"),
    ] as [(Double, String)])
    func preciseClock(_ seconds: Double, _ expected: String) async {
        #expect(TimeFormatting.preciseClock(seconds: seconds) == expected)
    }

    @Test func videoLineLabelInconsistencyIsKept() async {
        let labels = SelectionLabels(startSeconds: 0.9, endSeconds: 3.0)
        #expect(labels == SelectionLabels(startSeconds: 0.9, endSeconds: 3.0))
        #expect([labels.start, labels.end, labels.duration] == ["00:00", "00:03", "2.1"])
    }

    @Test func fixedMatchesPrintfOnEveryKindOfDouble() async {
        // Random bit patterns cover every exponent, subnormals and huge integers.
        await propertyCheck(count: 2000, input: Gen.uint64(), Gen.int(in: 0...3)) { bits, digits in
            let value = Double(bitPattern: bits)
            guard value.isFinite else { return }
            #expect(TimeFormatting.fixed(value, fractionDigits: digits) == printf(value, fractionDigits: digits))
        }
    }

    @Test func fixedMatchesPrintfOnDecimalLikeValues() async {
        // Values near ties: k/8 are exact ties at one decimal; k/1000 and k/20 are the usual suspects.
        await propertyCheck(count: 2000, input: Gen.int(in: -200_000...200_000), Gen.int(in: 0...4)) { k, kind in
            let divisors: [Double] = [8, 20, 1000, 10_000, 3]
            let value = Double(k) / divisors[kind]
            for digits in 0...3 {
                #expect(TimeFormatting.fixed(value, fractionDigits: digits) == printf(value, fractionDigits: digits))
            }
        }
    }

    @Test func preciseClockRoundTripsThroughTimeSpec() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...400_000_000)) { milliseconds in
            let seconds = Double(milliseconds) / 1000
            let text = TimeFormatting.preciseClock(seconds: seconds)
            #expect((try? TimeSpec(parsing: text)) == .seconds(seconds), "\(text)")
        }
    }
}
