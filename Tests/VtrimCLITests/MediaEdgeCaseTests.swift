import Foundation
import MediaEngine
import TestSupport
import Testing

/// Inputs made at test time with the ffmpeg CLI for cases the committed fixtures do not cover:
/// colour matrices, 10-bit HDR, metadata and data tracks, a stream that does not start on a keyframe.
struct MediaEdgeCaseTests {
    static func make(_ folder: TemporaryFolder, _ name: String, _ arguments: [String]) async throws -> String {
        let path = folder.file(name)
        let result = try await Run.tool("ffmpeg", ["-v", "error", "-y"] + arguments + [path])
        try #require(result.status == 0, "\(result.stderr)")
        return path
    }

    /// An HD clip tagged BT.709 of one known colour: the thumbnail has that colour (decoding it with
    /// swscale's BT.601 default would shift it visibly).
    @Test func hdColoursUseBT709() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.make(folder, "hd709.mp4", [
            "-f", "lavfi", "-i", "color=c=0x3080C0:size=1280x720:rate=30", "-t", "1",
            "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"])
        let result = try await Run.vtrim(["thumbs", input, "--count", "1", "--height", "90", "-o", folder.file("t.png")])
        #expect(result.status == 0, "\(result)")
        let mean = try PNGFile.read(folder.file("t.png")).meanColor(x: 10, y: 10, width: 100, height: 70)
        #expect(abs(mean.r - 0x30) < 6 && abs(mean.g - 0x80) < 6 && abs(mean.b - 0xC0) < 6, "\(mean)")
    }

    @Test func tenBitHLGIsToneMappedOrWarnedAbout() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.make(folder, "hlg10.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1", "-c:v", "libx265", "-pix_fmt", "yuv420p10le",
            "-x265-params", "log-level=error", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"])
        let mapped = try await Run.vtrim(["thumbs", "--json", input, "--count", "2", "-o", folder.file("m.png")])
        #expect(mapped.status == 0 && mapped.jsonLines.first?["tone_mapped"] as? Bool == true, "\(mapped)")
        let result = try await Run.vtrim(["thumbs", "--json", input, "--count", "2", "--no-tonemap", "-o", folder.file("t.png")])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect((object["warnings"] as? [[String: Any]])?.first?["code"] as? String == "hdr_not_tone_mapped")
        let probe = try #require(try await Run.vtrim(["probe", "--json", input]).jsonLines.first?["video"] as? [String: Any])
        #expect(probe["bit_depth"] as? Int == 10)
        #expect(try PNGFile.read(folder.file("t.png")).width == 240)
    }

    /// Creation time, language and handler survive a copy cut; the timecode track is written afresh, starting at
    /// the timecode of the first kept frame (it was left out with a note before).
    @Test func metadataKeptAndTimecodeRestarted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.make(folder, "tagged.mov", [
            "-i", TestPaths.fixture("h264-aac.mp4"), "-c", "copy", "-timecode", "01:00:00:00",
            "-metadata", "creation_time=2024-05-06T07:08:09Z", "-metadata:s:a:0", "language=fra",
            "-metadata:s:v:0", "handler_name=CameraVideo"])
        let output = folder.file("cut.mov")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "1", "--end", "2.5", "-o", output])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(!object.codes("notes").contains("stream_left_out"), "\(object.messages("notes"))")
        #expect(object.messages("notes").contains { $0.contains("01:00:01:00") }, "\(object.messages("notes"))")
        let tags = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time:stream_tags=language,handler_name,timecode:stream=codec_type",
                                            "-of", "compact", output]).stdout
        #expect(tags.contains("creation_time=2024-05-06T07:08:09"))
        #expect(tags.contains("language=fra"))
        #expect(tags.contains("handler_name=CameraVideo"))
        #expect(tags.contains("timecode=01:00:01:00") && !tags.contains("timecode=01:00:00:00"), "\(tags)")
    }

    /// A stream whose first packets are not keyframes (a transport stream cut mid-GOP): the cut starts at
    /// the first keyframe, says so, and decodes cleanly.
    @Test func firstPacketNotAKeyframe() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.make(folder, "midgop.ts", [
            "-i", TestPaths.fixture("h264-aac.mp4"), "-ss", "0.5", "-c", "copy", "-copyinkf", "-f", "mpegts"])
        let first = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                             "-read_intervals", "%+#1", "-of", "csv=p=0", input]).stdout
        try #require(!first.hasPrefix("K"), "the generated input should start without a keyframe")
        let output = folder.file("cut.ts")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "2", "-o", output])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        // Not the frames asked for: a plan-time warning (so --strict refuses before writing).
        #expect(object.codes("warnings") == ["starts_late"])
        #expect(object.messages("warnings").first?.contains("no keyframe at or before") == true)
        let strict = try await Run.vtrim(["cut", "--json", "--strict", "--dry-run", input, "--start", "0", "--end", "2", "-o", folder.file("s.ts")])
        #expect(strict.status == 1)
        #expect((strict.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "strict_warning")
        #expect(try await MediaFacts.firstVideoPacketIsKeyframe(output))
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
    }

    /// Fuzzing found it: SVT-AV1 printed its banner straight to stderr during an exact cut of AV1 video.
    @Test func exactCutOfAV1KeepsStderrToVtrimsOwnLines() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.make(folder, "av1.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2", "-c:v", "libsvtav1", "-preset", "12"])
        let result = try await Run.vtrim(["cut", input, "--start", "0.5", "--end", "1.5", "--mode", "exact", "-o", folder.file("cut.mp4")])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}
