import Foundation
import TestSupport
import Testing

/// `vtrim propose` and `vtrim cut --propose` on media with known truth: speech made with espeak-ng and sox, with pauses
/// of known length, over a moving test picture; a clip of distinct shots at known frames after a black lead-in.
/// Why generated media could not be made.
struct ProposeTests {
    struct Talk: Sendable {
        var path: String
        /// The digital silences between sentences (seconds); a 0.3 s pause between two of them is no silence at 0.5 s.
        var silences: [(Double, Double)]
    }

    /// Four sentences, each trimmed of its own edge silence, joined by pauses of 1.5, 0.3 and 2.0 s; H.264 with a
    /// keyframe every 0.5 s (so each long pause holds clean starts) and AAC (test media, made once; the silences' times,
    /// measured while making it, kept beside it).
    static let talkMade = Once { () async throws -> Talk in
        let path = try await TestMedia.file("talk.mp4", key: ["propose-talk", "espeak-ng", "sox", "3"]) { output in
            let folder = (output as NSString).deletingLastPathComponent
            func file(_ name: String) -> String { folder + "/" + name }
            let sentences = ["The first part of this talk is about trimming video.", "A pause follows, then the second part.",
                             "This one comes after a short breath.", "And the last sentence closes the talk."]
            var durations: [Double] = []
            for (index, text) in sentences.enumerated() {
                let raw = file("raw\(index).wav"), trimmed = file("s\(index).wav")
                try check(try await Run.tool("espeak-ng", ["-w", raw, "-s", "165", text]), "espeak-ng")
                try check(try await Run.tool("sox", [raw, "-r", "48000", trimmed, "silence", "1", "0.02", "1%", "reverse", "silence", "1", "0.02", "1%", "reverse"]), "sox")
                let length = try await Run.tool("soxi", ["-D", trimmed])
                guard let seconds = Double(length.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw ReferenceError(message: "soxi: \(length)") }
                durations.append(seconds)
            }
            let pauses = [1.5, 0.3, 2.0]
            var parts: [String] = [], silences: [String] = [], time = 0.0
            for index in sentences.indices {
                parts.append(file("s\(index).wav"))
                time += durations[index]
                guard index < pauses.count else { break }
                let pause = file("p\(index).wav")
                try check(try await Run.tool("sox", ["-n", "-r", "48000", "-c", "1", pause, "trim", "0", String(pauses[index])]), "sox")
                parts.append(pause)
                if pauses[index] >= 0.5 { silences.append("\(time) \(time + pauses[index])") }
                time += pauses[index]
            }
            try silences.joined(separator: "\n").write(toFile: file("silences.txt"), atomically: true, encoding: .utf8)
            let speech = file("speech.wav")
            try check(try await Run.tool("sox", parts + [speech]), "sox")
            try check(try await Run.tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-i", speech, "-shortest",
                                                   "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", output]), "ffmpeg")
        }
        let text = try String(contentsOfFile: (path as NSString).deletingLastPathComponent + "/silences.txt", encoding: .utf8)
        let silences = text.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let times = line.split(separator: " ").compactMap { Double($0) }
            return times.count == 2 ? (times[0], times[1]) : nil
        }
        return Talk(path: path, silences: silences)
    }

    static func check(_ result: RunResult, _ tool: String) throws {
        guard result.status == 0 else { throw ReferenceError(message: "\(tool) failed: \(result)") }
    }

    /// Shots of distinct content after 1.2 s of black: cuts at 1.2, 4.2, 6.7, 9.7 and 11.7 s (an animated zoom among them).
    static func shots() async throws -> String { try await TestMedia.shots() }

    static let cuts = [1.2, 4.2, 6.7, 9.7, 11.7]

    static func spans(_ object: [String: Any], _ key: String, kind: String? = nil) -> [(Double, Double)] {
        ((object[key] as? [[String: Any]]) ?? []).filter { kind == nil || $0["kind"] as? String == kind }
            .compactMap { entry in (entry["start"] as? Double).flatMap { start in (entry["end"] as? Double).map { (start, $0) } } }
    }

    /// ffmpeg's own silencedetect at the same threshold and length, from its log.
    static func silencedetect(_ path: String, minSeconds: Double = 0.5) async throws -> [(Double, Double)] {
        let result = try await Run.tool("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-vn", "-af", "silencedetect=n=-30dB:d=\(minSeconds)", "-f", "null", "-"])
        var starts: [Double] = [], ends: [Double] = []
        for line in result.stderrLines {
            if let range = line.range(of: "silence_start: ") { starts.append(Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces)) ?? .nan) }
            if let range = line.range(of: "silence_end: ") {
                ends.append(Double(line[range.upperBound...].split(separator: " ").first ?? "") ?? .nan)
            }
        }
        return zip(starts, ends).map { ($0, $1) }
    }

    @Test func silencesMatchTheTruthAndSilencedetect() async throws {
        let talk = try await Self.talkMade.value
        let result = try await Run.vtrim(["propose", talk.path, "--silence", "--snap", "keyframes", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let found = Self.spans(object, "detections", kind: "silence")
        let reference = try await Self.silencedetect(talk.path)
        #expect(found.count == talk.silences.count && reference.count == talk.silences.count, "found \(found), silencedetect \(reference), truth \(talk.silences)")
        for (index, truth) in talk.silences.enumerated() {
            guard index < found.count, index < reference.count else { break }
            #expect(abs(found[index].0 - truth.0) <= 0.02 && abs(found[index].1 - truth.1) <= 0.02, "silence \(index + 1): \(found[index]) against the truth \(truth)")
            #expect(abs(found[index].0 - reference[index].0) <= 0.02 && abs(found[index].1 - reference[index].1) <= 0.02,
                    "silence \(index + 1): \(found[index]) against silencedetect's \(reference[index])")
        }
        // Each seam's gap holds clean starts every 0.5 s: both sides snapped, nothing to re-encode there.
        let seams = try #require(object["seams"] as? [String: Any])
        #expect(seams["count"] as? Int == 2 && seams["copy_only"] as? Int == 2 && seams["need_edges"] as? Int == 0, "\(seams)")
        let kept = Self.spans(object, "ranges")
        for silence in found {
            // Nothing of the speech is removed: each removal lies inside a silence, at least the pad away from the speech.
            let removal = zip(kept, kept.dropFirst()).map { ($0.0.1, $0.1.0) }.first { $0.0 >= silence.0 && $0.1 <= silence.1 }
            #expect(removal.map { $0.0 >= silence.0 + 0.15 - 1e-6 && $0.1 <= silence.1 - 0.15 + 1e-6 } ?? false, "\(silence): kept \(kept)")
        }
    }

    /// Proposing and joining in one run: the join copies every seam (the report's ranges have no head or tail), shows the
    /// ideal frames (FFmpeg and GStreamer), and its audio meets the video within half an AAC frame at each seam.
    @Test func oneStepCutCopiesEverySeam() async throws {
        let talk = try await Self.talkMade.value
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("talk.cut.mp4")
        let dry = try await Run.vtrim(["cut", talk.path, "--propose", "silence", "--snap", "keyframes", "--join", "-o", output, "--dry-run", "--json"])
        #expect(dry.status == 0 && !FileManager.default.fileExists(atPath: output), "\(dry)")
        let result = try await Run.vtrim(["cut", talk.path, "--propose", "silence", "--snap", "keyframes", "--join", "-o", output, "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let planned = try #require(dry.jsonLines.first)
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.count == 3 && (planned["segments"] as? [[String: Any]])?.count == 3, "\(result)")
        #expect(object["mode"] as? String == "smart")
        #expect(object.messages("notes").contains { $0.contains("2 seams: 2 copy-only") }, "\(object.messages("notes"))")
        for (index, segment) in segments.enumerated() {
            let smart = segment["smart"] as? [String: Any]
            if index > 0 { #expect(smart?["head"] is NSNull, "range \(index + 1) re-encodes its start: \(segment)") }
            if index < segments.count - 1 { #expect(smart?["tail"] is NSNull, "range \(index + 1) re-encodes its end: \(segment)") }
        }
        let seams = (object["audio_seams"] as? [[String: Any]] ?? []).compactMap { $0["offset"] as? Double }
        #expect(seams.count == 2 && seams.allSatisfy { abs($0) <= 1024.0 / 48000 / 2 + 1e-3 }, "audio seams \(seams)")
        #expect(try await MediaFacts.decodeErrors(output).isEmpty)
        guard !TestPaths.sanitized else { return }
        let ranges = segments.compactMap { segment -> (Double, Double)? in
            guard let requested = segment["requested"] as? [String: Any], let start = requested["start"] as? Double, let end = requested["end"] as? Double else { return nil }
            return (start, end)
        }
        let source = try await FrameMatch.frames(talk.path)
        let ideal = FrameMatch.ideal(ranges, times: try await Reference.frameTimes(talk.path).sorted())
        let shown = try await FrameMatch.frames(output)
        #expect(FrameMatch.mismatches(shown, source: source, ideal: ideal).isEmpty, "FFmpeg shows \(FrameMatch.sourceIndices(shown, in: source))")
        if MediaFacts.gstreamerAvailable {
            let gstreamer = try await FrameMatch.frames(output, gstreamer: true)
            #expect(FrameMatch.mismatches(gstreamer, source: source, ideal: ideal).isEmpty, "GStreamer shows \(FrameMatch.sourceIndices(gstreamer, in: source))")
        }
    }

    /// Removing silence by default takes each pause down to its pads (`--snap none`: seams that find no clean start get
    /// smart edges), in a video and in an MP3 alike: no pause longer than 2 × pad + one frame is left (silencedetect on
    /// the output), where `--snap keyframes` keeps up to `--snap-within` more of each.
    @Test func pausesAreRemovedDownToTheirPads() async throws {
        let talk = try await Self.talkMade.value
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let longest = 2 * 0.15 + 1.0 / 30 + 0.02
        for name in ["talk.cut.mp4", "talk.cut.mp3"] {
            let output = folder.file(name)
            let result = try await Run.vtrim(["cut", talk.path, "--propose", "silence", "--join", "-o", output, "--json"])
            #expect(result.status == 0, "\(result)")
            let left = try await Self.silencedetect(output, minSeconds: longest)
            #expect(left.isEmpty, "\(name): pauses left \(left)")
        }
        let snapped = folder.file("snapped.mp4")
        let kept = try await Run.vtrim(["cut", talk.path, "--propose", "silence", "--snap", "keyframes", "--join", "-o", snapped])
        #expect(kept.status == 0, "\(kept)")
        #expect(try await !Self.silencedetect(snapped, minSeconds: longest).isEmpty, "snapping kept no more of a pause: the test cannot fail")
    }

    /// The black lead-in within one frame; scene cuts against the known ones, F1 ≥ 0.95 (a cut counts within one frame).
    @Test func blackAndScenesAreFoundWhereTheyAre() async throws {
        let path = try await Self.shots()
        let result = try await Run.vtrim(["propose", path, "--black", "--scenes", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let black = Self.spans(object, "detections", kind: "black")
        #expect(black.count == 1 && abs((black.first?.0 ?? 9)) <= 1.0 / 30 + 1e-6 && abs((black.first?.1 ?? 9) - 1.2) <= 1.0 / 30 + 1e-6, "black \(black)")
        let found = Self.spans(object, "detections", kind: "scene").map(\.0).filter { $0 > 0 }
        let hits = Self.cuts.filter { cut in found.contains { abs($0 - cut) <= 1.0 / 30 + 1e-6 } }.count
        let precision = found.isEmpty ? 0 : Double(hits) / Double(found.count), recall = Double(hits) / Double(Self.cuts.count)
        let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        #expect(f1 >= 0.95, "scene cuts \(found) against \(Self.cuts): F1 \(f1)")
        // The black lead-in is removed (its last 0.15 s kept as the pad); the scenes split the rest.
        let kept = Self.spans(object, "ranges")
        #expect(abs((kept.first?.0 ?? 0) - 1.05) <= 1e-3 && kept.count == Self.cuts.count, "kept \(kept)")
    }

    /// `cut --propose scenes` without `--join`: one clip per shot, named `{stem}.{index}.cut.{ext}`, smart by default, each
    /// showing exactly its shot's frames (FFmpeg's decode of the source, PSNR ≥ 35 dB frame by frame); the report's
    /// `actual.frames` and `segment.scene_score` per clip; `--skip-existing` skips per clip, so a rerun after one clip was
    /// lost writes that clip alone; `-o` is refused.
    @Test func scenesSplitIntoOneClipEach() async throws {
        let path = try await Self.shots()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dry = try await Run.vtrim(["cut", path, "--propose", "scenes", "--output-dir", folder.path, "--dry-run", "--json"])
        #expect(dry.status == 0 && dry.jsonLines.count == Self.cuts.count + 1, "\(dry)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let result = try await Run.vtrim(["cut", path, "--propose", "scenes", "--output-dir", folder.path, "--json"])
        #expect(result.status == 0, "\(result)")
        let clips = result.jsonLines
        let bounds = [0.0] + Self.cuts + [13.7]
        #expect(clips.count == bounds.count - 1, "\(result)")
        let source = try await Reference.frames(path, width: 64, height: 36)
        for (index, clip) in clips.enumerated() where index + 1 < bounds.count {
            let output = try #require(clip["output"] as? String)
            #expect((output as NSString).lastPathComponent == "shots.\(index + 1).cut.mp4", "\(output)")
            #expect(clip["mode"] as? String == "smart", "\(clip)")
            let effective = clip["effective"] as? [String: Any]
            let start = try #require(effective?["start"] as? Double), end = try #require(effective?["end"] as? Double)
            #expect(abs(start - bounds[index]) <= 1.0 / 30 + 1e-6 && abs(end - bounds[index + 1]) <= 1.0 / 30 + 1e-6, "clip \(index + 1): \(start)–\(end)")
            let ideal = source.filter { $0.seconds >= start - 1e-4 && $0.seconds < end - 1e-4 }
            #expect((clip["actual"] as? [String: Any])?["frames"] as? Int == ideal.count, "clip \(index + 1): \(clip)")
            let segment = clip["segment"] as? [String: Any]
            #expect(segment?["index"] as? Int == index + 1)
            #expect(index == 0 || (segment?["scene_score"] as? Double).map { $0 > 0 } == true, "clip \(index + 1): \(String(describing: segment))")
            let written = try await Reference.frames(output, width: 64, height: 36)
            #expect(written.count == ideal.count, "clip \(index + 1): \(written.count) frames, ideal \(ideal.count)")
            for (frame, expected) in zip(written, ideal) {
                let psnr = ImageCompare.psnr(frame.image, expected.image)
                #expect(psnr >= 35, "clip \(index + 1) at \(frame.seconds): PSNR \(psnr) against the source's frame at \(expected.seconds)")
            }
        }
        // Resumed per clip.
        let lost = folder.file("shots.3.cut.mp4")
        try FileManager.default.removeItem(atPath: lost)
        let again = try await Run.vtrim(["cut", path, "--propose", "scenes", "--output-dir", folder.path, "--skip-existing", "--json"])
        #expect(again.status == 0, "\(again)")
        let skipped = again.jsonLines.filter { $0["skipped"] as? Bool == true }
        #expect(skipped.count == clips.count - 1 && FileManager.default.fileExists(atPath: lost), "\(again)")
        // A skipped clip's line says what it holds, as the first run's did.
        for line in skipped {
            let first = clips.first { $0["output"] as? String == line["output"] as? String }
            #expect((line["actual"] as? [String: Any])?["frames"] as? Int == (first?["actual"] as? [String: Any])?["frames"] as? Int, "\(line)")
            #expect((line["effective"] as? [String: Any])?["start"] as? Double == (first?["effective"] as? [String: Any])?["start"] as? Double, "\(line)")
        }
        let named = try await Run.vtrim(["cut", path, "--propose", "scenes", "-o", folder.file("one.mp4")])
        #expect(named.status == 64 && named.stderr.contains("one clip per proposed range"), "\(named)")
        // A name every clip would share is refused, before anything is read.
        let same = try await Run.vtrim(["cut", path, "--propose", "scenes", "--output-dir", folder.path, "--name", "{stem}.{ext}"])
        #expect(same.status == 64 && same.stderr.contains("the same name"), "\(same)")
        // A one-row list resumed: its skip line says its range and frames too.
        let list = folder.file("one.csv")
        try "4.2,6.7,\n".write(toFile: list, atomically: true, encoding: .utf8)
        let rows = folder.file("rows")
        let first = try await Run.vtrim(["cut", path, "--list", list, "--mode", "smart", "--output-dir", rows, "--json"])
        let resumed = try await Run.vtrim(["cut", path, "--list", list, "--mode", "smart", "--output-dir", rows, "--skip-existing", "--json"])
        let written = try #require(first.jsonLines.first), skippedRow = try #require(resumed.jsonLines.first)
        #expect(skippedRow["skipped"] as? Bool == true, "\(resumed)")
        #expect((skippedRow["actual"] as? [String: Any])?["frames"] as? Int == (written["actual"] as? [String: Any])?["frames"] as? Int
            && (skippedRow["effective"] as? [String: Any])?["start"] as? Double == 4.2, "\(skippedRow)")
    }

    /// `-o` writes the list (here what to remove) in the format its extension names; a dry run writes nothing.
    @Test func listsAreWrittenLikeEveryOutput() async throws {
        let talk = try await Self.talkMade.value
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let list = folder.file("remove.csv")
        let dry = try await Run.vtrim(["propose", talk.path, "--silence", "--ranges", "remove", "-o", list, "--dry-run"])
        #expect(dry.status == 0 && !FileManager.default.fileExists(atPath: list), "\(dry)")
        let result = try await Run.vtrim(["propose", talk.path, "--silence=-30", "--ranges", "remove", "-o", list])
        #expect(result.status == 0, "\(result)")
        let rows = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 2, "\(rows)")
        let again = try await Run.vtrim(["propose", talk.path, "--silence", "-o", list])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again)")
        // A level given apart from its flag is the flag's (`--silence -35`), never an input; tuning without --propose is
        // a usage error.
        let spaced = try await Run.vtrim(["propose", "--silence", "-35", talk.path, "--json"])
        #expect(spaced.status == 0 && spaced.jsonLines.count == 1, "\(spaced)")
        let stray = try await Run.vtrim(["cut", talk.path, "--keep", "1..2", "--pad", "2", "-o", folder.file("x.mp4")])
        #expect(stray.status == 64 && stray.stderr.contains("--propose"), "\(stray)")
    }

    /// A file without audio asked for silences fails alone (`no_audio`, naming it; exit 1) while the batch goes on; a
    /// file where nothing is found keeps the whole file with a note (exit 0); a truncated file says so.
    @Test func badInputsFailAloneAndSaySo() async throws {
        let talk = try await Self.talkMade.value
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let silent = folder.file("video-only.mp4"), tone = folder.file("tone.mp4")
        try Self.check(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=2", "-c:v", "libx264", silent]), "ffmpeg")
        try Self.check(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=2", "-f", "lavfi", "-i", "sine=d=2",
                                               "-c:v", "libx264", "-c:a", "aac", "-shortest", tone]), "ffmpeg")
        let result = try await Run.vtrim(["propose", "--silence", "--json", silent, talk.path, tone])
        #expect(result.status == 1, "\(result)")
        let objects = result.jsonLines
        #expect(objects.count == 3, "\(result)")
        let failed = objects.first { ($0["path"] as? String) == silent }
        #expect((failed?["error"] as? [String: Any])?["code"] as? String == "no_audio", "\(result)")
        #expect(result.stderr.contains(silent) && result.stderr.contains("no audio"), "\(result.stderr)")
        #expect(objects.first { ($0["path"] as? String) == talk.path }?["error"] == nil)
        let quiet = try #require(objects.first { ($0["path"] as? String) == tone })
        #expect((quiet["detections"] as? [Any])?.isEmpty == true && Self.spans(quiet, "ranges").count == 1, "\(quiet)")
        #expect((quiet["notes"] as? [String])?.contains { $0.contains("nothing found") } == true, "\(quiet)")

        let truncated = try await TruncationTests.file("ts-%d.ts", 66)
        let damaged = try await Run.vtrim(["propose", "--silence", "--json", truncated])
        #expect(damaged.status == 0 && damaged.jsonLines.first?.codes("warnings").contains("truncated") == true, "\(damaged)")
    }
}
