import Foundation
import MediaEngine
import TestSupport
import Testing

/// `vtrim cut` end to end, checked with ffprobe/ffmpeg and GStreamer as independent readers.
struct CutCLITests {
    struct CopyCase: Sendable, CustomTestStringConvertible {
        let file: String
        let start: String
        let end: String
        var testDescription: String { "\(file) \(start)–\(end)" }
    }

    // Mid-GOP, on a keyframe, to the end of the file, a 0.5 s cut, VFR, HEVC, Matroska, WebM, rotated.
    static let copyCases = [
        CopyCase(file: "h264-aac.mp4", start: "1.5", end: "2.5"),
        CopyCase(file: "h264-aac.mp4", start: "1", end: "2"),
        CopyCase(file: "h264-aac.mp4", start: "2.2", end: "4"),
        CopyCase(file: "h264-aac.mp4", start: "2.2", end: "2.7"),
        CopyCase(file: "h264-aac-nob.mp4", start: "0.7", end: "2.3"),
        CopyCase(file: "vfr.mp4", start: "0.5", end: "1.5"),
        CopyCase(file: "hevc.mp4", start: "0.4", end: "1.6"),
        CopyCase(file: "h264-aac.mkv", start: "0.5", end: "1.5"),
        CopyCase(file: "vp9-opus.webm", start: "0.5", end: "1.5"),
        CopyCase(file: "rot90.mp4", start: "0.5", end: "1.5"),
    ]

