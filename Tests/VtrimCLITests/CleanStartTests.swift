import Foundation
import MediaEngine
import TestSupport
import Testing

/// Open GOPs (x264 `open-gop`, x265's CRA with RASL pictures): a keyframe's leading pictures are shown
/// before it and decoded after it, from references of the previous GOP. Accurate thumbnails of those
/// frames and cuts starting on them begin from the previous clean start, so every picture equals ffmpeg's
/// decode from the start of the file and nothing decodes with errors.
@Suite(.serialized)
struct CleanStartTests {
    static let width = 320, height = 240

    /// 4 s at 30 fps, a keyframe every second (at 1, 2 and 3 s, each with leading pictures before it).
    static func openGOPFile(_ folder: TemporaryFolder, codec: String) async throws -> String {
        let path = folder.file("open-\(codec).mp4")
        let encoder = codec == "hevc"
            ? ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=30:min-keyint=30:scenecut=0:open-gop=1:bframes=3"]
            : ["-c:v", "libx264", "-x264-params", "open-gop=1:keyint=30:min-keyint=30:scenecut=0:bframes=3"]
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30", "-t", "4"]
                                         + encoder + [path])
        try #require(run.status == 0, "\(run.stderr)")
        return path
    }

    @Test(arguments: ["h264", "hevc"])
    func thumbnailsAroundKeyframesMatchADecodeFromTheStart(codec: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.openGOPFile(folder, codec: codec)
        let fromStart = try await Reference.frames(path, width: Self.width, height: Self.height)
        // Every frame from just before the keyframe at 1 s to just after the one at 2 s: the leading
        // pictures of both among them.
        let run = try await Run.vtrim(["thumbs", "--json", "--start", "0.85", "--end", "2.15", "--every", String(1.0 / 30), "--height",
                                 String(Self.height), "--columns", "13", "-o", folder.file("strip.png"), path])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        #expect((object["warnings"] as? [[String: Any]] ?? []).isEmpty, "\(run.stdout)")
        let strip = try PNGFile.read(folder.file("strip.png"))
        let cells = object["cells"] as? [[String: Any]] ?? []
        #expect(cells.count >= 38)
        for cell in cells {
            let x = try #require(cell["x"] as? Int), y = try #require(cell["y"] as? Int)
            let time = try #require(cell["time"] as? Double), pts = try #require(cell["pts"] as? Double)
            let reference = try #require(Reference.frameShown(at: time, in: fromStart))
            #expect(abs(reference.seconds - pts) < 1e-3, "cell at \(time) s shows \(pts) s, a player \(reference.seconds) s")
            let psnr = ImageCompare.psnr(strip.cropped(x: x, y: y, width: Self.width, height: Self.height), reference.image)
            #expect(psnr >= 35, "cell at \(time) s: \(psnr) dB")
        }
    }

    /// A copy cut whose start is a leading picture of the keyframe at 2 s begins from the clean start
    /// before (1 s), shown whole: the output decodes without errors, picture for picture the source's.
    @Test(arguments: ["h264", "hevc"])
    func copyCutsFromALeadingPictureBeginAtTheCleanStartBefore(codec: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.openGOPFile(folder, codec: codec)
        let output = folder.file("cut.mp4")
        let run = try await Run.vtrim(["cut", "--json", "--mode", "keyframe", "--start", String(59.0 / 30), "--end", "3.5", "-o", output, path])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        let actual = try #require(object["actual"] as? [String: Any])
        let start = try #require(actual["start"] as? Double)
        #expect(start <= 59.0 / 30 + 1e-6, "\(run.stdout)")
        // An open GOP's I frame (not an IDR) may tell the decoder to drop pictures of the GOP before it,
        // which a cut starting there does not hold: FFmpeg's H.264 decoder says "mmco: unref short failure"
        // and decodes every picture right (checked below, picture for picture). Anything else is an error.
        let errors = try await MediaFacts.decodeErrors(output).filter { !$0.contains("mmco: unref short failure") }
        #expect(errors.isEmpty, "\(errors)")
        let source = try await Reference.frames(path, width: Self.width, height: Self.height)
        let cut = try await Reference.frames(output, width: Self.width, height: Self.height)
        try #require(!cut.isEmpty)
        // The frame at the requested start is in the output.
        #expect(cut.contains { abs($0.seconds + start - 59.0 / 30) < 1e-3 }, "\(cut.map(\.seconds))")
        for frame in cut {
            let reference = try #require(Reference.frameShown(at: frame.seconds + start + 1e-6, in: source))
            let psnr = ImageCompare.psnr(frame.image, reference.image)
            #expect(psnr >= 45, "output frame at \(frame.seconds) s (source \(frame.seconds + start) s): \(psnr) dB")
        }
    }

    /// One clean-start rule for every cut mode: `fixtures/unclean-keyframes.ts` flags I frames at 1, 2, 3 and
    /// 4 s as keyframes (recovery points with a count, so MPEG-TS random-access indicators too) whose later
    /// frames refer back past them. Copy, keyframe and exact cuts starting after the one at 1 s decode from
    /// the IDR at 0 instead: no decode errors, and every frame is the one ffmpeg decodes from the start.
    @Test(arguments: [("copy", "mp4", 45.0), ("keyframe", "mp4", 45.0), ("exact", "mp4", 35.0), ("copy", "mkv", 45.0)])
    func cutsAfterAnUncleanKeyframeStartFromTheCleanOne(mode: String, container: String, minimumPSNR: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("unclean-keyframes.ts")
        let output = folder.file("cut.\(container)")
        let run = try await Run.vtrim(["cut", "--json", "--mode", mode, "--preset", "ultrafast", "--start", "1.2", "--end", "2.5", "-o", output, input])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        #expect(object["keyframe"] as? Double == 0, "\(run.stdout)")
        #expect((object["warnings"] as? [[String: Any]] ?? []).isEmpty, "\(run.stdout)")
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
        let actual = try #require(object["actual"] as? [String: Any])
        let start = try #require(actual["start"] as? Double)
        let source = try await Reference.frames(input, width: Self.width, height: Self.height)
        let cut = try await Reference.frames(output, width: Self.width, height: Self.height)
        try #require(cut.count >= 30, "\(cut.count) frames")
        for frame in cut {
            // Matroska keeps milliseconds: a frame's time may read up to 1 ms early.
            let reference = try #require(Reference.frameShown(at: frame.seconds + start + 1e-3, in: source))
            let psnr = ImageCompare.psnr(frame.image, reference.image)
            #expect(psnr >= minimumPSNR, "\(mode) output frame at \(frame.seconds) s (source \(frame.seconds + start) s): \(psnr) dB")
        }
    }

    /// Past four unclean keyframes the clean start is far back: a plan-time `clean_start_far` warning with
    /// the extra seconds, which `--strict` refuses before anything is written.
    @Test func aFarCleanStartIsWarnedAndStrictRefuses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("unclean-keyframes.ts")
        let dry = try await Run.vtrim(["cut", "--json", "--dry-run", "--start", "4.2", "--end", "4.8", "-o", folder.file("far.mp4"), input])
        let object = try #require(dry.jsonLines.first)
        let warnings = object["warnings"] as? [[String: Any]] ?? []
        #expect(warnings.map { $0["code"] as? String } == ["clean_start_far"], "\(dry.stdout)")
        #expect((warnings.first?["message"] as? String)?.contains("4.000 s earlier") == true, "\(dry.stdout)")
        let strict = try await Run.vtrim(["cut", "--strict", "--start", "4.2", "--end", "4.8", "-o", folder.file("far.mp4"), input])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("clean start"), "\(strict.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// Samsung's slow-motion recordings put an SVC prefix NAL unit (type 14: the temporal layer) before each IDR:
    /// the picture is still an IDR (it is classified by its slice units), so a copy cut begins with the keyframe
    /// its plan names, with no `unclean_start`, and every frame of the range decodes (the regression wrote a file
    /// that began with a non-key packet and decoded none of it). x264 cannot write prefix units: they are put in
    /// before each IDR of an encoded stream, which is muxed into MP4, MPEG-TS and Matroska.
    @Test(arguments: ["mp4", "ts", "mkv"])
    func idrsBehindPrefixUnitsAreCleanStarts(_ ext: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let plain = folder.file("plain.h264"), prefixed = folder.file("prefixed.h264"), input = folder.file("prefixed.\(ext)")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-t", "6", "-c:v", "libx264",
                                             "-g", "30", "-bf", "0", "-bsf:v", "h264_mp4toannexb", "-f", "h264", plain]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain))), out: [UInt8] = [], index = 0, copied = 0, inserted = 0
        // 00 00 00 01 6E C0 80 07 20: nal_ref_idc 3, type 14, svc_extension_flag, idr_flag, output_flag, trailing bits.
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1, bytes[index + 3] & 0x1F == 5 {
                let begin = index > 0 && bytes[index - 1] == 0 ? index - 1 : index
                out += bytes[copied..<begin] + [0, 0, 0, 1, 0x6E, 0xC0, 0x80, 0x07, 0x20]
                copied = begin
                inserted += 1
                index += 3
            }
            index += 1
        }
        out += bytes[copied...]
        bytes = out
        try #require(inserted >= 5, "prefix units inserted: \(inserted)")
        try Data(bytes).write(to: URL(fileURLWithPath: prefixed))
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-fflags", "+genpts", "-r", "30", "-i", prefixed, "-c", "copy", input]).status == 0)
        let output = folder.file("cut.\(ext)")
        let run = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "--end", "4.5", "--mode", "copy", "-o", output])
        #expect(run.status == 0, "\(run)")
        let codes = ((run.jsonLines.first?["warnings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        #expect(!codes.contains("unclean_start"), "\(codes)")
        let first = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", output])
        #expect(first.stdoutLines.first?.hasPrefix("K") == true, "the copy begins with the plan's keyframe: \(first.stdoutLines.prefix(2))")
        let decode = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
        // Every frame the cut shows: 2 s from the keyframe at 2.0 in MP4's edit list; from the keyframe elsewhere.
        let frames = try await MediaFacts.videoFrameCount(output)
        #expect(frames == (ext == "mp4" ? 60 : 75), "\(frames) frames")
    }
}
