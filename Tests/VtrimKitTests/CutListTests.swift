import Testing
@testable import VtrimKit

struct CutListTests {
    @Test func headerRowIsSkippedInAnyCase() async throws {
        for header in ["start,end,label", "Start,End,Label", "START,END"] {
            let segments = try CutList.parse("\(header)\n1,2.5,intro\n3,,rest\n")
            #expect(segments.count == 2, "\(header)")
            #expect(segments.first?.label == "intro")
        }
    }

    @Test func aBadRowNamesItsLine() async {
        do {
            _ = try CutList.parse("start,end,label\n1,2\nabc,4\n")
            Issue.record("a malformed row was accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.hasPrefix("line 3:"))
        }
    }

    /// Only the first row may be a header: "start,end" later is a malformed row.
    @Test func headerOnlyFirst() async {
        #expect(throws: CutList.ParseError.self) { try CutList.parse("1,2\nstart,end\n") }
    }

    /// RFC 4180 quoting, as LosslessCut writes labels: `""` inside quotes is one quote, commas inside
    /// quotes stay in the field.
    @Test(arguments: [
        ("a,b,c", ["a", "b", "c"]),
        ("1,2,\"a\"\"b\"", ["1", "2", "a\"b"]),
        ("1,2,\"x, y\"", ["1", "2", "x, y"]),
        ("1,2,\"\"\"quoted\"\"\"", ["1", "2", "\"quoted\""]),
        ("1,2,\"\"", ["1", "2", ""]),
        ("1,,", ["1", "", ""]),
    ])
    func csvFields(line: String, expected: [String]) async throws {
        #expect(try CutList.records(line).map(\.fields) == [expected])
    }

    /// A label with a line break (or a quote and a comma) is written quoted and read back as it was.
    @Test(arguments: ["two\nlines", "windows\r\nbreak", "a \"quoted\", comma", "trailing\n"])
    func labelsRoundTrip(label: String) async throws {
        let text = CutList.render([ListRange(startSeconds: 1, endSeconds: 2, label: label), ListRange(startSeconds: 3, endSeconds: 4, label: "next")])
        let segments = try CutList.parse(text)
        #expect(segments.map(\.label) == [label, "next"], "\(text)")
    }

    @Test func unclosedQuoteNamesItsLine() async {
        #expect(throws: CutList.ParseError.self) { try CutList.parse("1,2,a\n3,4,\"never closed\n5,6\n") }
    }

    @Test func quotedLabelWithEscapedQuote() async throws {
        let segments = try CutList.parse("1,2,\"the \"\"best\"\" part\"\n")
        #expect(segments.first?.label == "the \"best\" part")
    }
}
