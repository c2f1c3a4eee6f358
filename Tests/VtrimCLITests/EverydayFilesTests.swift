import Foundation
import MediaEngine
import TestSupport
import Testing

/// A first-time user's day with everyday files (phone, camera, web exports), finding by finding.
struct EverydayFilesTests {
    static func shared(_ relative: String) -> String? {
        TestPaths.sharedMedia.map { $0 + "/" + relative }
    }

    /// Camera MPEG-TS/MTS in fast mode: every cell accurate mode draws is drawn (fast mode takes its keyframes
    /// by the clean-start rule, backing up where the demuxer lands late, instead of failing the cell).
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"),
          arguments: ["metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts", "androidx-media/ts_sample_h265.ts",
                      "mediabunny/entry24-segment3.ts"])
    func fastModeDrawsCameraTransportStreams(_ file: String) async throws {
        let path = try #require(Self.shared(file))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for mode in ["accurate", "fast"] {
            let result = try await Run.vtrim(["thumbs", "--json", path, "--count", "10", "--height", "48", "--mode", mode,
                                        "-o", folder.file("\(mode).png")])
            #expect(result.status == 0, "\(mode): \(result)")
            let report = try #require(result.jsonLines.first)
            let cells = try #require(report["cells"] as? [[String: Any]])
            #expect(cells.count == 10 && cells.allSatisfy { $0["error"] == nil }, "\(mode): \(result.stdout)")
            #expect(!report.codes("warnings").contains("sample_failed"), "\(mode): \(result.stdout)")
        }
    }

    /// Fast mode shows the clean keyframe at or before each cell's time on MPEG-TS, which has no index (FFmpeg's
    /// seek-built one lists the keyframe after a time as readily as the one before): within one GOP (1 s in
    /// these fixtures) before the time, never after; on `unclean-keyframes.ts` only the IDR at 0 is clean.
    @Test(arguments: [("h264-aac.ts", 1.0), ("hevc.ts", 1.0), ("sps-change.ts", 1.0), ("unclean-keyframes.ts", 5.0)])
    func fastModeShowsTheKeyframeAtOrBeforeEachTime(_ file: String, gopSeconds: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture(file), "--count", "7", "--height", "32",
                                    "--mode", "fast", "-o", folder.file("s.png")])
        #expect(result.status == 0, "\(result)")
        let cells = try #require(result.jsonLines.first?["cells"] as? [[String: Any]], "\(result)")
        #expect(cells.count == 7)
        for cell in cells {
            let time = try #require(cell["time"] as? Double), shown = try #require(cell["pts"] as? Double, "\(cell)")
            #expect(shown <= time + 0.001 && time - shown < gopSeconds + 0.05, "\(file): \(cell)")
            if file == "unclean-keyframes.ts" { #expect(shown < 0.05, "\(cell)") }
        }
    }

    /// `actual` is the source time of the first frame shown, whatever the output container adds: an exact
    /// cut into MPEG-TS, whose muxer delays everything so the B-frames' decode times stay positive, reported
    /// 1.567 for a cut from 1.5; a copy into Matroska opened with the B-frame delay as a 67 ms gap. And its
    /// duration is what ffprobe reads.
    @Test(arguments: [("hevc.ts", "ts", "exact", 1.5, 3.0), ("h264-aac.ts", "ts", "exact", 1.5, 3.0),
                      ("h264-aac.mp4", "mkv", "copy", 1.0, 3.0), ("h264-aac.mp4", "mkv", "exact", 1.0, 3.0),
                      ("h264-aac.mp4", "ts", "copy", 1.0, 3.0), ("h264-aac.mp4", "mp4", "exact", 1.0, 3.0)])
    func actualStartsAtTheSourceTimeOfTheFirstFrameShown(_ file: String, _ ext: String, _ mode: String, _ start: Double, _ end: Double) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.\(ext)")
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture(file), "--start", "\(start)", "--end", "\(end)", "--mode", mode,
                                    "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        let planned = try #require(report["planned"] as? [String: Any]), actual = try #require(report["actual"] as? [String: Any])
        // Every mode starts on the first frame itself (exact cuts show it whole, from its own start).
        let firstShown = try #require(planned["start"] as? Double)
        #expect(firstShown <= start + 1e-6 && start - firstShown < 0.05, "\(planned)")
        let actualStart = try #require(actual["start"] as? Double)
        #expect(abs(actualStart - firstShown) < 0.0011, "\(file) → .\(ext) \(mode): planned \(planned), actual \(actual)")
        let duration = try #require(actual["duration"] as? Double)
        #expect(abs(duration - (try await MediaFacts.formatDuration(output))) < 0.0021, "\(file) → .\(ext) \(mode): \(actual)")
    }

    /// The same on camera files: a Sony `.mts` cut 0.1–0.4 reported 0.160–0.460, an HEVC TS 0.2–0.6 reported
    /// 0.267–0.667 (the muxer's shift of the exact cut's B-frame delay); an exact cut of an AVI starts at 1.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"),
          arguments: [("metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts", "mts", 0.1, 0.4), ("androidx-media/ts_sample_h265.ts", "ts", 0.2, 0.6),
                      ("debian-opencv-doc/vtest.avi", "avi", 1.0, 2.0)])
    func cameraFilesReportTheirStart(_ file: String, _ ext: String, _ start: Double, _ end: Double) async throws {
        let path = try #require(Self.shared(file))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The default preset: its B-frames are what the muxer shifts (ultrafast has none).
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "\(start)", "--end", "\(end)", "--mode", "exact",
                                    "-o", folder.file("cut.\(ext)")])
        #expect(result.status == 0, "\(result)")
        let actual = try #require(result.jsonLines.first?["actual"] as? [String: Any], "\(result)")
        #expect(abs((actual["start"] as? Double ?? -1) - start) < 0.0011 && abs((actual["end"] as? Double ?? -1) - end) < 0.0011, "\(actual)")
    }

    /// AVI keeps slots, not times: an exact cut of a sparse AVI (a frame every ~0.4 s in 1/15 s slots) lasted
    /// 1.267 s for 1–2 (a fine grid and B-frames' decode times written into slots). Now the source's slots,
    /// no B-frames, the last frame held to the cut's last slot: the span of its frames, as ffprobe reads it.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func sparseAVIExactCutsLastTheirRange() async throws {
        let path = try #require(Self.shared("debian-opencv-doc/tree.avi"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.avi")
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "1", "--end", "2", "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let actual = try #require(result.jsonLines.first?["actual"] as? [String: Any], "\(result)")
        let duration = try #require(actual["duration"] as? Double)
        // The frames' span: from the frame at 1 s (shown since an earlier slot) to the end of the last one before 2 s.
        let start = try #require(actual["start"] as? Double)
        #expect(start <= 1 + 1e-6 && start > 0.5 && start + duration >= 2 - 1e-6 && start + duration < 2.5, "\(actual)")
        #expect(abs(try await MediaFacts.formatDuration(output) - duration) < 0.001)
        // Only there: an MP4 cut into AVI keeps its 30 frames for 1 s (no frame added at the end).
        let fromMP4 = folder.file("from-mp4.avi")
        #expect(try await Run.vtrim(["cut", TestPaths.fixture("h264-aac.mp4"), "--start", "1", "--end", "2", "--mode", "exact", "-o", fromMP4]).status == 0)
        #expect(try await MediaFacts.videoFrameCount(fromMP4) == 30)
    }

    /// WebM stores milliseconds: a 60 fps exact cut's last frame, read back from rounded durations, ended
    /// 1 ms short (2.249 reported for a cut to 2.25, where the dry run and ffprobe say 2.25 / 1.75 s).
    @Test func webmEndIsWhatPlayersRead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.file("sixty.webm"), output = folder.file("cut.webm")
        let made = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=d=3:s=160x120:r=60", "-c:v", "libvpx-vp9",
                                           "-deadline", "realtime", "-cpu-used", "8", source])
        try #require(made.status == 0, "\(made)")
        let result = try await Run.vtrim(["cut", "--json", source, "--start", "0.5", "--end", "2.25", "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let actual = try #require(result.jsonLines.first?["actual"] as? [String: Any], "\(result)")
        #expect(actual["end"] as? Double == 2.25 && actual["duration"] as? Double == 1.75, "\(actual)")
        #expect(abs(try await MediaFacts.formatDuration(output) - 1.75) < 1e-6)
    }

    /// Phone and camera metadata survives every cut mode into MOV and MP4 (with and without faststart),
    /// read by a second reader (mediainfo) as by FFmpeg: an iPhone's QuickTime keys, exactly the source's
    /// (no brand or encoder keys added), beside an iTunes-style title that stays one; a GoPro's firmware.
    @Test(arguments: ["copy", "exact", "smart"])
    func phoneAndCameraMetadataIsKept(_ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func appleLines(_ path: String) async throws -> [String] {
            let info = try await Run.tool("mediainfo", [path])
            try #require(info.status == 0, "mediainfo: \(info)")
            return info.stdoutLines.filter { $0.contains("com.apple.quicktime") || $0.hasPrefix("Movie name") }
        }
        func tags(_ path: String) async throws -> [String: String] {
            let probe = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", path])
            let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
            return (json?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        }
        var sources = [TestPaths.fixture("iphone-keys.mov")]
        if let phone = Self.shared("metadata-extractor-images/with-gps.mov") { sources.append(phone) }
        for (number, source) in sources.enumerated() {
            let expected = try await appleLines(source)
            #expect(expected.count >= 5, "\(expected)")
            for (ext, faststart) in [("mov", false), ("mp4", false), ("mp4", true)] {
                let output = folder.file("cut\(number)-\(mode)-\(faststart).\(ext)")
                let result = try await Run.vtrim(["cut", source, "--start", "0.2", "--end", "0.8", "--mode", mode, "--preset", "ultrafast",
                                            "-o", output] + (faststart ? ["--faststart"] : []))
                #expect(result.status == 0, "\(result)")
                await #expect(try appleLines(output) == expected, "\(source) → \(ext) \(mode)")
                if number == 0, !faststart {
                    let plan = try await Run.vtrim(["cut", "--json", "--dry-run", source, "--start", "0.2", "--end", "0.8", "--mode", mode, "-o", output + ".x.\(ext)"])
                    #expect((plan.jsonLines.first?["metadata_kept"] as? [String])?.count == 5, "\(plan)")
                }
                let written = try await tags(output), original = try await tags(source)
                let keys = written.keys.filter { $0.hasPrefix("com.apple") }.sorted()
                #expect(keys == original.keys.filter { $0.hasPrefix("com.apple") }.sorted(), "\(written)")
                #expect(written["title"] == original["title"])
                #expect(try await MediaFacts.decodeErrors(output).isEmpty)
            }
        }
        // Only where the source had them.
        let plain = folder.file("plain.mp4")
        let plainCut = try await Run.vtrim(["cut", TestPaths.fixture("h264-aac.mp4"), "--start", "1", "--end", "2", "--mode", mode, "-o", plain])
        #expect(plainCut.status == 0, "\(plainCut)")
        await #expect(try appleLines(plain).isEmpty)
        if let gopro = Self.shared("gopro-gpmf-parser/karma.mp4") {
            let output = folder.file("gopro.mp4")
            #expect(try await Run.vtrim(["cut", gopro, "--start", "1", "--end", "2", "--mode", mode, "--preset", "ultrafast", "-o", output]).status == 0)
            await #expect(try tags(output)["firmware"] == "HD5.02.02.00.00")
        }
    }

    /// DivX/Xvid AVIs with packed B-frames: exact cuts work into MP4, MKV and AVI and hold the source's
    /// frames 2.0–4.0 s (each output frame nearest its own source frame, not a neighbour); smart falls back
    /// to exact with a warning; copies keep the packed stream in MKV/AVI and are refused into MP4 with the reason.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func packedBFramesCutExactly() async throws {
        let source = try #require(Self.shared("debian-opencv-doc/Megamind_bugy.avi"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let width = 96, height = 72
        func frames(_ path: String) async throws -> [RGBImage] {
            let raw = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf", "scale=\(width):\(height)",
                                              "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            try #require(raw.status == 0, "\(raw)")
            let size = width * height * 3, data = [UInt8](raw.stdoutData)
            return (0..<(data.count / size)).map { RGBImage(width: width, height: height, stride: width * 3, pixels: Array(data[($0 * size)..<(($0 + 1) * size)])) }
        }
        let reference = try await frames(source)
        try #require(reference.count > 130)
        for ext in ["mp4", "mkv", "avi"] {
            let output = folder.file("exact.\(ext)")
            let result = try await Run.vtrim(["cut", "--json", source, "--start", "2", "--end", "4", "--mode", "exact", "-o", output])
            #expect(result.status == 0, "\(ext): \(result)")
            let written = try await frames(output)
            #expect(written.count == 60, "\(ext): \(written.count) frames")
            var nearest = 0
            for (index, frame) in written.enumerated() where index + 61 < reference.count {
                let own = ImageCompare.psnr(frame, reference[60 + index])
                if own >= ImageCompare.psnr(frame, reference[59 + index]), own >= ImageCompare.psnr(frame, reference[61 + index]) { nearest += 1 }
            }
            #expect(nearest >= 57, "\(ext): \(nearest) of 60 frames match their own source frame best")
        }
        let smart = try await Run.vtrim(["cut", "--json", source, "--start", "2", "--end", "4", "--mode", "smart", "-o", folder.file("smart.mp4")])
        #expect(smart.status == 0 && smart.jsonLines.first?.codes("warnings").contains("smart_fallback") == true, "\(smart)")
        let refused = try await Run.vtrim(["cut", source, "--start", "2", "--end", "4", "-o", folder.file("copy.mp4")])
        #expect(refused.status == 1 && refused.stderr.contains("packs B-frames"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("copy.mp4")))
        for ext in ["mkv", "avi"] {
            let copied = try await Run.vtrim(["cut", source, "--start", "2", "--end", "4", "-o", folder.file("copy.\(ext)")])
            #expect(copied.status == 0, "\(copied)")
            // Known short: packed B-frames copied into Matroska keep their packing (no mpeg4_unpack_bframes), and
            // ffmpeg's null muxer complains of the decoded frames' times; the frames themselves decode cleanly.
            let errors = try await MediaFacts.decodeErrors(folder.file("copy.\(ext)"), timingAsIn: source)
                .filter { ext != "mkv" || !MediaFacts.isTimingComplaint($0) }
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    /// A healthy FLV whose audio runs 0.1 s past its video: past the video's last frame the last frame is
    /// shown — no "damaged or cut short" warning, no grey cell — in both modes; and its frame rate is the
    /// packets' 30 fps, not the 1000 fps FFmpeg reads from its time base.
    @Test func audioOutlastingVideoShowsTheLastFrame() async throws {
        let path = TestPaths.fixture("flv-audio-longer.flv")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for mode in ["accurate", "fast"] {
            let result = try await Run.vtrim(["thumbs", "--json", path, "--count", "12", "--height", "48", "--mode", mode,
                                        "-o", folder.file("\(mode).png")])
            #expect(result.status == 0, "\(mode): \(result)")
            let report = try #require(result.jsonLines.first)
            let cells = try #require(report["cells"] as? [[String: Any]])
            #expect(cells.count == 12 && cells.allSatisfy { $0["error"] == nil }, "\(mode): \(result.stdout)")
            #expect(report.codes("warnings").isEmpty, "\(mode): \(result.stdout)")
        }
        let probe = try await Run.vtrim(["probe", "--json", path])
        let video = try #require(probe.jsonLines.first?["video"] as? [String: Any], "\(probe)")
        let fps = try #require(video["fps"] as? Double, "\(probe.stdout)")
        #expect(abs(fps - 30) < 0.5, "\(probe.stdout)")
    }

    /// Phone and camera data tracks are named for what they are, once per input (not on every row of a list).
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func dataTracksAreNamedOncePerInput() async throws {
        let path = try #require(Self.shared("metadata-extractor-images/with-gps.mov"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let list = folder.file("list.csv")
        try "0,0.5,a\n0.5,1,b\n".write(toFile: list, atomically: true, encoding: .utf8)
        let result = try await Run.vtrim(["cut", "--json", path, "--list", list, "--output-dir", folder.path])
        #expect(result.status == 0, "\(result)")
        let rows = result.jsonLines
        #expect(rows.count == 2)
        let first = rows.first?.messages("notes").filter { $0.contains("is not cut") } ?? []
        #expect(!first.isEmpty && first.allSatisfy { $0.contains("timed metadata ('mebx')") }, "\(first)")
        #expect(rows.last?.codes("notes").contains("stream_left_out") == false, "\(result.stdout)")
    }

    /// GoPro telemetry (gpmd, one sample a second): kept into MP4/MOV with its samples in the range, retimed onto
    /// the output's timeline (split at a join's seams); into Matroska, which cannot hold it, named as left out;
    /// the firmware description track (fdsc, which FFmpeg mangles) named and left out.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func goProTelemetryKeepsItsSamples() async throws {
        let path = try #require(Self.shared("gopro-gpmf-parser/karma.mp4"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dry = try await Run.vtrim(["cut", "--json", "--dry-run", path, "--start", "0", "--end", "1", "-o", folder.file("karma.mkv")])
        #expect(dry.status == 0, "\(dry)")
        let notes = dry.jsonLines.first?.messages("notes") ?? []
        #expect(notes.contains { $0.contains("GoPro telemetry ('gpmd')") } && notes.contains { $0.contains("'fdsc'") }, "\(notes)")
        /// The telemetry samples' times and lengths (seconds) in an output.
        func samples(_ output: String) async throws -> [(Double, Double)] {
            let streams = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_tag_string", "-of", "csv=p=0", output]).stdout
            let index = try #require(streams.split(separator: "\n").first { $0.hasSuffix(",gpmd") }?.split(separator: ",").first, "\(streams)")
            let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", String(index), "-show_entries", "packet=pts_time,duration_time",
                                                 "-of", "csv=p=0", output])
            return probe.stdout.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").compactMap { Double($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
        }
        // Source samples start every 1.001 s: 1.1–4.05 s holds parts of those from 1.001, 2.002, 3.003 and 4.004.
        let cut = folder.file("cut.mp4")
        let single = try await Run.vtrim(["cut", "--json", path, "--start", "1.1", "--end", "4.05", "-o", cut])
        #expect(single.status == 0 && single.jsonLines.first?.codes("notes").contains("telemetry_kept") == true, "\(single)")
        let kept = try await samples(cut)
        #expect(kept.count == 4 && abs((kept.first?.0 ?? -1)) <= 0.001, "\(kept)")
        // Each sample at its own place: a source second apart, nothing past the output's end.
        #expect(zip(kept.dropFirst(), kept.dropFirst(2)).allSatisfy { abs($1.0 - $0.0 - 1.001) <= 0.001 }, "\(kept)")
        let length = try await MediaFacts.videoDuration(cut)
        #expect(kept.allSatisfy { $0.0 + $0.1 <= length + 0.002 }, "\(kept) in \(length) s")
        // A join: the ranges' samples back to back (6.3–9.7 s holds parts of those from 6.006 to 9.009).
        let joined = folder.file("join.mov")
        let join = try await Run.vtrim(["cut", "--json", path, "--keep", "1.1..4.05", "--keep", "6.3..9.7", "--mode", "smart", "--preset", "ultrafast", "-o", joined])
        #expect(join.status == 0, "\(join)")
        let both = try await samples(joined)
        let seam = (join.jsonLines.first?["segments"] as? [[String: Any]])?.last?["output_start"] as? Double ?? -1
        #expect(both.count == 8 && abs((both[safe: 4]?.0 ?? -1) - seam) <= 0.002, "\(both), seam at \(seam)")
    }

    /// A phone MP4's QuickTime chapter track is called what it is, not "a data track (timecode or telemetry)",
    /// where it cannot be kept (MPEG-TS holds no chapters; MP4 keeps them: `StreamsOnTimelineTests`).
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func chapterTrackIsNamed() async throws {
        let path = try #require(Self.shared("androidx-media/sample_with_chapters.mp4"))
        let result = try await Run.vtrim(["cut", "--json", "--dry-run", path, "--start", "0.2", "--end", "0.8", "-o", "/tmp/chapters.cut.ts"])
        #expect(result.status == 0, "\(result)")
        let notes = result.jsonLines.first?.messages("notes") ?? []
        #expect(notes.contains { $0.contains("chapter track 'text'") && $0.contains("chapters are left out") }, "\(notes)")
        #expect(!notes.contains { $0.contains("data track") || $0.contains("text track") }, "\(notes)")
    }

    /// Audio-only M4A: cut to .m4a by default, and .m4a accepted as an output.
    @Test func audioOnlyM4ACutsToM4A() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("voice.m4a")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("audio-only.m4a"), toPath: input)
        let byDefault = try await Run.vtrim(["cut", "--json", input, "--start", "0.5", "--end", "1.5"])
        #expect(byDefault.status == 0, "\(byDefault)")
        #expect(byDefault.jsonLines.first?["output"] as? String == folder.file("voice.cut.m4a"), "\(byDefault.stdout)")
        let named = try await Run.vtrim(["cut", "--json", input, "--start", "0.5", "--end", "1.5", "-o", folder.file("named.m4a")])
        #expect(named.status == 0, "\(named)")
        let format = try await Run.tool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                                                       folder.file("named.m4a")])
        #expect(format.stdout.contains("mp4"), "\(format)")
    }

    /// Thumbnails asked of sound are its waveform (issue 49): an audio file in a `thumbs -r` folder or named gets a strip of
    /// the same cells, bars where it is loud and none where it is silent, and `--waveform-data` writes BBC audiowaveform's
    /// JSON (peaks.js); a file with neither picture nor sound stays an error.
    @Test func soundGetsAWaveformStrip() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 2 s of tone, 2 s of silence, 2 s of tone.
        let song = folder.file("song.m4a")
        let made = try await Run.tool("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:d=6:sample_rate=48000,volume='if(between(t,2,4),0,6)':eval=frame",
                                                       "-c:a", "aac", song])
        #expect(made.status == 0, "\(made)")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac-nob.mp4"), toPath: folder.file("clip.mp4"))
        let walk = try await Run.vtrim(["thumbs", "--json", "-r", folder.path, "--count", "4", "--height", "32"])
        #expect(walk.status == 0, "\(walk)")
        let listed = try #require(walk.jsonLines.first { ($0["path"] as? String)?.hasSuffix("song.m4a") == true })
        #expect(listed["mode"] as? String == "waveform" && (listed["cells"] as? [Any])?.count == 4, "\(walk.stdout)")
        let strip = folder.file("s.png"), data = folder.file("s.json")
        let named = try await Run.vtrim(["thumbs", "--json", song, "--count", "3", "--height", "40", "-o", strip, "--waveform-data", data])
        #expect(named.status == 0, "\(named)")
        // The middle cell (2–4 s: silence) has no bar; the others do.
        let image = try PNGFile.read(strip)
        let cellWidth = image.width / 3
        // Each cell's middle (the codec rings a little across the changes at 2 and 4 s).
        func barPixels(_ cell: Int) -> Int {
            (cell * cellWidth + cellWidth / 5..<(cell + 1) * cellWidth - cellWidth / 5).reduce(0) { count, x in
                count + (0..<image.height).filter { y in image.pixel(x: x, y: y).2 > 200 }.count
            }
        }
        // Silence draws only the middle line (at most two pixels a column).
        let columns = cellWidth - 2 * (cellWidth / 5)
        #expect(barPixels(0) > 4 * columns && barPixels(2) > 4 * columns && barPixels(1) <= 2 * columns, "\(barPixels(0)) \(barPixels(1)) \(barPixels(2))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: data))) as? [String: Any])
        let values = json["data"] as? [Int] ?? []
        #expect(json["version"] as? Int == 2 && json["bits"] as? Int == 8 && json["channels"] as? Int == 1, "\(json.keys)")
        #expect(values.count == 2 * (json["length"] as? Int ?? -1) && values.allSatisfy { (-128...127).contains($0) } && values.contains { $0 > 50 })
        let none = folder.file("none.mp4")
        let silent = try await Run.tool("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=d=1", "-f", "data", "-map", "0", "-t", "1", none])
        if silent.status == 0 {
            let refused = try await Run.vtrim(["thumbs", "--json", none, "-o", folder.file("n.png")])
            #expect(refused.status == 1, "\(refused)")
        }
    }

    /// A second run over a folder does not cut the first run's cuts (x.cut.mp4 → x.cut.cut.mp4).
    @Test func aSecondRunLeavesTheFirstRunsOutputsAlone() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac-nob.mp4"), toPath: folder.file("clip.mp4"))
        for _ in 0..<2 {
            let result = try await Run.vtrim(["cut", "-r", folder.path, "--start", "0", "--end", "1", "--skip-existing"])
            #expect(result.status == 0, "\(result)")
        }
        let thumbs = try await Run.vtrim(["thumbs", "-r", folder.path, "--count", "2", "--height", "32"])
        #expect(thumbs.status == 0, "\(thumbs)")
        #expect(folder.entries() == ["clip.cut.mp4", "clip.mp4", "clip.thumbs.png"])
    }

    /// A folder with nothing to process says so (a warning, JSON `skipped`/`no_media`); --strict fails it.
    @Test func anEmptyWalkIsReported() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", "-r", folder.path])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first, "\(result)")
        #expect(report["path"] as? String == folder.path && report["skipped"] as? Bool == true && report["reason"] as? String == "no_media")
        #expect(result.stderr.contains("no media files found"), "\(result.stderr)")
        let strict = try await Run.vtrim(["thumbs", "-r", "--strict", folder.path])
        #expect(strict.status == 1, "\(strict)")
    }

    /// `serve` names what is wrong with what it was given: a path that does not exist is not "not a folder".
    @Test(.enabled(if: !TestPaths.sanitized, "the sanitized build leaves serve out"))
    func serveSaysAMissingPathDoesNotExist() async throws {
        let result = try await Run.vtrim(["serve", "/nonexistent/vtrim-\(UUID().uuidString)"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("does not exist"), "\(result.stderr)")
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
