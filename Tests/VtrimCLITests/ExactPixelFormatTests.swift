import Foundation
import TestSupport
import Testing

/// Exact cuts whose pixels must change form: the output is tagged with what was encoded and looks like
/// the source.
@Suite(.serialized)
struct ExactPixelFormatTests {
    static func make(_ arguments: [String]) async throws {
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-y"] + arguments)
        try #require(run.status == 0, "\(run.stderr)")
    }

    static func streamFacts(_ path: String) async throws -> [String] {
        try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,pix_fmt,color_range",
                                 "-of", "default=noprint_wrappers=1", path]).stdoutLines
    }

    /// Pictures of the output against the source's at the same times (both as ffmpeg shows them: the
    /// source turned by its display matrix, each decoded with its own range).
    static func expectSamePictures(_ output: String, _ source: String, startSeconds: Double, width: Int, height: Int) async throws {
        let reference = try await Reference.frames(source, width: width, height: height)
        let cut = try await Reference.frames(output, width: width, height: height)
        try #require(!cut.isEmpty)
        for frame in cut {
            // Matroska keeps milliseconds: 0.033 s is the frame at 1/30 s.
            let expected = try #require(Reference.frameShown(at: frame.seconds + startSeconds + 0.005, in: reference))
            let psnr = ImageCompare.psnr(frame.image, expected.image)
            #expect(psnr >= 30, "output frame at \(frame.seconds) s: \(psnr) dB")
        }
    }

    /// A 4:2:2 clip stored on its side, cut into Matroska (no display matrix there, so the picture is
    /// turned while encoding): 4:2:2 chroma cannot be turned by 90°, so it becomes 4:2:0 first, said in
    /// the plan. It used to fail ("turn picture upright failed").
    @Test func sidewaysFourTwoTwoIsTurnedUpright() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let coded = folder.file("coded.mp4"), source = folder.file("sideways.mp4"), output = folder.file("cut.mkv")
        try await Self.make(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2", "-pix_fmt", "yuv422p", "-c:v", "libx264", coded])
        try await Self.make(["-i", coded, "-c", "copy", "-metadata:s:v:0", "rotate=90", source])
        let dryRun = try await Run.vtrim(["cut", "--json", "--dry-run", "--mode", "exact", "--start", "0.5", "--end", "1.5", "-o", output, source])
        let run = try await Run.vtrim(["cut", "--json", "--mode", "exact", "--start", "0.5", "--end", "1.5", "-o", output, source])
        #expect(run.status == 0, "\(run)")
        for result in [dryRun, run] {
            let codes = (result.jsonLines.first?["notes"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes.contains("turned_upright") && codes.contains("pixel_format_converted"), "\(result.stdout)")
        }
        let facts = try await Self.streamFacts(output)
        #expect(facts.contains("width=240") && facts.contains("height=320"))
        try await Self.expectSamePictures(output, source, startSeconds: 0.5, width: 240, height: 320)
    }

    /// A full-range ("J") source converted for an encoder without J formats (MJPEG into WebM's VP9): the
    /// conversion makes it limited range, and the output says so. Tagged full range it would show washed
    /// out in every player.
    @Test func convertedFullRangeIsTaggedLimited() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.file("camera.mkv"), output = folder.file("cut.webm")
        try await Self.make(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2", "-pix_fmt", "yuvj422p", "-c:v", "mjpeg",
                       "-q:v", "2", source])
        let run = try await Run.vtrim(["cut", "--json", "--mode", "exact", "--start", "0.5", "--end", "1.5", "-o", output, source])
        #expect(run.status == 0, "\(run)")
        let facts = try await Self.streamFacts(output)
        #expect(facts.contains("color_range=tv"), "\(facts)")
        try await Self.expectSamePictures(output, source, startSeconds: 0.5, width: 320, height: 240)
    }
}
