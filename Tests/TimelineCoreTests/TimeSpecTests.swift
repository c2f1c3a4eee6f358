import PropertyBased
import Testing
import TimelineCore

@Suite struct TimeSpecTests {
    @Test(arguments: [
        ("12.5", TimeSpec.seconds(12.5)), ("0.040", .seconds(0.04)), ("0", .seconds(0)), ("007", .seconds(7)),
        ("1:05.250", .seconds(65.25)), ("1:05", .seconds(65)), ("0:00", .seconds(0)), ("90:00", .seconds(5400)),
        ("1:02:03.5", .seconds(3723.5)), ("0:00:01.001", .seconds(1.001)), ("10:00:00", .seconds(36_000)),
        ("12.3456789", .seconds(12.3456789)), ("0.1", .seconds(0.1)),
        ("end", .beforeEnd(0)), ("end-5", .beforeEnd(5)), ("end-1:30", .beforeEnd(90)), ("end-0.5", .beforeEnd(0.5)),
        ("end-1:00:00", .beforeEnd(3600)), ("1000000000", .seconds(1e9)),
    ])
    func validTimes(_ text: String, _ expected: TimeSpec) async throws {
        #expect(try TimeSpec(parsing: text) == expected)
    }

    @Test func decimalsAreTheNearestDouble() async throws {
        #expect(try TimeSpec(parsing: "0:00:01.001") == .seconds(1.001))
        #expect(try TimeSpec(parsing: "1:01.1") == .seconds(61.1))  // not 61 + 0.1 = 61.1 (same here) by luck
        #expect(try TimeSpec(parsing: "0:00:00.3") == .seconds(0.3))
        #expect(try TimeSpec(parsing: "2:00:00.000000000000000000001") == .seconds(7200))
    }

    @Test(arguments: [
        ("", TimeSpecError.empty),
        ("abc", .malformed("abc")), ("nan", .malformed("nan")), ("inf", .malformed("inf")),
        ("infinity", .malformed("infinity")), ("1e3", .malformed("1e3")), (" 5", .malformed(" 5")),
        ("5 ", .malformed("5 ")), ("+5", .malformed("+5")), ("12.", .malformed("12.")), (".5", .malformed(".5")),
        ("1.2.3", .malformed("1.2.3")), ("1:", .malformed("1:")), (":30", .malformed(":30")),
        ("1.5:30", .malformed("1.5:30")), ("end+5", .malformed("end+5")), ("end-", .malformed("end-")),
        ("END", .malformed("END")), ("endless", .malformed("endless")), ("end--5", .malformed("end--5")),
        ("١٢", .malformed("١٢")), ("-", .malformed("-")), ("-x", .malformed("-x")),
        ("-5", .negative("-5")), ("-1:30", .negative("-1:30")), ("-0", .negative("-0")),
        ("1:60", .fieldOutOfRange("1:60", field: .seconds, value: 60)),
        ("1:75.5", .fieldOutOfRange("1:75.5", field: .seconds, value: 75)),
        ("1:60:00", .fieldOutOfRange("1:60:00", field: .minutes, value: 60)),
        ("1:5", .fieldNeedsTwoDigits("1:5", field: .seconds)),
        ("1:5:00", .fieldNeedsTwoDigits("1:5:00", field: .minutes)),
        ("1:005", .fieldNeedsTwoDigits("1:005", field: .seconds)),
        ("1:02:03:04", .tooManyFields("1:02:03:04")),
        ("99999999999999999999999", .tooLarge("99999999999999999999999")),
        ("1000000001", .tooLarge("1000000001")), ("300000:00:00", .tooLarge("300000:00:00")),
    ])
    func invalidTimes(_ text: String, _ error: TimeSpecError) async {
        #expect(throws: error) { try TimeSpec(parsing: text) }
        #expect(!error.description.isEmpty)
    }

    @Test func messagesSayWhatToDo() async {
        #expect(TimeSpecError.negative("-5").description.contains("end-5"))
        #expect(TimeSpecError.malformed("abc").description.contains("m:ss(.fff)"))
        #expect(TimeSpecError.fieldOutOfRange("1:75", field: .seconds, value: 75).description
            == "'1:75' has seconds 75; seconds after a colon must be 00–59")
    }

    @Test func resolve() async throws {
        #expect(try TimeSpec(parsing: "end").resolve(durationSeconds: 61.23) == 61.23)
        #expect(try TimeSpec(parsing: "end-5").resolve(durationSeconds: 61.23) == 61.23 - 5)
        #expect(try TimeSpec(parsing: "end-1:30").resolve(durationSeconds: 100) == 10)
        #expect(try TimeSpec(parsing: "12.5").resolve(durationSeconds: 3) == 12.5)  // range checks come later
        // end-5 on a 3 s file: clamped to the start of the file, and reported.
        #expect(try TimeSpec(parsing: "end-5").resolve(durationSeconds: 3) == 0)
        #expect(try TimeSpec.beforeEnd(5).resolution(durationSeconds: 3)
            == TimeResolution(seconds: 0, wasClampedToStart: true))
        #expect(try TimeSpec.beforeEnd(1).resolution(durationSeconds: 3)
            == TimeResolution(seconds: 2, wasClampedToStart: false))
    }

    @Test(arguments: [Double.nan, .infinity, 0, -1])
    func resolveRejectsBadDurations(_ duration: Double) async {
        #expect(throws: TimeSpecError.invalidDuration(duration)) { try TimeSpec.beforeEnd(0).resolve(durationSeconds: duration) }
    }

    @Test func resolveRejectsBadHandBuiltValues() async {
        #expect(throws: TimeSpecError.invalidValue(.nan)) { try TimeSpec.seconds(.nan).resolve(durationSeconds: 3) }
        #expect(throws: TimeSpecError.invalidValue(-1)) { try TimeSpec.beforeEnd(-1).resolve(durationSeconds: 3) }
    }

    @Test func colonFormsAgreeWithTheirDecimal() async {
        await propertyCheck(
            count: 500, input: Gen.int(in: 0...99), Gen.int(in: 0...59), Gen.int(in: 0...59), Gen.int(in: 0...999)
        ) { h, m, s, ms in
            let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
            let fraction = String(1000 + ms).dropFirst()
            let text = "\(h):\(two(m)):\(two(s)).\(fraction)"
            let total = h * 3600 + m * 60 + s
            let expected = Double("\(total).\(fraction)") ?? .nan
            #expect((try? TimeSpec(parsing: text)) == .seconds(expected))
            #expect((try? TimeSpec(parsing: "end-" + text)) == .beforeEnd(expected))
            #expect((try? TimeSpec(parsing: "\(total).\(fraction)")) == .seconds(expected))
        }
    }

    @Test func garbageNeverTraps() async {
        let alphabet = Array("0123456789:.-end+ eEnaif")
        await propertyCheck(count: 2000, input: Gen.int(in: 0..<alphabet.count).array(of: 0...12)) { picks in
            let text = String(picks.map { alphabet[$0] })
            do {
                let spec = try TimeSpec(parsing: text)
                let resolved = try spec.resolve(durationSeconds: 100)
                #expect(resolved.isFinite && resolved >= 0, "\(text)")
            } catch {
                #expect((error as? TimeSpecError).map { !$0.description.isEmpty } == true)
            }
        }
    }
}
