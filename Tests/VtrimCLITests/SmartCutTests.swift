import Foundation
import TestSupport
import Testing

/// `vtrim cut --mode smart`: frame-exact like exact, with the whole groups of pictures in between copied
/// bit for bit.
@Suite(.serialized)
struct SmartCutTests {
    /// Inputs the fixtures lack: 4 s HEVC from x265's defaults (open GOPs: CRA with leading pictures),
    /// a rotated 4 s H.264 clip, and H.264 with open GOPs (no IDR after the first frame).
    static let recipes: [String: [String]] = {
        let source = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "4"]
        return [
            "hevc-open.mp4": source + ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=30:min-keyint=30:scenecut=0",
                                       "-tag:v", "hvc1", "-c:a", "aac", "-shortest"],
            "h264-open.mp4": source + ["-c:v", "libx264", "-x264-params", "open-gop=1:keyint=30:min-keyint=30:scenecut=0",
                                       "-c:a", "aac", "-shortest"],
            "rot-4s.mp4": ["-i", TestPaths.fixture("h264-aac.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=270"],
            // A keyframe every 52 frames (0, 1.733, 3.467 s): a range from 0.7 to 2.4 s holds one clean start.
            "vp9-sparse.webm": source + ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p10le", "-g", "52", "-keyint_min", "52",
                                         "-deadline", "good", "-cpu-used", "5", "-an"],
            "h264-sparse.mp4": source + ["-c:v", "libx264", "-bf", "0", "-g", "52", "-keyint_min", "52", "-sc_threshold", "0",
                                         "-c:a", "aac", "-shortest"],
        ]
    }()

    /// A fixture, or one of the inputs the fixtures lack (test media, made once).
    static func input(_ name: String) async throws -> String {
        guard let recipe = recipes[name] else { return TestPaths.fixture(name) }
        return try await TestMedia.ffmpeg(recipe, name: name)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let start: Double
        let end: Double
        var testDescription: String { "\(file) \(start)–\(end)" }
    }

    // 30 fps, a keyframe every second. Starts on a keyframe, one frame after one, one frame before the
    // next; ends likewise, mid-GOP, and at the end of the file. Under the sanitizers one start of each kind and each
    // file once: on a keyframe, one frame before one, no B-frames, open GOPs, rotated.
    static let cases = [
        Case(file: "h264-aac.mp4", start: 1.0, end: 3.0),
        Case(file: "h264-aac.mp4", start: 31.0 / 30, end: 104.0 / 30),
        Case(file: "h264-aac.mp4", start: 29.0 / 30, end: 89.0 / 30),
        Case(file: "h264-aac.mp4", start: 0.52, end: 4.0),
        Case(file: "h264-aac-nob.mp4", start: 0.5, end: 2.5),
        Case(file: "h264-aac-nob.mp4", start: 29.0 / 30, end: 61.0 / 30),
        Case(file: "hevc-open.mp4", start: 1.0, end: 3.0),
        Case(file: "hevc-open.mp4", start: 31.0 / 30, end: 104.0 / 30),
        Case(file: "hevc-open.mp4", start: 29.0 / 30, end: 89.0 / 30),
        Case(file: "hevc-open.mp4", start: 0.5, end: 4.0),
        Case(file: "rot-4s.mp4", start: 0.6, end: 3.4),
    ].enumerated().filter { !TestPaths.sanitized || [0, 2, 4, 7, 10].contains($0.offset) }.map(\.element)

    @Test(arguments: cases)
    func frameExactWithACopiedMiddle(_ example: Case) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.input(example.file)
        let output = folder.file("smart.mp4")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", String(example.start), "--end", String(example.end),
                                    "--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object["mode"] as? String == "smart", "\(object["warnings"] ?? "")")
        try await SmartCutCheck.verify(input: input, output: output, start: example.start, end: example.end, report: object,
                                 everyReencodedFrame: true)
        // Constant rate kept (issue 50): one `stts` run, whose sum is the media's duration, and the report says so.
        let track = try MP4VideoTrack.read(output)
        #expect(track.timeToSample.count == 1, "stts \(track.timeToSample)")
        #expect(track.timeToSample.reduce(0) { $0 + $1.count * $1.delta } == track.mediaDuration, "stts \(track.timeToSample), mdhd \(track.mediaDuration)")
        // Audio ends with the video, within one AAC frame.
        let actual = try #require(object["actual"] as? [String: Any])
        #expect(actual["frame_rate"] as? String == "30/1", "\(actual)")
        let audioEnd = try #require(actual["audio_end"] as? Double), end = try #require(actual["end"] as? Double)
        #expect(abs(audioEnd - end) <= 1024.0 / 48000 + 1e-6)
    }

    /// One clean start in the range is enough (issue 50): everything from it to the end is copied — every packet up to
    /// the last frame shown before the end is shown before it, so nothing after the end is needed — and only the head
    /// is re-encoded. VP9 10-bit (hidden alt-ref frames inside its superframes) and H.264 without B-frames.
    @Test(arguments: ["vp9-sparse.webm", "h264-sparse.mp4"])
    func oneCleanStartIsEnough(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.input(name)
        let output = folder.file("one." + (name as NSString).pathExtension)
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "0.7", "--end", "2.4", "--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object["mode"] as? String == "smart" && object.codes("warnings").isEmpty, "\(object)")
        let smart = try #require(object["smart"] as? [String: Any])
        #expect(smart["tail"] is NSNull && smart["fallback"] is NSNull, "\(smart)")
        // The copy runs from the clean start at 1.733 s to the end: 39 % of the range.
        let copied = try #require(smart["copied"] as? [Double])
        #expect(abs(copied[0] - 52.0 / 30) < 2e-3 && abs(copied[1] - 2.4) < 1e-3, "\(copied)")
        try await SmartCutCheck.verify(input: input, output: output, start: 0.7, end: 2.4, report: object, everyReencodedFrame: true)
    }

    /// A single range with no clean start inside falls back for what its packets show, whatever the encoder: the plan
    /// runs no trial of the edges' encoder, so the fallback costs what --mode exact does (`VTRIM_STAGE_TIMES` lists the
    /// trial where one ran). A range holding a clean start still tries the encoder.
    @Test(arguments: ["vp9-sparse.webm", "h264-sparse.mp4"])
    func aFallbackThePacketsDecideRunsNoTrial(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.input(name)
        let output = folder.file("fallback." + (name as NSString).pathExtension)
        for (start, end, smart) in [("0.1", "1.5", false), ("0.7", "2.4", true)] {
            let result = try await Run.vtrim(["cut", "--json", input, "--start", start, "--end", end, "--mode", "smart", "-o", output, "--overwrite"],
                                             environment: ["VTRIM_STAGE_TIMES": "1"])
            #expect(result.status == 0, "\(result)")
            let object = try #require(result.jsonLines.first)
            #expect(object["mode"] as? String == (smart ? "smart" : "exact") && object.codes("warnings").contains("smart_fallback") == !smart, "\(object)")
            #expect(result.stderr.contains("trial encoder") == smart, "\(start)–\(end): \(result.stderr)")
        }
    }

    /// The real-world H.264 and HEVC files with two or more keyframes: from mid first GOP to mid last GOP,
    /// and to the end. A file that falls back must say why, and still decode.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"), arguments: mediaRows.sanitizerShare)
    func realWorldFiles(_ row: ManifestRow) async throws {
        let keyframes = try await SmartCutCheck.keyframeTimes(row.path)
        guard keyframes.count >= 2, let duration = row["format_duration_s"].flatMap(Double.init) else { return }
        // Inside the first GOP (mid-GOP, or 0.3 s before its end for long GOPs: re-encoding seconds of
        // 1080p HEVC in a debug build would only slow the suite down).
        let start = SmartCutCheck.millis(max(keyframes[0] + (keyframes[1] - keyframes[0]) / 2, keyframes[1] - 0.3))
        var ends = [SmartCutCheck.millis(duration)]
        if keyframes.count >= 3 {
            let last = keyframes[keyframes.count - 1], before = keyframes[keyframes.count - 2]
            ends.insert(SmartCutCheck.millis(min(before + (last - before) / 2, before + 0.3)), at: 0)
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for end in ends {
            let output = folder.file("smart.mp4")
            let result = try await Run.vtrim(["cut", "--json", row.path, "--start", String(start), "--end", String(end),
                                        "--mode", "smart", "-o", output, "--overwrite"])
            #expect(result.status == 0, "\(row.file): \(result)")
            let object = try #require(result.jsonLines.first)
            // Smart or exact, the output is avc1/hvc1 with every parameter set a slice uses in its record.
            try SampleEntryTests.expectOutOfBand(output, entry: row["video_codec"] == "hevc" ? "hvc1" : "avc1", "\(row.file) \(start)–\(end)")
            guard object["mode"] as? String == "smart" else {
                #expect(try await MediaFacts.decodeErrors(output).isEmpty, "\(row.file)")
                let warnings = object["warnings"] as? [[String: Any]] ?? []
                let fallback = warnings.first { $0["code"] as? String == "smart_fallback" }
                #expect(fallback != nil, "\(row.file) \(start)–\(end): neither smart nor a fallback warning")
                let message = fallback?["message"] as? String ?? "?"
                // Every fallback is one we know and agree with; a new one fails until it is understood.
                let expected = Self.expectedFallbacks[row.file]
                #expect(expected.map { message.contains($0) } == true, "\(row.file) \(start)–\(end): unexpected fallback: \(message)")
                continue
            }
            // The sanitized pass runs vtrim on every file; the normal pass judges the frames it wrote.
            if TestPaths.sanitized { continue }
            try await SmartCutCheck.verify(input: row.path, output: output, start: start, end: end, report: object,
                                     everyReencodedFrame: false, label: row.file)
        }
    }

    /// The same real files smart-cut into Matroska (no edit lists, no stored decode times), from mid first GOP to
    /// the end: smart or a known fallback; the frames checked as into MP4, and remuxing prints nothing (Matroska's
    /// decode times are derived from the reorder depth the first SPS declares).
    /// H.264 files: their x264 edges are the ones that declare the source's reorder depth (HEVC into Matroska is
    /// checked on generated clips in SmartContainerTests).
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"), arguments: mediaRows.filter { $0["video_codec"] == "h264" })
    func realWorldFilesIntoMatroska(_ row: ManifestRow) async throws {
        let keyframes = try await SmartCutCheck.keyframeTimes(row.path)
        guard keyframes.count >= 2, let duration = row["format_duration_s"].flatMap(Double.init) else { return }
        let start = SmartCutCheck.millis(max(keyframes[0] + (keyframes[1] - keyframes[0]) / 2, keyframes[1] - 0.3))
        let end = SmartCutCheck.millis(duration)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("smart.mkv")
        let result = try await Run.vtrim(["cut", "--json", row.path, "--start", String(start), "--end", String(end), "--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(row.file): \(result)")
        let object = try #require(result.jsonLines.first)
        guard object["mode"] as? String == "smart" else {
            let message = (object["warnings"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "smart_fallback" }?["message"] as? String ?? "?"
            // A rotated source: Matroska cannot carry the rotation, and copied frames cannot be turned upright.
            let rotated = (row["displaymatrix_rotation_ccw"].flatMap(Double.init) ?? 0) != 0
            let expected = rotated ? "cannot carry the video's rotation" : Self.expectedFallbacks[row.file]
            #expect(expected.map { message.contains($0) } == true, "\(row.file): unexpected fallback: \(message)")
            return
        }
        let remux = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-c", "copy", "-f", "null", "-"])
        #expect(remux.stderr.isEmpty, "\(row.file): \(remux.stderr)")
        try await SmartCutCheck.verify(input: row.path, output: output, start: start, end: end, report: object, everyReencodedFrame: false, label: row.file)
    }

    /// The shared-media files smart cuts fall back on, and why (the warning's words). Both are right: the
    /// ranges tested hold no clean random-access point to copy from.
    static let expectedFallbacks: [String: String] = [
        // 1 fps, I B B I B B…: its keyframes are non-IDR I frames with B frames shown before them (open GOPs),
        // so none is a clean random-access point.
        "androidx-media/iibbibb_editlist_videoonly.mp4": "no clean random-access point",
        // (FLIR_Thermal.mp4's short range, 4.992–5.592 s, holds one clean start, at 5.29 s: since issue 50 it is
        // smart, copied from there to the end, and checked like the others.)
    ]

    static let mediaRows = ManifestRow.load().filter {
        ["h264", "hevc"].contains($0["video_codec"] ?? "") && $0["damaged"] == "no"
            && ($0["keyframes"].flatMap(Int.init) ?? 0) >= 2
            && ($0["format_duration_s"].flatMap(Double.init) ?? 0) < 100
    }

    @Test func sampleEntryAndSecondDemuxer() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (file, tag) in [("h264-aac.mp4", "avc1"), ("hevc-open.mp4", "hvc1")] {
            let output = folder.file("\(tag).mp4")
            let result = try await Run.vtrim(["cut", try await Self.input(file), "--start", "0.5", "--end", "3.5", "--mode", "smart", "-o", output])
            #expect(result.status == 0, "\(result)")
            let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                 "-of", "csv=p=0", output])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tag)
            if MediaFacts.gstreamerAvailable {
                let gst = try #require(try await MediaFacts.gstreamerDuration(output))
                #expect(abs(gst - 3.0) <= 1.0 / 30 + 0.03, "GStreamer reads \(gst) s")
            }
        }
    }

    @Test func rotationKept() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("rot.mp4")
        #expect(try await Run.vtrim(["cut", try await Self.input("rot-4s.mp4"), "--start", "0.6", "--end", "3.4", "--mode", "smart", "-o", output]).status == 0)
        #expect(try await MediaFacts.rotation(output) == -90)
    }

    /// Without a clean random-access point inside the range (open GOPs in H.264, or a short range), the
    /// whole range is re-encoded, with a warning (which --strict turns into a refusal).
    @Test func fallsBackToExactWithAWarning() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (file, start, end) in [("h264-open.mp4", "0.5", "3.5"), ("h264-aac.mp4", "1.2", "1.8")] {
            let result = try await Run.vtrim(["cut", "--json", try await Self.input(file), "--start", start, "--end", end, "--mode", "smart",
                                        "-o", folder.file("f.mp4"), "--overwrite"])
            #expect(result.status == 0, "\(result)")
            let object = try #require(result.jsonLines.first)
            #expect(object["mode"] as? String == "exact")
            #expect((object["warnings"] as? [[String: Any]])?.first?["code"] as? String == "smart_fallback")
            #expect(try await MediaFacts.decodeErrors(folder.file("f.mp4")).isEmpty)
            let strict = try await Run.vtrim(["cut", "--json", "--strict", try await Self.input(file), "--start", start, "--end", end, "--mode", "smart",
                                        "-o", folder.file("s.mp4")])
            #expect(strict.status == 1)
            #expect(!FileManager.default.fileExists(atPath: folder.file("s.mp4")))
        }
        // A level the source mislabels (too low for its picture size): x265 will not open with it.
        let mislabelled = folder.file("level1.mp4")
        #expect(try await Run.tool("ffmpeg", ["-v", "error", "-i", try await Self.input("hevc-open.mp4"), "-c", "copy", "-bsf:v", "hevc_metadata=level=1",
                                        mislabelled]).status == 0)
        let level = try await Run.vtrim(["cut", "--json", mislabelled, "--start", "0.5", "--end", "3.5", "--mode", "smart", "-o", folder.file("l.mp4")])
        #expect(level.status == 0, "\(level)")
        #expect((level.jsonLines.first?["warnings"] as? [[String: Any]])?.first?["code"] as? String == "smart_fallback")
        // One warning, and x265's own log line stays quiet (LeakSanitizer may add its report in CI).
        #expect(level.stderr.split(separator: "\n").filter { $0.hasPrefix("vtrim:") }.count == 1, "\(level.stderr)")
        #expect(!level.stderr.contains("x265 ["), "\(level.stderr)")
        // A header claiming an absurd start time: a clean error, not an arithmetic trap.
        let huge = folder.file("huge.mkv")
        #expect(try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("h264-aac.mkv"), "-c", "copy", "-output_ts_offset",
                                        "5000000000000", huge]).status == 0)
        for mode in ["smart", "copy"] {
            let result = try await Run.vtrim(["cut", huge, "--start", "0.5", "--end", "1.5", "--mode", mode, "-o", folder.file("h-\(mode).mkv")])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("vtrim: error: \(huge): "), "\(result.stderr)")
        }
        // A codec smart cuts do not handle: MPEG-4 Part 2.
        let part2 = folder.file("part2.mkv")
        #expect(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-t", "2", "-c:v", "mpeg4",
                                        "-g", "15", part2]).status == 0)
        let mpeg4 = try await Run.vtrim(["cut", "--json", part2, "--start", "0.2", "--end", "1.8", "--mode", "smart", "-o", folder.file("p.mkv")])
        #expect(mpeg4.status == 0, "\(mpeg4)")
        let warning = (mpeg4.jsonLines.first?["warnings"] as? [[String: Any]])?.first
        #expect(warning?["code"] as? String == "smart_fallback" && (warning?["message"] as? String ?? "").contains("this video is mpeg4"), "\(mpeg4)")
    }

    @Test func dryRunShowsThePlan() async throws {
        let result = try await Run.vtrim(["cut", "--json", "--dry-run", TestPaths.fixture("h264-aac.mp4"), "--start", "0.5", "--end", "3.4",
                                    "--mode", "smart", "-o", "/tmp/never-written.mp4"])
        #expect(result.status == 0, "\(result)")
        let smart = try #require(result.jsonLines.first?["smart"] as? [String: Any])
        #expect(smart["head"] as? [Double] == [0.5, 1])
        #expect(smart["copied"] as? [Double] == [1, 3])
        #expect(smart["tail"] as? [Double] == [3, 3.4])
        // The edges' encoder and its settings, per range of a join too.
        let edges = try #require(smart["edges"] as? [String: Any])
        #expect(edges["encoder"] as? String == "libx264" && (edges["options"] as? [String: String])?["crf"] == "16", "\(edges)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.mp4"))
        let join = try await Run.vtrim(["cut", "--json", "--dry-run", TestPaths.fixture("h264-aac.ts"), "--keep", "0.5..2.6", "--keep", "2.7..3.9",
                                  "-o", "/tmp/never-written.ts"])
        #expect(join.status == 0, "\(join)")
        let segments = try #require(join.jsonLines.first?["segments"] as? [[String: Any]])
        #expect(join.jsonLines.first?["mode"] as? String == "smart")
        #expect(segments.count == 2 && segments.allSatisfy { (($0["smart"] as? [String: Any])?["edges"] as? [String: Any])?["encoder"] as? String == "libx264" },
                "\(segments)")
        let human = try await Run.vtrim(["cut", "--dry-run", TestPaths.fixture("h264-aac.ts"), "--keep", "0.5..2.6", "--keep", "2.7..3.9",
                                   "-o", "/tmp/never-written.ts"])
        #expect(human.stdout.components(separatedBy: "edges     libx264").count == 3, "\(human.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.ts"))
    }
}

