import Foundation
import MediaEngine
import TestSupport
import Testing

/// The command line speaks with one voice: a value that cannot be read says why and how to write it, every error
/// known before a file is read is a usage error (exit 64), and a file that is no media says so.
struct CommandLineVoiceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// Words the one-line error must hold.
        let says: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let syntax = "12.5), m:ss(.fff) (1:05.250), h:mm:ss(.fff) (1:02:03.5), end, or end-S"

    static let cases: [Case] = [
        Case(arguments: ["cut", "--start", "1:75", "--end", "2"], says: ["1:75", "seconds 75", "00–59"]),
        Case(arguments: ["cut", "--start", "abc", "--end", "2"], says: ["'abc' is not a time", syntax]),
        Case(arguments: ["cut", "--start", "-3", "--end", "2"], says: ["'-3' is negative", "end-S"]),
        Case(arguments: ["cut", "--start=-3", "--end", "2"], says: ["'-3' is negative"]),
        Case(arguments: ["cut", "--start", "1", "--end", "1:2:3:4"], says: ["too many colon fields"]),
        Case(arguments: ["cut", "--start", "10", "--end", "5"], says: ["is empty", "--end must be after --start"]),
        Case(arguments: ["cut", "--start", "end-2", "--end", "end-5"], says: ["is empty"]),
        Case(arguments: ["cut", "--start", "1", "--length", "0"], says: ["no length"]),
        Case(arguments: ["cut", "--start", "1", "--end", "2", "--min-duration", "5"], says: ["shorter than --min-duration"]),
        Case(arguments: ["cut", "--keep", "abc..5"], says: ["--keep abc..5", "its start", syntax]),
        Case(arguments: ["cut", "--keep", "5..3"], says: ["5..3 is empty"]),
        Case(arguments: ["cut", "--start", "1", "--end", "2", "-o", "/tmp/vtrim-voice.xyz"], says: ["cuts are written as", ".xyz"]),
        Case(arguments: ["thumbs", "--every", "end-1"], says: ["counts from the end"]),
        Case(arguments: ["thumbs", "--start", "1:2:3:4"], says: ["too many colon fields"]),
        Case(arguments: ["timeline", "--duration", "abc", "--strip-width", "375", "--thumb-size", "30x50"], says: ["'abc' is not a time"]),
    ]

    /// Exit 64 before any file is read, with the reason and (for times) the syntax, on one line.
    @Test(arguments: cases)
    func usageErrorsSayWhyAndExit64(_ example: Case) async throws {
        let input = TestPaths.fixture("h264-aac.mp4")
        let arguments = Array(example.arguments.prefix(1)) + [input] + example.arguments.dropFirst()
        let result = try await Run.vtrim(arguments + ["--dry-run"].filter { _ in example.arguments[0] != "timeline" })
        #expect(result.status == 64, "\(result)")
        let error = result.stderrLines.first { $0.hasPrefix("Error:") } ?? ""
        for words in example.says { #expect(error.contains(words), "\(error) lacks \(words)") }
    }

    /// A text file named .mp4 is no media at all — not a damaged MP4 — and says so.
    @Test func aTextFileNamedMP4IsNotMedia() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("notes.mp4")
        try "a shopping list, not a film\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await Run.vtrim(["probe", "--json", path])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "not_media")
        #expect((error["message"] as? String)?.hasPrefix("not a media file") == true, "\(error)")
        // A real MP4 cut short before its index (it sits at the end) is still called damaged.
        let cut = folder.file("cut-short.mp4")
        try Data(try #require(FileManager.default.contents(atPath: TestPaths.fixture("h264-aac.mp4"))).prefix(4000)).write(to: URL(fileURLWithPath: cut))
        let truncated = try await Run.vtrim(["probe", "--json", cut])
        let damaged = try #require(truncated.jsonLines.first?["error"] as? [String: Any])
        #expect(damaged["code"] as? String == "not_media" && (damaged["message"] as? String)?.hasPrefix("damaged or truncated") == true, "\(truncated)")
    }

    /// Folders contribute every extension FFmpeg reads as video: an MPEG-2 elementary stream (.m2v) among them.
    @Test func recursiveWalksElementaryStreams() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let made = try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("h264-aac.mp4"), "-t", "1", "-an", "-c:v", "mpeg2video",
                                           "-f", "mpeg2video", folder.file("clip.m2v")])
        try #require(made.status == 0, "\(made)")
        let result = try await Run.vtrim(["probe", "-r", "--json", folder.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.compactMap { $0["path"] as? String }.map { ($0 as NSString).lastPathComponent } == ["clip.m2v"])
    }

    /// A join names no mode: smart wherever smart cuts are written for its video (H.264 into 3GP, MOV, Matroska,
    /// MPEG-TS; VP9 into WebM); elsewhere copy (or exact where the container cannot hold the video) with the reason.
    @Test(arguments: [("h264-aac.mp4", "3gp", "smart"), ("h264-aac.mp4", "mov", "smart"), ("h264-aac.mp4", "mkv", "smart"),
                      ("h264-aac.mp4", "ts", "smart"), ("vp9-opus.webm", "webm", "smart"), ("h264-aac.mp4", "avi", "copy"),
                      ("h264-aac.mp4", "webm", "exact")])
    func aJoinIsSmartWhereSmartIsAvailable(file: String, ext: String, mode: String) async throws {
        let result = try await Run.vtrim(["cut", "--json", "--dry-run", TestPaths.fixture(file), "--keep", "0.5..1.5", "--keep", "2..3",
                                    "-o", "/tmp/vtrim-default-mode.\(ext)"])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        // The mode the rule chose (smart may still fall back to exact for these ranges, with its own warning).
        #expect(report["requested_mode"] as? String == mode, "\(report)")
        let unavailable = report.messages("notes").filter { $0.hasPrefix("not smart") }
        #expect(unavailable.isEmpty == (mode == "smart"), "\(report.messages("notes"))")
        if mode != "smart" { #expect(unavailable.first?.contains(ext == "avi" ? "avi" : "webm") == true, "\(unavailable)") }
    }

    /// `--mode`'s help (and so the man page, made from it) states the rule the planner follows, not a list of its own.
    @Test func helpStatesTheSmartRule() async throws {
        let result = try await Run.vtrim(["cut", "--help"])
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(words(result.stdout).contains(words(EditDefaults.smartSummary)), "\(result.stdout)")
        #expect(EditDefaults.smartSummary.contains("H.264 and HEVC into .mp4"), "\(EditDefaults.smartSummary)")
    }
}
