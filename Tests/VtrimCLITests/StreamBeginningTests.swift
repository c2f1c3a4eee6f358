import Foundation
import MediaEngine
import TestSupport
import Testing

/// Streams from x264 builds before 151 in 4:4:4 decode as their encoder meant only where FFmpeg has seen
/// x264's version SEI, which only the first access unit carries; seek-based tools (ffmpeg -ss included)
/// decode them differently. vtrim decodes every frame as a decode from the start does, and its copy and
/// smart cuts carry the SEI, so any player decodes them so too.
///
/// The fixture: a lossless 4:4:4 stream (High 4:4:4 Predictive, CAVLC) from this machine's x264 (core 164)
/// with its SEI relabelled "core 142", so FFmpeg applies the pre-151 workaround for lossless intra 8x8
/// prediction (h264_mb.c) wherever it has seen the SEI: pictures differ (about 32 dB), and both decodes
/// are clean and deterministic (CABAC streams would take the other workaround, whose mismatch is a parse
/// error and decodes differently with each thread count). On this stream the workaround's decode is the
/// wrong one (the real files are the mirror image), but the property under test is the same: mid-stream
/// decoding equals decoding from the start.
@Suite(.serialized)
struct StreamBeginningTests {
    static let width = 160, height = 120

    /// 10 s at 10 fps, keyframes every 3 s, B-frames; lossless, so the intra 8x8 workaround applies.
    static func oldX264File(_ folder: TemporaryFolder) async throws -> String {
        let made = folder.file("new.mp4"), old = folder.file("old.mp4")
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=10", "-t", "10",
                                          "-pix_fmt", "yuv444p", "-c:v", "libx264", "-preset", "medium", "-qp", "0", "-coder", "0",
                                          "-g", "30", "-bf", "2", made])
        try #require(run.status == 0, "\(run.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: made))
        let at = try #require(bytes.range(of: Data("x264 - core ".utf8)), "no x264 SEI")
        let digits = bytes[at.upperBound..<(at.upperBound + 4)]
        try #require(digits.prefix(3).allSatisfy { (0x30...0x39).contains($0) } && !(0x30...0x39).contains(digits.last ?? 0),
                     "x264's build is not three digits here")
        bytes.replaceSubrange(at.upperBound..<(at.upperBound + 3), with: Data("142".utf8))
        try bytes.write(to: URL(fileURLWithPath: old))
        return old
    }

    static func image(_ frame: Reference.DecodedFrame?) throws -> RGBImage { try #require(frame).image }

    /// FFmpeg's decoder complains on every frame of a CABAC 4:4:4 stream relabelled as core 142 ("error
    /// while decoding MB …"): none of it reaches stderr without --verbose, in any command; vtrim's own
    /// lines (prefixed "vtrim: ") say what matters.
    @Test func ffmpegsOwnMessagesStayQuiet() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let made = folder.file("cabac.mp4"), damaged = folder.file("damaged.mp4")
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=10", "-t", "4",
                                          "-pix_fmt", "yuv444p", "-c:v", "libx264", "-g", "20", made])
        try #require(run.status == 0, "\(run.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: made))
        let at = try #require(bytes.range(of: Data("x264 - core ".utf8)))
        bytes.replaceSubrange(at.upperBound..<(at.upperBound + 3), with: Data("142".utf8))
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let ffmpeg = try await Run.tool("ffmpeg", ["-v", "error", "-i", damaged, "-f", "null", "-"])
        try #require(ffmpeg.stderr.contains("error while decoding MB"), "the fixture no longer makes the decoder complain")
        let commands: [[String]] = [
            ["probe", damaged],
            ["thumbs", "--count", "6", "--height", "60", "-o", folder.file("s.png"), damaged],
            ["cut", "--mode", "exact", "--start", "1", "--end", "3", "-o", folder.file("exact.mp4"), damaged],
            ["cut", "--mode", "smart", "--start", "1", "--end", "3", "-o", folder.file("smart.mp4"), damaged],
        ]
        for arguments in commands {
            let result = try await Run.vtrim(arguments)
            #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") }, "vtrim \(arguments[0]): \(result.stderr)")
            #expect(!result.stderr.contains("error while decoding MB"))
        }
        let verbose = try await Run.vtrim(["thumbs", "--verbose", "--count", "2", "--height", "60", "-o", folder.file("v.png"), damaged])
        #expect(verbose.stderr.contains("error while decoding MB"), "--verbose shows FFmpeg's messages")
    }

    /// The fixture exercises the workaround: decoding from a later keyframe without the SEI (ffmpeg -ss)
    /// gives other pictures than decoding from the start. Without this the other tests could not fail.
    @Test func seekingToolsDecodeItDifferently() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.oldX264File(folder)
        let fromStart = try await Reference.frames(path, width: Self.width, height: Self.height)
        let raw = try await Run.tool("ffmpeg", ["-v", "quiet", "-ss", "7.5", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(raw.stdoutData.count == Self.width * Self.height * 3)
        let seeked = RGBImage(width: Self.width, height: Self.height, stride: Self.width * 3, pixels: [UInt8](raw.stdoutData))
        let psnr = ImageCompare.psnr(seeked, try Self.image(Reference.frameShown(at: 7.5, in: fromStart)))
        #expect(psnr < 36, "\(psnr) dB")
    }

    @Test func thumbnailsMidStreamMatchADecodeFromTheStart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.oldX264File(folder)
        let fromStart = try await Reference.frames(path, width: Self.width, height: Self.height)
        let run = try await Run.vtrim(["thumbs", "--json", "--every", "1", "--height", String(Self.height), "--columns", "10",
                                 "-o", folder.file("strip.png"), path])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        let strip = try PNGFile.read(folder.file("strip.png"))
        for cell in object["cells"] as? [[String: Any]] ?? [] {
            let x = try #require(cell["x"] as? Int), pts = try #require(cell["pts"] as? Double)
            let picture = strip.cropped(x: x, y: 0, width: Self.width, height: Self.height)
            let reference = try Self.image(Reference.frameShown(at: pts, in: fromStart))
            let psnr = ImageCompare.psnr(picture, reference)
            #expect(psnr > 42, "cell at \(pts) s: \(psnr) dB")
        }
    }

    /// Cuts starting at a later keyframe (copy) or copying from one after a re-encoded head (smart) decode,
    /// in ffmpeg, as the source decoded from its start.
    @Test(arguments: [("copy", 6.0), ("smart", 4.5)])
    func cutsCarryTheSEI(mode: String, startSeconds: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.oldX264File(folder)
        let output = folder.file("cut.mp4")
        let run = try await Run.vtrim(["cut", "--json", "--mode", mode, "--start", String(startSeconds), "--end", "9", "-o", output, path])
        #expect(run.status == 0, "\(run)")
        let notes = (run.jsonLines.first?["notes"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(notes.contains("encoder_info_carried"), "\(run.stdout)")
        let source = try await Reference.frames(path, width: Self.width, height: Self.height)
        let cut = try await Reference.frames(output, width: Self.width, height: Self.height)
        #expect(cut.count == Int(((9 - startSeconds) * 10).rounded()), "\(cut.count) frames")
        for frame in cut where frame.seconds + startSeconds >= 6 - 1e-6 {
            // From the keyframe at 6 s on, the frames are the source's own, copied: the same pictures.
            let reference = try Self.image(Reference.frameShown(at: frame.seconds + startSeconds, in: source))
            let psnr = ImageCompare.psnr(frame.image, reference)
            #expect(psnr > 45, "output frame at \(frame.seconds) s: \(psnr) dB")
        }
    }

    @Test func noteIsAbsentFromTheFirstAccessUnit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.oldX264File(folder)
        let run = try await Run.vtrim(["cut", "--json", "--dry-run", "--mode", "copy", "--start", "0", "--end", "2", "-o", folder.file("c.mp4"), path])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("encoder_info_carried"), "\(run.stdout)")
    }
}
