import Testing
import TimelineCore
@testable import VtrimKit

/// Every list format vtrim writes reads back to the same ranges (to half a frame where it counts frames);
/// a malformed list names its line.
struct CutListFormatTests {
    static let ranges = [
        ListRange(startSeconds: 0.5, endSeconds: 2.2, label: "Intro, part one"),
        ListRange(startSeconds: 2.8, endSeconds: 4.1, label: nil),
        ListRange(startSeconds: 61.25, endSeconds: 62.5, label: "Last \"shot\""),
    ]

    static func read(_ text: String, _ format: CutListFormat, media: ListMedia) throws -> [ListRange] {
        try CutLists.read(text, format: format, media: media).segments.map { segment in
            guard case let .seconds(start) = segment.start, case let .seconds(end)? = segment.end else {
                throw CutList.ParseError(line: 0, message: "not absolute")
            }
            return ListRange(startSeconds: start, endSeconds: end, label: segment.label)
        }
    }

    @Test(arguments: [CutListFormat.csv, .llc, .otio, .edl], [30.0, 30000.0 / 1001, 25.0])
    func roundTrips(_ format: CutListFormat, _ rate: Double) async throws {
        for timecode in [nil, "01:00:00:00"] {
            let media = ListMedia(path: "/media/Clip 1.mov", framesPerSecond: rate, durationSeconds: 120, startTimecode: timecode)
            let text = try CutLists.render(Self.ranges, format: format, media: media)
            let read = try Self.read(text, format, media: media)
            // EDL: whole frames at the nominal rate; the rest exactly.
            let tolerance = format == .edl ? 0.5 / rate + 1e-9 : 1e-6
            #expect(read.count == Self.ranges.count, "\(format): \(text)")
            for (got, want) in zip(read, Self.ranges) {
                #expect(abs(got.startSeconds - want.startSeconds) <= tolerance && abs(got.endSeconds - want.endSeconds) <= tolerance,
                        "\(format) \(rate) \(timecode ?? "-"): \(got) ≠ \(want)\n\(text)")
                #expect(got.label == want.label, "\(format): \(String(describing: got.label))")
            }
        }
    }

    /// Chapter text: contiguous ranges only, times m:ss (with a fraction where needed), each to the next.
    @Test func chapterTextRoundTripsContiguousRanges() async throws {
        let contiguous = [ListRange(startSeconds: 0, endSeconds: 62.5, label: "Intro"), ListRange(startSeconds: 62.5, endSeconds: 3700, label: "Main")]
        let text = try CutLists.render(contiguous, format: .chapters, media: ListMedia(path: "a.mp4", framesPerSecond: 30, durationSeconds: 3700))
        #expect(text == "0:00 Intro\n1:02.5 Main\n")
        let segments = try CutLists.read(text + "1:01:40 Credits\n", format: .chapters, media: nil).segments
        #expect(segments.map(\.label) == ["Intro", "Main", "Credits"])
        #expect(segments[1].end == .seconds(3700) && segments[2].end == .beforeEnd(0))
        #expect(throws: CutListError.self) {
            try CutLists.render(Self.ranges, format: .chapters, media: ListMedia(path: "a.mp4", framesPerSecond: 30, durationSeconds: 100))
        }
    }

    @Test(arguments: [
        (CutListFormat.chapters, "0:00 Intro\nnot a time\n", 2),
        (.chapters, "0:10 B\n0:05 A\n", 2),
        (.edl, "TITLE: x\n\n001  AX V C 00:00:02:00 00:00:01:00 00:00:00:00 00:00:01:00\n", 3),
        (.llc, "{cutSegments: [{start: 'x'}]}", 1),
        (.otio, "{\"OTIO_SCHEMA\": \"Timeline.1\"}", 1),
    ])
    func malformedListsNameTheLine(_ format: CutListFormat, _ text: String, _ line: Int) async {
        do {
            _ = try CutLists.read(text, format: format, media: ListMedia(path: "a.mp4", framesPerSecond: 30, durationSeconds: 10))
            Issue.record("read a malformed \(format) list")
        } catch {
            #expect(error.line == line, "\(error)")
        }
    }

    /// Lists written on Windows end their lines with CR LF (one Character in Swift, which a split on "\n" never
    /// finds): an EDL and chapter text read the same either way.
    @Test func windowsLineEndingsReadTheSame() async throws {
        let media = ListMedia(path: "clip.mp4", framesPerSecond: 25, durationSeconds: 60)
        let edl = "TITLE: x\nFCM: NON-DROP FRAME\n\n001  AX V C 00:00:01:00 00:00:02:12 00:00:00:00 00:00:01:12\n* FROM CLIP NAME: shot\n"
        let chapters = "0:00 Intro\n0:12 Main\n"
        for (text, format) in [(edl, CutListFormat.edl), (chapters, .chapters)] {
            let unix = try CutLists.read(text, format: format, media: media).segments
            let windows = try CutLists.read(text.replacingOccurrences(of: "\n", with: "\r\n"), format: format, media: media).segments
            #expect(!unix.isEmpty && unix == windows, "\(format): \(unix) vs \(windows)")
        }
    }
}
