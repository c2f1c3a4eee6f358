import Foundation
import TestSupport
import Testing

/// Files claiming start times near Int64's limit in microseconds (a crafted or broken muxer): every
/// command ends with a result or a clean error naming the file, never a trap; no truncation is claimed.
@Suite(.serialized)
struct ExtremeTimestampTests {
    /// The 4 s fixture moved to start at `offsetSeconds` (9e12 s ≈ 9e18 µs; 9223372036000 s is within a
    /// second of Int64.max µs).
    static func shifted(_ folder: TemporaryFolder, offsetSeconds: String) async throws -> String {
        let path = folder.file("shifted-\(offsetSeconds).mkv")
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("h264-aac.mp4"), "-c", "copy",
                                          "-output_ts_offset", offsetSeconds, path])
        try #require(run.status == 0, "\(run.stderr)")
        return path
    }

    static func expectClean(_ result: RunResult, _ what: String) {
        // 0 or 1; a trap would be 132/133/134 (SIGILL/SIGTRAP/SIGABRT) or a negative status.
        #expect(result.status == 0 || result.status == 1, "\(what): \(result)")
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") }, "\(what): \(result.stderr)")
        if result.status == 1 { #expect(result.stderr.contains("error:"), "\(what): \(result.stderr)") }
    }

    @Test(arguments: ["9000000000000", "9223372036000"])
    func everyCommandEndsCleanly(offsetSeconds: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.shifted(folder, offsetSeconds: offsetSeconds)

        let probe = try await Run.vtrim(["probe", "--json", path])
        Self.expectClean(probe, "probe")
        let info = try #require(probe.jsonLines.first)
        // The Segment is whole: its Duration, counted from 0 as ffprobe's is, is not missing data.
        let duration = try #require(info["duration"] as? Double)
        let ffprobe = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        let expected = try #require(Double(ffprobe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(duration - expected) < 0.01, "\(info)")
        let codes = (info["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(!codes.contains("truncated"), "\(codes)")

        let thumbs = try await Run.vtrim(["thumbs", "--json", "--count", "4", "--height", "60", "-o", folder.file("t.png"), path])
        Self.expectClean(thumbs, "thumbs")
        for mode in ["copy", "keyframe", "exact", "smart"] {
            let cut = try await Run.vtrim(["cut", "--mode", mode, "--start", "1", "--end", "3", "-o", folder.file("\(mode).mkv"), path])
            Self.expectClean(cut, "cut --mode \(mode)")
            if cut.status != 0 {
                #expect(!FileManager.default.fileExists(atPath: folder.file("\(mode).mkv")))
            }
        }
        let timeline = try await Run.vtrim(["timeline", "--json", "--strip-width", "400", "--thumb-size", "48x27", path])
        Self.expectClean(timeline, "timeline")
    }
}