    /// Same presented duration and frame count as `ffmpeg -ss S -to E -i IN -c copy`, within one frame;
    /// starts on a keyframe; decodes cleanly; GStreamer agrees on the duration; audio ends with the video.
    @Test(arguments: copyCases)
    func copyMatchesFFmpeg(_ example: CopyCase) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture(example.file)
        let ext = (example.file as NSString).pathExtension
        let ours = folder.file("ours.\(ext)"), theirs = folder.file("ffmpeg.\(ext)")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", example.start, "--end", example.end, "-o", ours])
        #expect(result.status == 0, "\(result)")
        let reference = try await Run.tool("ffmpeg", ["-v", "error", "-ss", example.start, "-to", example.end, "-i", input, "-c", "copy", theirs])
        try #require(reference.status == 0)
        let frame = 1.0 / 30 + 1e-6
        let ourFrames = try await MediaFacts.videoFrameCount(ours), theirFrames = try await MediaFacts.videoFrameCount(theirs)
        let ourDuration = try await MediaFacts.videoDuration(ours), theirDuration = try await MediaFacts.videoDuration(theirs)
        // Every source frame shown in [start, end) is there: from the frame shown at `start` (ffmpeg starts
        // one frame later when `start` falls inside a frame) to the last one that begins before `end`.
        let times = try await Reference.frameTimes(input)
        let start = Double(example.start) ?? 0, end = Double(example.end) ?? 0
        let first = times.last { $0 <= start + 1e-9 } ?? times[0]
        let needed = times.filter { $0 >= first - 1e-9 && $0 < end - 1e-9 }.count
        #expect(ourFrames >= needed, "frames \(ourFrames), need \(needed)")
        // Like ffmpeg's copy, within one frame — or fewer where ffmpeg also keeps frames past `end` that no
        // frame before `end` references (vtrim leaves those out).
        #expect(ourFrames <= theirFrames + 1, "frames \(ourFrames) vs ffmpeg \(theirFrames)")
        #expect(ourDuration <= theirDuration + frame, "duration \(ourDuration) vs ffmpeg \(theirDuration)")
        #expect(ourDuration >= end - first - frame, "duration \(ourDuration) shorter than the range")
        #expect(try await MediaFacts.firstVideoPacketIsKeyframe(ours))
        #expect(try await MediaFacts.decodeErrors(ours).isEmpty)
        if MediaFacts.gstreamerAvailable, let gst = try await MediaFacts.gstreamerDuration(ours) {
            #expect(abs(gst - (try await MediaFacts.formatDuration(ours))) <= frame, "GStreamer \(gst) s")
        }
        let object = try #require(result.jsonLines.first)
        let actual = try #require(object["actual"] as? [String: Any])
        let duration = try #require(actual["duration"] as? Double)
        // The report is measured from the file: the container's presented span agrees.
        let container = try await MediaFacts.formatDuration(ours)
        #expect(abs(duration - container) <= frame, "reported \(duration) s, container \(container) s")
        if let audioEnd = actual["audio_end"] as? Double, let videoEnd = actual["end"] as? Double {
            // One AAC frame is 1024 samples (21.3 ms at 48 kHz); Opus frames are 20 ms.
            #expect(abs(audioEnd - videoEnd) <= 1024.0 / 48000 + 1e-6, "audio ends at \(audioEnd), video at \(videoEnd)")
        }
    }

    /// The same cut writes the same bytes whatever the heap held before (MALLOC_PERTURB_ fills it differently each
    /// run): a 180-row H.264 re-encoded by x264, exact and smart. With x264's AVX-512 routines, three runs wrote three
    /// different files.
    @Test(arguments: ["exact", "smart"]) func reEncodedCutsAreReproducible(_ mode: String) async throws {
        let source = try await TestMedia.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=4", "-c:v", "libx264", "-preset", "veryfast",
                                                 "-g", "48", "-pix_fmt", "yuv420p"], name: "reproducible.mp4")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var written: Set<Data> = []
        for perturb in ["0", "165", "77"] {
            let output = folder.file("\(mode)-\(perturb).mp4")
            let environment = ProcessInfo.processInfo.environment.merging(["MALLOC_PERTURB_": perturb]) { $1 }
            let result = try await Run.vtrim(["cut", source, "--start", "0.9", "--end", "3.1", "--mode", mode, "-o", output], environment: environment)
            #expect(result.status == 0, "\(result)")
            written.insert(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(written.count == 1, "\(mode): \(written.count) different files from three runs")
    }

    @Test func reportKeysAndEditListStart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("h264-aac.mp4"), "--start", "1.5", "--end", "2.5", "-o", folder.file("c.mp4")])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        for key in ["path", "output", "mode", "requested", "effective", "actual", "notes", "warnings"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["mode"] as? String == "copy")
        let actual = try #require(object["actual"] as? [String: Any])
        #expect(actual["start"] as? Double == 1.5)
        #expect(object["keyframe"] as? Double == 1)
        #expect(object.codes("notes") == ["lead_in_hidden"])
        #expect(object.messages("notes").first?.contains("edit list") == true)
        #expect(folder.entries() == ["c.mp4"])
    }

    struct ExactCase: Sendable, CustomTestStringConvertible {
        let file: String
        let start: Double
        let end: Double
        var testDescription: String { "\(file) \(start)–\(end)" }
    }

    static let exactCases = [
        ExactCase(file: "h264-aac.mp4", start: 1.5, end: 2.5),
        ExactCase(file: "h264-aac.mp4", start: 1.51, end: 2.0),
        ExactCase(file: "hevc.mp4", start: 0.6, end: 1.7),
        ExactCase(file: "vp9-opus.webm", start: 0.5, end: 1.5),
        ExactCase(file: "vfr.mp4", start: 1.05, end: 1.75),
    ]

    /// The first shown frame is the source frame at `start` (reference decoded from the start of the
    /// source), the duration is the span of the frames shown (the first one's start to the last one's end), and the
    /// first frame is neither black nor a repeat of the second.
    @Test(arguments: exactCases)
    func exactStartsOnTheFrameAtStart(_ example: ExactCase) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture(example.file)
        let output = folder.file("exact." + (example.file as NSString).pathExtension)
        let result = try await Run.vtrim(["cut", "--json", input, "--start", String(example.start), "--end", String(example.end),
                                    "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let source = try await Reference.frames(input, width: 160, height: 120)
        let cut = try await Reference.frames(output, width: 160, height: 120)
        let expected = try #require(Reference.frameShown(at: example.start, in: source))
        let first = try #require(cut.first)
        #expect(ImageCompare.psnr(first.image, expected.image) >= 35, "first frame PSNR \(ImageCompare.psnr(first.image, expected.image))")
        let expectedLast = try #require(source.last { $0.seconds < example.end - 1e-9 })
        let last = try #require(cut.last)
        #expect(ImageCompare.psnr(last.image, expectedLast.image) >= 35)
        // The presented length (the container's, which follows the edit list): the frames' span.
        let lastIndex = try #require(source.lastIndex { $0.seconds < example.end - 1e-9 })
        let spanEnd = lastIndex + 1 < source.count ? source[lastIndex + 1].seconds : source[lastIndex].seconds + 1.0 / 30
        let span = spanEnd - expected.seconds
        let duration = try await MediaFacts.formatDuration(output)
        #expect(abs(duration - span) <= 1e-3, "duration \(duration), span \(span)")
        let reported = try #require((result.jsonLines.first?["actual"] as? [String: Any])?["duration"] as? Double)
        #expect(abs(reported - span) <= 1e-3, "reported \(reported), span \(span)")
        let mean = first.image.meanColor(x: 0, y: 0, width: 160, height: 120)
        #expect(mean.r + mean.g + mean.b > 60, "black first frame")
        if cut.count > 1 { #expect(ImageCompare.psnr(cut[0].image, cut[1].image) < 60, "frozen first frame") }
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
    }

    /// Orientation survives every mode: a thumbnail of the output shows the markers where the input's does.
    /// Under the sanitizers each file once and each mode at least once (the display matrix is read and written alike).
    static let orientationCases = ["rot90.mp4", "rot270.mp4", "mirror.mp4", "transpose.mp4"].enumerated().flatMap { index, file in
        ["copy", "keyframe", "exact"].enumerated().filter { !TestPaths.sanitized || $0.offset == index % 3 }.map { (file, $0.element) }
    }

    @Test(arguments: orientationCases)
    func orientationIsKept(_ file: String, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.mp4")
        let cut = try await Run.vtrim(["cut", TestPaths.fixture(file), "--start", "0.5", "--end", "1.5", "--mode", mode, "-o", output])
        #expect(cut.status == 0, "\(cut)")
        let thumbs = try await Run.vtrim(["thumbs", output, "--count", "2", "--height", "120", "-o", folder.file("t.png")])
        #expect(thumbs.status == 0, "\(thumbs)")
        let strip = try PNGFile.read(folder.file("t.png"))
        for index in 0..<2 {
            #expect(ImageCompare.markersUpright(strip.cropped(x: index * 160, y: 0, width: 160, height: 120)), "\(file) \(mode)")
        }
    }

    @Test func exactIntoMatroskaTurnsThePictureUpright() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("upright.mkv")
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("rot90.mp4"), "--start", "0.5", "--end", "1.5", "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let frames = try await Reference.frames(output, width: 160, height: 120)
        #expect(try await MediaFacts.rotation(output) == nil)
        #expect(ImageCompare.markersUpright(try #require(frames.first).image))
        // A stream copy cannot carry the rotation into Matroska: refused, with the way out.
        let refused = try await Run.vtrim(["cut", "--json", TestPaths.fixture("rot90.mp4"), "--start", "0.5", "--end", "1.5", "-o", folder.file("copy.mkv")])
        #expect(refused.status == 1)
        let error = try #require(refused.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "unsupported_container")
        #expect((error["message"] as? String)?.contains("--mode exact") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("copy.mkv")))
    }

    @Test func audioOnlyInput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("a.m4a")
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("audio-only.m4a"), "--start", "0.5", "--end", "1.6", "-o", output])
        #expect(result.status == 0, "\(result)")
        let duration = try #require(try await MediaFacts.streamDuration(output, selector: "a:0"))
        #expect(abs(duration - 1.1) <= 1024.0 / 48000)
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
    }

    @Test func endPastTheFileIsClampedWithAWarning() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("hevc.mp4"), "--start", "end-0.5", "--end", "9", "-o", folder.file("tail.mp4")])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect((object["effective"] as? [String: Any])?["end"] as? Double == 2)
        #expect((object["effective"] as? [String: Any])?["start"] as? Double == 1.5)
        #expect((object["warnings"] as? [[String: Any]])?.first?["code"] as? String == "end_clamped")
        #expect(result.stderrLines.count == 1 && result.stderr.contains("past the end"))
    }

    @Test func lengthLimitsRefuseOrClamp() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("h264-aac.mp4")
        // Shorter than --min-duration whatever the file: a usage error before anything is read.
        let short = try await Run.vtrim(["cut", "--json", input, "--start", "1", "--length", "0.5", "--min-duration", "2", "--max-duration", "3", "-o", folder.file("r.mp4")])
        #expect(short.status == 64, "\(short)")
        #expect(short.stderr.contains("shorter than --min-duration"))
        // Longer than --max-duration once the file is read (its end clamped to the file's): the input fails.
        let refused = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "end", "--max-duration", "3", "-o", folder.file("r.mp4")])
        #expect(refused.status == 1)
        let error = try #require(refused.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_range")
        #expect((error["message"] as? String)?.contains("3 s") == true, "\(error)")
        let clamped = try await Run.vtrim(["cut", "--json", input, "--start", "3", "--length", "0.5", "--min-duration", "2", "--clamp", "-o", folder.file("c.mp4")])
        #expect(clamped.status == 0, "\(clamped)")
        let effective = try #require(clamped.jsonLines.first?["effective"] as? [String: Any])
        // Keep the start, move the end; past the end of the file, move the start back.
        #expect(effective["start"] as? Double == 2 && effective["end"] as? Double == 4)
        let notes = try #require(clamped.jsonLines.first)
        #expect(notes.codes("notes").contains("range_clamped"))
        #expect(notes.messages("notes").contains { $0.hasPrefix("--clamp:") })
    }

    @Test func dryRunWritesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["cut", "--json", "--dry-run", TestPaths.fixture("h264-aac.mp4"), "--start", "1.5", "--end", "2.5", "--output-dir", folder.path])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object["dry_run"] as? Bool == true)
        let planned = try #require(object["planned"] as? [String: Any])
        #expect(planned["start"] as? Double == 1.5 && planned["keyframe"] as? Double == 1 && planned["pre_roll"] as? Double == 0.5)
        #expect(object["actual"] == nil)
        #expect(folder.entries().isEmpty)
    }

    @Test func existingOutputAndInputAsOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("in.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: input)
        let same = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "1", "-o", input, "--overwrite"])
        #expect(same.status == 1)
        #expect((same.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "output_is_input")
        let first = try await Run.vtrim(["cut", input, "--start", "0", "--end", "1"])
        #expect(first.status == 0, "\(first)")
        #expect(FileManager.default.fileExists(atPath: folder.file("in.cut.mp4")))
        let again = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "1"])
        #expect(again.status == 1)
        #expect((again.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "output_exists")
        #expect(folder.entries() == ["in.cut.mp4", "in.mp4"])
    }

    /// `--start` alone cuts to the end of the file, `--end` alone from its beginning (it was a usage error).
    @Test func startOrEndAloneCutsFromTheBeginningOrToTheEnd() async throws {
        let input = TestPaths.fixture("h264-aac.mp4")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tail = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "-o", folder.file("tail.mp4")])
        #expect(tail.status == 0, "\(tail)")
        let tailRange = try #require(tail.jsonLines.first?["effective"] as? [String: Any])
        #expect(tailRange["start"] as? Double == 2.5 && tailRange["end"] as? Double == 4, "\(tail)")
        #expect(tail.stderrLines.isEmpty, "no end_clamped warning: the end was not asked for")
        let head = try await Run.vtrim(["cut", "--json", input, "--end", "1.5", "-o", folder.file("head.mp4")])
        #expect(head.status == 0, "\(head)")
        let headRange = try #require(head.jsonLines.first?["effective"] as? [String: Any])
        #expect(headRange["start"] as? Double == 0 && headRange["end"] as? Double == 1.5, "\(head)")
    }

    @Test func usageErrors() async throws {
        let input = TestPaths.fixture("h264-aac.mp4")
        for arguments in [
            ["cut", input],
            ["cut", input, "--start", "1", "--end", "2", "--length", "1"],
            ["cut", input, "--start", "1:75", "--end", "2"],
            ["cut", input, "--start", "1", "--end", "2", "--mode", "smartest"],
            ["cut", input, TestPaths.fixture("hevc.mp4"), "--start", "1", "--end", "2", "-o", "/tmp/x.mp4"],
            ["cut", input, "--start", "1", "--end", "2", "-o", "/tmp/x.unknownext"],
            ["cut", input, "--start", "1", "--end", "2", "--clamp"],
        ] {
            let result = try await Run.vtrim(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
        }
        // An empty range is known before the file is read: a usage error. One the file makes empty fails the input.
        let empty = try await Run.vtrim(["cut", "--json", input, "--start", "3", "--end", "2", "--output-dir", FileManager.default.temporaryDirectory.path])
        #expect(empty.status == 64, "\(empty)")
        let past = try await Run.vtrim(["cut", "--json", input, "--start", "30", "--end", "end", "--output-dir", FileManager.default.temporaryDirectory.path])
        #expect(past.status == 1)
        #expect((past.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "invalid_range")
    }

    /// A camera 3GP whose AMR-NB samples hold several frames each: FFmpeg's 3GP muxer refuses such packets
    /// (ffmpeg's own copy fails); vtrim splits them and the cut plays.
    @Test func amrSamplesOfSeveralFramesAreSplit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("amr-camera.3gp")
        let samples = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "csv=p=0", input])
        func bytes(_ line: String) -> Int { Int(line.prefix { $0.isNumber }) ?? 0 }
        try #require(samples.stdoutLines.contains { bytes($0) > 32 }, "the fixture should hold AMR samples of several frames")
        let ffmpeg = try await Run.tool("ffmpeg", ["-v", "error", "-ss", "1", "-to", "2", "-i", input, "-c", "copy", folder.file("ffmpeg.3gp")])
        #expect(ffmpeg.status != 0, "ffmpeg's copy is expected to fail on this input")
        let output = folder.file("cut.3gp")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "1", "--end", "2", "-o", output])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object.codes("notes").contains("audio_packets_split"))
        let audio = try #require(try await MediaFacts.streamDuration(output, selector: "a:0"))
        #expect(abs(audio - 1) <= 0.021, "audio \(audio) s")
        let sizes = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "csv=p=0", output])
        #expect(Set(sizes.stdoutLines.map(bytes)) == [32], "one 32-byte AMR frame per packet")
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
    }

    /// Nothing to cut: subtitles alone fail before anything is written, naming the input, not a temporary file.
    @Test func subtitlesAloneFailBeforeWriting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let srt = folder.file("s.srt")
        try "1\n00:00:00,000 --> 00:00:02,000\nhello\n\n2\n00:00:02,500 --> 00:00:04,000\nworld\n".write(toFile: srt, atomically: true, encoding: .utf8)
        let input = folder.file("subs.mkv")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-i", srt, input]).status == 0)
        let out = folder.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "3", "--output-dir", out])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "no_video")
        #expect(!result.stderr.contains("vtrim-tmp"), "\(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderr.contains(input))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty == true)
    }

    /// AVI stores no presentation times: the report maps its decode-time slots back to the source.
    @Test func aviReportsTheSpanItHolds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.avi")
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("h264-aac.mp4"), "--start", "0", "--end", "3", "-o", output])
        #expect(result.status == 0, "\(result)")
        let actual = try #require(result.jsonLines.first?["actual"] as? [String: Any])
        #expect(actual["start"] as? Double == 0)
        let end = try #require(actual["end"] as? Double)
        let held = try #require(try await MediaFacts.streamDuration(output, selector: "v:0"))
        #expect(abs(end - held) < 1e-3, "reported end \(end) s, the file holds \(held) s")
    }

    /// --faststart puts the index first, and the edit lists still end where the cut does.
    @Test func faststartPutsTheIndexFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("fast.mp4")
        let result = try await Run.vtrim(["cut", "--json", "--faststart", TestPaths.fixture("h264-aac.mp4"), "--start", "1.5", "--end", "2.5", "-o", output])
        #expect(result.status == 0, "\(result)")
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let moov = data.range(of: Data("moov".utf8))?.lowerBound ?? Int.max
        let mdat = data.range(of: Data("mdat".utf8))?.lowerBound ?? -1
        #expect(moov < mdat, "moov at \(moov), mdat at \(mdat)")
        #expect(abs(try await MediaFacts.formatDuration(output) - 1.0) < 1e-3)
        #expect(try await MediaFacts.videoFrameCount(output) == 30)
    }
}
