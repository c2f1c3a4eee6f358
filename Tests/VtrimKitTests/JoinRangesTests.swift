import LibraryFiles
import Testing
import TimelineCore
@testable import VtrimKit

/// `--keep`/`--remove` ranges: `A..B` in any time syntax, checked for order while parsing where both sides
/// are absolute and after probing otherwise; `--remove` keeps the complement.
struct JoinRangesTests {
    @Test(arguments: [
        ("1..2.5", TimeSpec.seconds(1), TimeSpec.seconds(2.5)),
        ("1:02..end-5", .seconds(62), .beforeEnd(5)),
        ("..3", .seconds(0), .seconds(3)),
        ("2..", .seconds(2), .beforeEnd(0)),
    ])
    func parsesAnyTimeSyntax(_ text: String, _ start: TimeSpec, _ end: TimeSpec) async throws {
        let range = try #require(JoinRanges.parse(text))
        #expect(range.start == start && range.end == end)
    }

    @Test(arguments: ["1-2", "a..b", "1..2..3", ""])
    func refusesWhatIsNotARange(_ text: String) async {
        #expect(JoinRanges.parse(text) == nil)
    }

    @Test func orderIsCheckedWhereBothSidesAreAbsolute() async throws {
        let ranges = ["1..2", "2..3", "5..6"].compactMap(JoinRanges.parse)
        #expect(JoinRanges.orderProblem(ranges) == nil, "adjacent ranges are fine")
        #expect(JoinRanges.orderProblem(["3..4", "1..2"].compactMap(JoinRanges.parse))?.contains("time order") == true)
        #expect(JoinRanges.orderProblem(["1..3", "2..4"].compactMap(JoinRanges.parse))?.contains("overlap") == true)
        #expect(JoinRanges.orderProblem(["2..1"].compactMap(JoinRanges.parse))?.contains("empty") == true)
        // Relative to the end: known only after probing.
        #expect(JoinRanges.orderProblem(["1..end-1", "end-3..end"].compactMap(JoinRanges.parse)) == nil)
    }

    static func request() -> CutRequest {
        CutRequest(segments: [], mode: .exact, crf: 20, preset: "veryfast", minDurationSeconds: nil, maxDurationSeconds: nil, clamp: false,
                   output: OutputNamer(choice: .besideInput, template: nil), overwrite: false, dryRun: true, strict: false)
    }

    @Test func endRelativeRangesAreCheckedAfterProbing() async throws {
        let join = JoinRanges(ranges: ["1..end-1", "end-3..end"].compactMap(JoinRanges.parse), removes: false)
        #expect(throws: (any Error).self) { try join.resolve(request: Self.request(), durationSeconds: 10, path: "in.mp4") }
        let fine = JoinRanges(ranges: ["1..end-5", "end-3..end"].compactMap(JoinRanges.parse), removes: false)
        let ranges = try fine.resolve(request: Self.request(), durationSeconds: 10, path: "in.mp4")
        #expect(ranges.map(\.effectiveStart) == [1, 7] && ranges.map(\.effectiveEnd) == [5, 10])
    }

    @Test func removeKeepsTheComplement() async throws {
        let join = JoinRanges(ranges: ["0..1", "4..5", "9..end"].compactMap(JoinRanges.parse), removes: true)
        let ranges = try join.resolve(request: Self.request(), durationSeconds: 12, path: "in.mp4")
        #expect(ranges.map(\.effectiveStart) == [1, 5] && ranges.map(\.effectiveEnd) == [4, 9])
        let everything = JoinRanges(ranges: ["0..end"].compactMap(JoinRanges.parse), removes: true)
        #expect(throws: (any Error).self) { try everything.resolve(request: Self.request(), durationSeconds: 12, path: "in.mp4") }
    }
}