/// The checks a smart cut must pass against its source, with the ffmpeg CLI as the independent decoder.
enum SmartCutCheck {
    struct Frame: Sendable {
        let seconds: Double
        let hash: String
    }

    static func millis(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// Decoded frames in presentation order: seconds from the container start (ffprobe) and the MD5 of
    /// the picture as decoded (ffmpeg framemd5), paired by decode-output order.
    static func frames(_ path: String) async throws -> [Frame] {
        try await FileFacts.once(path, "frame hashes") { try await readFrames(path) }
    }

    private static func readFrames(_ path: String) async throws -> [Frame] {
        let md5 = try await Run.tool("ffmpeg", ["-v", "error", "-autorotate", "0", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                          "-f", "framemd5", "-"])
        let hashes = md5.stdoutLines.filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let times = try await Reference.frameTimes(path)
        guard hashes.count == times.count else {
            throw ReferenceError(message: "\(path): \(hashes.count) decoded frames but \(times.count) frame times")
        }
        return zip(times, hashes).map { Frame(seconds: $0, hash: $1) }.sorted { $0.seconds < $1.seconds }
    }

    /// Each fact below is read once per file version in a run: a real file is the source of several cuts and tests.
    static func keyframeTimes(_ path: String) async throws -> [Double] {
        try await FileFacts.once(path, "keyframe times") { try await readKeyframeTimes(path) }
    }

    private static func readKeyframeTimes(_ path: String) async throws -> [Double] {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-skip_frame", "nokey", "-show_entries",
                                             "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        let origin = try await Reference.containerStart(path)
        return probe.stdoutLines.compactMap { Double($0.split(separator: ",").first.map(String.init) ?? "") }.map { $0 - origin }.sorted()
    }

    /// PSNR (dB, all planes as 8-bit 4:2:0, unrotated; ∞ when identical) of frames of `output` against
    /// frames of `input`, both given by their index in presentation order; by ffmpeg's psnr filter.
    static func psnr(_ output: String, _ ours: [Int], against input: String, _ theirs: [Int]) async throws -> [Double] {
        func pick(_ indices: [Int]) -> String {
            "select=" + indices.map { "eq(n\\,\($0))" }.joined(separator: "+") + ",format=yuv420p,setpts=N/TB"
        }
        let graph = "[0:v:0]\(pick(ours))[a];[1:v:0]\(pick(theirs))[b];[a][b]psnr=stats_file=-"
        let result = try await Run.tool("ffmpeg", ["-v", "error", "-autorotate", "0", "-i", output, "-autorotate", "0", "-i", input,
                                             "-lavfi", graph, "-fps_mode", "passthrough", "-f", "null", "-"])
        return result.stdoutLines.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.map { Double($0.dropFirst(9)) ?? .infinity }
        }
    }

