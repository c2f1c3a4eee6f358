import Foundation
import TestSupport
import Testing

/// The report's timing proof (`actual.frames`, `first_frame`, `last_frame`, `constant_rate`, `frame_rate`,
/// `audio_offset`), measured from the written packets, against ffprobe's decode of the same file.
struct ReportTimingTests {
    struct Case: Sendable, CustomStringConvertible {
        let file: String, mode: String, ext: String, constant: Bool
        var description: String { "\(file) \(mode) → \(ext)" }
    }

    static let cases = [
        Case(file: "h264-aac.mp4", mode: "smart", ext: "mp4", constant: true),
        Case(file: "h264-aac.mp4", mode: "exact", ext: "mkv", constant: true),
        Case(file: "hevc.mp4", mode: "copy", ext: "mov", constant: true),
        Case(file: "vp9-opus.webm", mode: "smart", ext: "webm", constant: true),
        Case(file: "h264-aac.ts", mode: "copy", ext: "ts", constant: true),
        Case(file: "vfr.mp4", mode: "copy", ext: "mp4", constant: false),
    ]

    @Test(arguments: cases)
    func reportProvesTheTiming(_ example: Case) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("out.\(example.ext)")
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture(example.file), "--start", "0.8", "--end", "1.9",
                                          "--mode", example.mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let actual = try #require(result.jsonLines.first?["actual"] as? [String: Any])
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                   "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output])
        let decoded = probe.stdoutLines.compactMap { Int($0.split(separator: ",").first ?? "") }.first
        #expect(actual["frames"] as? Int == decoded, "\(actual) vs ffprobe \(probe.stdout)")
        let times = try await Reference.frameTimes(output).sorted()
        let first = try #require(actual["first_frame"] as? Double), last = try #require(actual["last_frame"] as? Double)
        let start = try #require(actual["start"] as? Double)
        // On the source's timeline, as `start` is: the span between them is the decoded frames' span.
        #expect(abs(first - start) < 0.002, "\(actual)")
        #expect(abs((last - first) - ((times.last ?? 0) - (times.first ?? 0))) < 0.002, "\(actual) vs \(times.first ?? 0)…\(times.last ?? 0)")
        // Constant as the decoded frames' times say (within a tick: Matroska's is 1 ms). A smart WebM's re-encoded
        // head is not on the source's grid yet (the timing issue's slivers): the report must say so, not hide it.
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        let tick = ["mkv", "webm"].contains(example.ext) ? 0.0011 : 0.0001
        let constant = steps.count >= 2 && (steps.max() ?? 0) - (steps.min() ?? 0) <= tick
        #expect(example.constant || !constant, "\(example) was meant to be variable-rate")
        #expect(actual["constant_rate"] as? Bool == constant, "\(actual) vs steps \(steps)")
        #expect((actual["frame_rate"] as? String) == (constant ? "30/1" : nil), "\(actual)")
    }
}
