import Foundation
import TestSupport
import Testing

/// Every stream on the output's timeline: subtitle cues retimed cue by cue (clipped to what the output
/// shows, none past its end, no offsetting edit), chapters clipped and shifted, and what a container
/// cannot hold left out with a note.
@Suite(.serialized)
struct StreamsOnTimelineTests {
    /// A 6 s H.264 (B-frames, 1 s GOPs) + AAC source with subtitle cues at 1.0–2.0, 3.0–4.5, 5.0–5.8 (as
    /// the muxer stores them: `sourceCues`), in MP4 (mov_text) or MKV (SubRip).
    static func source(_ folder: TemporaryFolder, ext: String) async throws -> String {
        let srt = folder.file("s.srt")
        try "1\n00:00:01,000 --> 00:00:02,000\none\n\n2\n00:00:03,000 --> 00:00:04,500\ntwo\n\n3\n00:00:05,000 --> 00:00:05,800\nthree\n"
            .write(toFile: srt, atomically: true, encoding: .utf8)
        let video = folder.file("v.mp4")
        if !FileManager.default.fileExists(atPath: video) {
            try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi",
                                                 "-i", "sine=f=440:sample_rate=48000", "-t", "6", "-c:v", "libx264", "-g", "30",
                                                 "-bf", "2", "-c:a", "aac", "-shortest", video]).status == 0)
        }
        let output = folder.file("subs.\(ext)")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-i", video, "-i", srt, "-map", "0", "-map", "1", "-c", "copy",
                                             "-c:s", ext == "mkv" ? "srt" : "mov_text", output]).status == 0)
        return output
    }

    /// Non-empty cues as ffprobe reads them: (start, end) seconds.
    static func cues(_ path: String) async throws -> [(Double, Double)] {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time,duration_time,size",
                                              "-of", "csv=p=0", path])
        return result.stdoutLines.compactMap { line in
            let fields = line.split(separator: ",").map { Double($0) }
            guard fields.count == 3, let start = fields[0], let duration = fields[1], let size = fields[2], size > 2 else { return nil }
            return (start, start + duration)
        }
    }

    /// Cues as GStreamer's MP4 (or Matroska) demuxer gives them (qtdemux applies edit lists on its own).
    static func gstreamerCues(_ path: String, demuxer: String = "qtdemux") async throws -> [(Double, Double)] {
        let result = try await Run.tool("gst-launch-1.0", ["filesrc", "location=\(path)", "!", demuxer, "name=d", "d.subtitle_0", "!",
                                                     "fakesink", "silent=false", "-v"])
        func clock(_ text: Substring) -> Double? {
            let parts = text.split(separator: ":").compactMap { Double($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
        }
        return result.stdoutLines.compactMap { line in
            guard line.contains("chain"), let pts = line.range(of: "pts: "), let duration = line.range(of: "duration: ") else { return nil }
            guard let start = clock(line[pts.upperBound...].prefix { $0 != "," }),
                  let length = clock(line[duration.upperBound...].prefix { $0 != "," }) else { return nil }
            // Empty MP4 samples (2 bytes: no text) clear the screen.
            if demuxer == "qtdemux", line.contains("(2 bytes") { return nil }
            return (start, start + length)
        }
    }

    /// The ideal: each source cue clipped to [from, to) of the source and moved to output 0.
    static func ideal(_ cues: [(Double, Double)], from: Double, to: Double) -> [(Double, Double)] {
        cues.compactMap { cue in
            let start = max(cue.0, from), end = min(cue.1, to)
            return end > start ? (start - from, end - from) : nil
        }
    }

    static func same(_ a: [(Double, Double)], _ b: [(Double, Double)], tolerance: Double = 0.0011) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.0 - $1.0) <= tolerance && abs($0.1 - $1.1) <= tolerance }
    }

    /// The cue that begins at source 3.0 begins at 0.5 in a 2.5–5.5 cut in every mode that shows 2.5 first
    /// (ffmpeg read it at 0.0 and GStreamer at 1.0: the track had an edit of 0.5 s); keyframe mode shows
    /// from the keyframe at 2.0.
    @Test(arguments: ["copy", "smart", "exact", "keyframe"])
    func movTextCuesAreOnTheOutputTimeline(_ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(folder, ext: "mp4")
        let output = folder.file("cut.mp4")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "--end", "5.5", "--mode", mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let from = mode == "keyframe" ? 2.0 : 2.5
        let expected = await Self.ideal(try Self.cues(input), from: from, to: 5.5)
        let read = try await Self.cues(output)
        #expect(Self.same(read, expected), "ffmpeg: \(read) ≠ \(expected)")
        if MediaFacts.gstreamerAvailable {
            let gst = try await Self.gstreamerCues(output)
            #expect(Self.same(gst, expected), "GStreamer: \(gst) ≠ \(expected)")
        }
    }

    /// A cue that began before the range's keyframe (3.5–9.0 s, 2 s GOPs) and is still showing at its start (6.5)
    /// is kept from the range's output start — Matroska and MPEG-TS store it before where reading the range begins
    /// (it was dropped there, with no note); one range and a join, every mode, read by ffmpeg and GStreamer.
    @Test(arguments: ["mkv", "mp4"], ["copy", "exact", "smart"])
    func cuesAlreadyShowingAreKept(_ ext: String, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let srt = folder.file("s.srt")
        try "1\n00:00:00,500 --> 00:00:01,200\nearly\n\n2\n00:00:03,500 --> 00:00:09,000\nlong\n\n3\n00:00:10,000 --> 00:00:11,000\nlater\n"
            .write(toFile: srt, atomically: true, encoding: .utf8)
        let input = folder.file("long-cue.\(ext)")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-i", srt, "-t", "12",
                                             "-map", "0", "-map", "1", "-c:v", "libx264", "-g", "60", "-bf", "2",
                                             "-c:s", ext == "mkv" ? "srt" : "mov_text", input]).status == 0)
        let source = try await Self.cues(input)
        for ranges in [["--start", "6.5", "--end", "8"], ["--keep", "1..2", "--keep", "6.5..8"]] {
            let output = folder.file("out-\(ranges[0]).\(ext)")
            let result = try await Run.vtrim(["cut", "--json", input] + ranges + ["--mode", mode, "-o", output])
            #expect(result.status == 0, "\(result)")
            let report = try #require(result.jsonLines.first)
            // Each range shows its planned span of the source from its place on the output.
            var spans: [(from: Double, to: Double, at: Double)] = []
            if let segments = report["segments"] as? [[String: Any]] {
                for segment in segments {
                    let planned = try #require(segment["planned"] as? [String: Any])
                    spans.append((try #require(planned["start"] as? Double), try #require(planned["end"] as? Double),
                                  try #require(segment["output_start"] as? Double)))
                }
            } else {
                let planned = try #require(report["planned"] as? [String: Any] ?? report["actual"] as? [String: Any])
                spans.append((try #require(planned["start"] as? Double), try #require(planned["end"] as? Double), 0))
            }
            let expected = spans.flatMap { span in Self.ideal(source, from: span.from, to: span.to).map { ($0.0 + span.at, $0.1 + span.at) } }
            let read = try await Self.cues(output)
            #expect(Self.same(read, expected, tolerance: 0.0015), "\(ranges) \(mode) \(ext): ffmpeg \(read) ≠ \(expected)")
            #expect(read.contains { $0.0 <= spans.last!.at + 0.0015 && $0.1 > spans.last!.at }, "the long cue shows at the range's start: \(read)")
            if MediaFacts.gstreamerAvailable {
                let gst = try await Self.gstreamerCues(output, demuxer: ext == "mkv" ? "matroskademux" : "qtdemux")
                #expect(Self.same(gst, expected, tolerance: 0.0015), "\(ranges) \(mode) \(ext): GStreamer \(gst) ≠ \(expected)")
            }
        }
    }

    /// Outputs keep the source's stream order (a copy into MKV put the subtitles first).
    @Test(arguments: ["copy", "exact"])
    func outputsKeepTheSourcesStreamOrder(_ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(folder, ext: "mkv")
        let output = folder.file("cut.mkv")
        #expect(try await Run.vtrim(["cut", input, "--start", "1.5", "--end", "4.5", "--mode", mode, "-o", output]).status == 0)
        let kinds = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", output]).stdoutLines
        let source = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", input]).stdoutLines
        #expect(kinds == source, "\(kinds) from \(source)")
    }

    /// MPEG-TS: a DVB subtitle (a bitmap display set, shown until the next one) that began at 4.47 s is still
    /// showing at 6.5: the cut into MKV starts with it. Made from a camera's PGS stream in ../shared/media.
    @Test func transportStreamBitmapCueAlreadyShowingIsKept() async throws {
        guard let shared = TestPaths.sharedMedia else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("dvb.ts")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-itsoffset", "3",
                                             "-i", shared + "/metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts", "-map", "0:v", "-map", "1:s",
                                             "-t", "12", "-c:v", "libx264", "-g", "60", "-c:s", "dvbsub", input]).status == 0)
        for mode in ["copy", "exact"] {
            let output = folder.file("\(mode).mkv")
            let result = try await Run.vtrim(["cut", input, "--start", "6.5", "--end", "8", "--mode", mode, "-o", output])
            #expect(result.status == 0, "\(result)")
            let packets = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time,size", "-of", "csv=p=0", output])
            let first = try #require(packets.stdoutLines.first?.split(separator: ",").compactMap { Double($0) }, "no cue in \(mode)")
            #expect(first.count == 2 && first[0] == 0 && first[1] > 100, "\(mode): the showing cue at 0: \(packets.stdout)")
        }
    }

    /// MKV, exact: the last cue is clipped at the cut's end, so the file lasts the cut (it lasted 3.323 s);
    /// cues keep their place against the source's own timeline. Every mode's cut is its frames' span (the plan's).
    @Test(arguments: ["exact", "copy"])
    func subRipCuesEndWithTheCut(_ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(folder, ext: "mkv")
        let output = folder.file("cut.mkv")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "--end", "5.5", "--mode", mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        let planned = try #require(report["planned"] as? [String: Any])
        // Copy into Matroska shows from the keyframe (the planned start) to the frames the end needs; exact, the span
        // from the frame at 2.5 to the end of the last frame before 5.5.
        let from = try #require(planned["start"] as? Double), to = try #require(planned["end"] as? Double)
        let expected = await Self.ideal(try Self.cues(input), from: from, to: to)
        let read = try await Self.cues(output)
        #expect(Self.same(read, expected), "\(read) ≠ \(expected)")
        let duration = try await MediaFacts.formatDuration(output)
        #expect(abs(duration - (to - from)) <= 0.0015, "file lasts \(duration) s, the cut \(to - from) s")
    }

    /// Text subtitles the container cannot hold as they are are converted to the one it holds (SubRip → mov_text
    /// into MP4, mov_text → SubRip into MKV), on the output's timeline, their text kept (they were left out).
    @Test(arguments: [("mkv", "mp4", "mov_text"), ("mp4", "mkv", "subrip")])
    func textSubtitlesAreConverted(_ from: String, _ to: String, _ codec: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(folder, ext: from)
        let output = folder.file("cut.\(to)")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "--end", "5.5", "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(report.codes("notes").contains("subtitles_converted") && !report.codes("notes").contains("stream_left_out"), "\(report.messages("notes"))")
        let codecs = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output])
        #expect(codecs.stdoutLines == [codec], "\(codecs.stdout)")
        let planned = try #require(report["planned"] as? [String: Any])
        let expected = await Self.ideal(try Self.cues(input), from: try #require(planned["start"] as? Double),
                                        to: try #require(planned["end"] as? Double))
        let read = try await Self.cues(output)
        #expect(Self.same(read, expected), "\(read) ≠ \(expected)")
        if to == "mp4", MediaFacts.gstreamerAvailable {
            let gst = try await Self.gstreamerCues(output)
            #expect(Self.same(gst, expected), "GStreamer: \(gst) ≠ \(expected)")
        }
        let text = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-map", "0:s:0", "-f", "srt", "-"]).stdout
        #expect(text.contains("two") && text.contains("three") && !text.contains("one"), "\(text)")
    }

    /// MPEG-TS and AVI cannot carry text subtitles FFmpeg 5.1 can write for players: left out with a note.
    @Test func subtitlesLeftOutOfTransportStreams() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(folder, ext: "mkv")
        let output = folder.file("cut.ts")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "2.5", "--end", "5.5", "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(report.messages("notes").contains { $0.contains("subtitles (subrip)") && $0.contains("left out") }, "\(report)")
        let streams = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", output])
        #expect(!streams.stdoutLines.contains("subtitle") && !streams.stdoutLines.contains("data"), "\(streams.stdout)")
    }

    static let chapters = [(0.0, 0.201, "Chapter 1"), (0.201, 0.8, "Chapter 2"), (0.8, 0.85, "Chapter 3")]

    /// Chapters as ffprobe reads them: (start, end, title).
    static func readChapters(_ path: String) async throws -> [(Double, Double, String)] {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title",
                                              "-of", "csv=p=0", path])
        return result.stdoutLines.compactMap { line in
            let fields = line.split(separator: ",", maxSplits: 2).map(String.init)
            guard fields.count == 3, let start = Double(fields[0]), let end = Double(fields[1]) else { return nil }
            // ffprobe's CSV quotes a title with a comma in it.
            var title = fields[2]
            if title.count >= 2, title.hasPrefix("\""), title.hasSuffix("\"") {
                title = String(title.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            }
            return (start, end, title)
        }
    }

    /// A phone MP4's chapters (a QuickTime chapter track) are kept, clipped to the cut and on its timeline,
    /// in MP4, MOV and MKV; the chapter track is not called a data track.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"),
          arguments: [("exact", "mp4"), ("copy", "mp4"), ("exact", "mov"), ("exact", "mkv"), ("smart", "mp4")])
    func chaptersAreClippedAndShifted(_ mode: String, _ ext: String) async throws {
        let path = try #require(TestPaths.sharedMedia.map { $0 + "/androidx-media/sample_with_chapters.mp4" })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.\(ext)")
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "0.1", "--end", "0.9", "--mode", mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(!report.codes("notes").contains("stream_left_out"), "\(report.messages("notes"))")
        // The output's 0 is the source's planned start: the frame shown at 0.1, in every mode (a smart cut of this
        // 1 s file falls back to exact).
        let planned = try #require(report["planned"] as? [String: Any])
        let zero = try #require(planned["start"] as? Double)
        let end = zero + (try #require((report["actual"] as? [String: Any])?["duration"] as? Double))
        let expected = Self.chapters.compactMap { chapter -> (Double, Double, String)? in
            let from = max(chapter.0, zero), to = min(chapter.1, end)
            return to > from ? (from - zero, to - zero, chapter.2) : nil
        }
        let read = try await Self.readChapters(output)
        #expect(read.count == expected.count && zip(read, expected).allSatisfy {
            abs($0.0 - $1.0) <= 0.0011 && abs($0.1 - $1.1) <= 0.0011 && $0.2 == $1.2
        }, "\(read) ≠ \(expected)")
    }

    /// `--chapters none` drops them, `--chapters ranges` writes one for the range; MPEG-TS gets a note.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func chapterChoices() async throws {
        let path = try #require(TestPaths.sharedMedia.map { $0 + "/androidx-media/sample_with_chapters.mp4" })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let none = folder.file("none.mp4"), ranges = folder.file("ranges.mkv"), ts = folder.file("cut.ts")
        #expect(try await Run.vtrim(["cut", path, "--start", "0.1", "--end", "0.9", "--mode", "exact", "--chapters", "none", "-o", none]).status == 0)
        await #expect(try Self.readChapters(none).isEmpty)
        let cut = try await Run.vtrim(["cut", "--json", path, "--start", "0.1", "--end", "0.9", "--mode", "exact", "--chapters", "ranges", "-o", ranges])
        #expect(cut.status == 0, "\(cut)")
        // One chapter as long as the cut: the span of its frames.
        let length = try #require((cut.jsonLines.first?["actual"] as? [String: Any])?["duration"] as? Double)
        let one = try await Self.readChapters(ranges)
        #expect(one.count == 1 && one.first?.2 == "Part 1" && abs((one.first?.1 ?? 0) - length) <= 0.0011, "\(one), cut \(length) s")
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "0.1", "--end", "0.9", "-o", ts])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.first?.codes("notes").contains("chapters_left_out") == true, "\(result.stdout)")
    }

    /// Every timecode ffprobe reads in a file (format and stream tags), case aside.
    static func timecodes(_ path: String) async throws -> Set<String> {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "flat", path])
        return Set(result.stdoutLines.compactMap { line -> String? in
            guard line.lowercased().contains("tags.timecode=") else { return nil }
            return line.split(separator: "=", maxSplits: 1).last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        })
    }

    /// A camera's start timecode (a MOV `tmcd` track) starts the cut at the timecode of its first kept frame:
    /// 10:00:02:13 for a cut from 2.52 s at 25 fps (the source's track was left out before), drop-frame counted by
    /// libavutil at 29.97 fps; into MKV as a tag.
    @Test(arguments: [("25", "10:00:00:00", "2.52", "10:00:02:13", "mov", "copy"), ("25", "10:00:00:00", "2.52", "10:00:02:13", "mkv", "exact"),
                      ("30000/1001", "01:00:59;00", "2.002", "01:01:01;02", "mov", "exact")])
    func timecodeStartsAtTheFirstKeptFrame(_ rate: String, _ start: String, _ from: String, _ expected: String, _ ext: String, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("camera.mov")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=\(rate)", "-t", "5", "-c:v", "libx264",
                                             "-g", "25", "-timecode", start, input]).status == 0)
        await #expect(try Self.timecodes(input).contains(start))
        let output = folder.file("cut.\(ext)")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", from, "--end", "4", "--mode", mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(report.codes("notes").contains("timecode_kept") && !report.codes("notes").contains("stream_left_out"), "\(report.messages("notes"))")
        let found = try await Self.timecodes(output)
        #expect(found == [expected], "\(found)")
    }
}