    /// Seconds per tick of the first video stream's time base.
    static func videoTick(_ path: String) async throws -> Double {
        let text = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base",
                                            "-of", "csv=p=0", path]).stdoutLines.first ?? ""
        // Side data (a display matrix) adds an empty field: "1/15360,".
        let parts = text.split(separator: ",").first?.split(separator: "/").compactMap { Double($0) } ?? []
        guard parts.count == 2, parts[1] > 0 else { throw ReferenceError(message: "\(path): no video time base") }
        return parts[0] / parts[1]
    }

    /// The duration of the first audio packet (one audio frame: 1024 samples for AAC).
    static func audioFrameSeconds(_ path: String) async throws -> Double {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-read_intervals", "%+#2",
                                             "-show_entries", "packet=duration_time", "-of", "csv=p=0", path])
        guard let seconds = probe.stdoutLines.compactMap({ Double($0.split(separator: ",").first ?? "") }).last else {
            throw ReferenceError(message: "\(path): no audio packet duration")
        }
        return seconds
    }

    /// Audio packets as MD5s, in order (stream copy: the bytes as stored).
    static func audioPackets(_ path: String) async throws -> [String] {
        try await FileFacts.once(path, "audio packet hashes") { try await readAudioPackets(path) }
    }

    private static func readAudioPackets(_ path: String) async throws -> [String] {
        // With no audio stream, an optional map that matches nothing lets ffmpeg pick the video.
        let audio = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=index",
                                             "-of", "csv=p=0", path])
        guard !audio.stdoutLines.filter({ !$0.isEmpty }).isEmpty else { return [] }
        return try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0?", "-c", "copy", "-f", "framemd5", "-"]).stdoutLines
            .filter { !$0.hasPrefix("#") }.compactMap { line in
                // Field 5 is the packet's hash; side data (e.g. skip samples at an edit) adds fields after it.
                let fields = line.split(separator: ",")
                return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
            }
    }

    /// - Frame count: the source frames from the frame at `start` to the last that begins before `end`.
    /// - The copied range decodes to exactly the source's pictures; the re-encoded frames are within 40 dB.
    /// - Decodes without errors; audio is one contiguous run of the source's packets, starting with the video.
    static func verify(input: String, output: String, start: Double, end: Double, report: [String: Any],
                       everyReencodedFrame: Bool, label: String = "") async throws {
        #expect(try await MediaFacts.decodeErrors(output, timingAsIn: input).isEmpty, "\(label)")
        let smart = try #require(report["smart"] as? [String: Any], "\(label)")
        let copied = try #require(smart["copied"] as? [Double], "\(label)")
        let source = try await frames(input), cut = try await frames(output)
        // Times in reports and ffprobe's are printed to the microsecond.
        let first = source.last { $0.seconds <= start + 2e-6 } ?? source[0]
        let expectedIndices = source.indices.filter { source[$0].seconds >= first.seconds - 1e-7 && source[$0].seconds < end - 1e-6 }
        #expect(cut.count == expectedIndices.count, "\(label) \(start)–\(end): frames \(cut.count), expected \(expectedIndices.count)")
        guard cut.count == expectedIndices.count else { return }

        var reencoded: [(ours: Int, theirs: Int)] = []
        var identical = 0
        for (position, index) in expectedIndices.enumerated() {
            let seconds = source[index].seconds
            if seconds >= copied[0] - 1e-6, seconds < copied[1] - 1e-6 {
                #expect(cut[position].hash == source[index].hash, "\(label): copied frame at \(seconds) s differs")
                identical += 1
            } else {
                reencoded.append((position, index))
            }
        }
        #expect(identical > 0, "\(label)")
        // Re-encoded frames: all of them, or the first and last of each re-encoded run.
        var checked = reencoded
        if !everyReencodedFrame {
            checked = reencoded.enumerated().filter { offset, pair in
                offset == 0 || offset == reencoded.count - 1 || reencoded[offset - 1].ours != pair.ours - 1
                    || reencoded[offset + 1].ours != pair.ours + 1
            }.map(\.element)
        }
        if !checked.isEmpty {
            let values = try await psnr(output, checked.map(\.ours), against: input, checked.map(\.theirs))
            #expect(values.count == checked.count, "\(label): \(values.count) PSNR values for \(checked.count) frames")
            for (position, value) in values.enumerated() {
                #expect(value >= 40, "\(label): re-encoded frame \(checked[position].ours) has PSNR \(value) dB")
            }
        }

        // Audio: copied once, continuously (a contiguous run of the source's packets), in sync at the start.
        let sourceAudio = try await audioPackets(input), cutAudio = try await audioPackets(output)
        if !cutAudio.isEmpty {
            // Silent audio repeats packets: any alignment will do.
            let contiguous = sourceAudio.indices.contains { first in
                first + cutAudio.count <= sourceAudio.count && Array(sourceAudio[first..<(first + cutAudio.count)]) == cutAudio
            }
            #expect(contiguous,
                    "\(label): the audio is not one contiguous run of the source's packets")
            let actual = try #require(report["actual"] as? [String: Any])
            if let audioStart = actual["audio_start"] as? Double, let videoStart = actual["start"] as? Double {
                let frame = try await audioFrameSeconds(input)
                #expect(abs(audioStart - videoStart) <= frame + 1e-6,
                        "\(label): audio starts at \(audioStart) s, video at \(videoStart) s (one audio frame: \(frame) s)")
            }
        }
        // The duration is the frames' span: from the first frame's own time to the last one's end (the next source
        // frame's time; at the stream's end, within a frame of its own time), to a tick of the video time base.
        let actual = try #require(report["actual"] as? [String: Any])
        let duration = try #require(actual["duration"] as? Double)
        let tick = await max(try videoTick(input), try videoTick(output))
        if let last = expectedIndices.last, last + 1 < source.count {
            let span = source[last + 1].seconds - first.seconds
            #expect(abs(duration - span) <= max(1e-3, tick + 1e-6), "\(label): duration \(duration), span \(span)")
        } else if let last = expectedIndices.last {
            // To the stream's end: the last frame for its own duration (cursed-vfr.mp4's lasts 1.57 s), within the file.
            let shown = source[last].seconds - first.seconds
            let fileEnd = try await MediaFacts.formatDuration(input) - first.seconds
            #expect(duration > shown && duration <= fileEnd + max(1e-3, tick + 1e-6), "\(label): duration \(duration), last frame at \(shown)")
        }
    }
}
