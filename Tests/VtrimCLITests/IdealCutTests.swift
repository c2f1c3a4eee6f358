import Foundation
import Synchronization
import TestSupport
import Testing

/// The ideal cut (DESIGN.md), checked frame by frame against the source decoded by ffprobe: a copy into
/// MP4/MOV presents exactly the frames from the frame at `start` through the last one that begins before
/// `end`; into Matroska/WebM those frames are a contiguous part of what is presented; an exact cut lasts
/// `end − start`; a dry run plans what the real run does. Over the fixtures and every undamaged MP4, MOV,
/// MKV and WebM file in ../shared/media, at 30–70 %, on keyframes and between frames.
struct IdealCutTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let path: String
        let name: String
        let start: Double
        let end: Double
        let kind: String
        var testDescription: String { "\(name) \(kind) \(String(format: "%.6f", start))–\(String(format: "%.6f", end))" }
        var ext: String { (path as NSString).pathExtension.lowercased() }
        var editLists: Bool { ["mp4", "mov", "m4v", "3gp"].contains(ext) }
    }

    /// Source frames in presentation order (seconds on the container's timeline) and keyframe times.
    struct SourceFrames {
        let times: [Double]
        let keyframes: [Double]

        /// Read once per file (several examples share a source).
        static func of(_ path: String) async throws -> SourceFrames {
            if let known = cache.withLock({ $0[path] }) { return known }
            let read = try await SourceFrames(path)
            cache.withLock { $0[path] = read }
            return read
        }

        private static let cache = Mutex<[String: SourceFrames]>([:])

        private init(_ path: String) async throws {
            times = try await Reference.frameTimes(path).sorted()
            let start = try await Reference.containerStart(path)
            let packets = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                   "-of", "csv=p=0", path]).stdoutLines
            keyframes = packets.compactMap { line -> Double? in
                let fields = line.split(separator: ",")
                guard fields.count >= 2, fields[1].hasPrefix("K"), let time = Double(fields[0]) else { return nil }
                return time - start
            }.sorted()
        }

        /// The ideal frames of [start, end), with ½ µs tolerance as vtrim reads times printed to the µs.
        func ideal(_ start: Double, _ end: Double) -> ArraySlice<Double> {
            let firstIndex = times.lastIndex { $0 <= start + 5e-7 } ?? 0
            let lastIndex = times.lastIndex { $0 < end - 5e-7 } ?? firstIndex
            return times[firstIndex...max(firstIndex, lastIndex)]
        }

        /// Where the frame at `time` ends: the next frame's time, or one frame more at the end.
        func frameEnd(_ time: Double) -> Double {
            if let next = times.first(where: { $0 > time + 1e-9 }) { return next }
            return time + typicalFrame
        }

        var typicalFrame: Double {
            guard times.count > 1 else { return 1.0 / 30 }
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
            return gaps[gaps.count / 2]
        }
    }

    static func examples(_ path: String, name: String) async -> [Example] {
        guard let frames = try? await SourceFrames.of(path), frames.times.count >= 4 else { return [] }
        let times = frames.times
        let duration = (times.last ?? 0) + frames.typicalFrame
        var examples = [Example(path: path, name: name, start: duration * 0.3, end: duration * 0.7, kind: "30-70%")]
        // On a keyframe (the second, where there is one) to a frame's own time.
        let key = frames.keyframes.count > 1 ? frames.keyframes[1] : frames.keyframes.first ?? times[0]
        if let target = times.dropFirst(times.count * 4 / 5).first, target > key {
            examples.append(Example(path: path, name: name, start: key, end: target, kind: "keyframe"))
        }
        // Between frames at both ends.
        let a = times.count / 4, b = times.count * 3 / 4
        if b > a + 1 {
            examples.append(Example(path: path, name: name, start: (times[a] + times[a + 1]) / 2, end: (times[b] + times[b + 1]) / 2,
                                    kind: "between"))
        }
        return examples.filter { $0.end > $0.start }
    }

    private static let fixtures = Once {
        var made: [Example] = []
        for name in ["h264-aac.mp4", "h264-aac-nob.mp4", "vfr.mp4", "hevc.mp4", "h264-aac.mkv", "vp9-opus.webm", "rot90.mp4"] {
            made += await examples(TestPaths.fixture(name), name: name)
        }
        return made
    }
    static var fixtureExamples: [Example] { get async { (try? await fixtures.value) ?? [] } }

    /// The real-world files (skipped under the sanitizers, where the fixtures cover the same code at a
    /// fraction of the time); their 30–70 % copy is CutConformanceTests' cut, here the starts on and between frames.
    private static let media = Once {
        let rows = TestPaths.sanitized ? [] : ManifestRow.load().filter { row in
            let ext = (row.file as NSString).pathExtension.lowercased()
            let duration = row["format_duration_s"].flatMap(Double.init) ?? 0
            return row["video_codec"] != nil && row["damaged"] == "no" && (row["decoded_video_frames"].flatMap(Int.init) ?? 0) >= 4
                && ["mp4", "mov", "m4v", "mkv", "webm"].contains(ext) && duration > 0 && duration < 100
        }
        var made: [Example] = []
        for row in rows { made += await examples(row.path, name: row.file).filter { $0.kind != "30-70%" } }
        return made
    }
    static var mediaExamples: [Example] { get async { (try? await media.value) ?? [] } }

    /// Output frames mapped back to the source's timeline through what vtrim reported.
    private static func outputFrames(_ times: [Double], object: [String: Any]) throws -> [Double] {
        let actual = try #require(object["actual"] as? [String: Any])
        let start = try #require(actual["start"] as? Double)
        guard let first = times.first else { return [] }
        return times.map { $0 - first + start }
    }

    @Test(arguments: await fixtureExamples + mediaExamples)
    func copyPresentsTheIdealFrames(_ example: Example) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try await SourceFrames.of(example.path)
        let output = folder.file("cut." + (example.ext == "m4v" ? "mp4" : example.ext))
        let result = try await Run.vtrim(["cut", "--json", example.path, "--start", String(format: "%.6f", example.start),
                                    "--end", String(format: "%.6f", example.end), "-o", output])
        let object = try #require(result.jsonLines.first, "\(result)")
        try #require(result.status == 0, "\(result)")
        let ideal = source.ideal(example.start, example.end)
        let decoded = try await Reference.frameTimes(output).sorted()
        let presented = try Self.outputFrames(decoded, object: object)
        let frame = source.typicalFrame
        if example.editLists {
            // Exactly the ideal frames: the edit list hides the lead-in and what follows the last one.
            #expect(presented.count == ideal.count, "presented \(presented.count) frames, ideal \(ideal.count)")
            #expect(abs((presented.first ?? -1) - (ideal.first ?? -2)) < 1e-3, "starts at \(presented.first ?? -1), ideal \(ideal.first ?? -1)")
            #expect(decoded.first.map { abs($0) < 1e-3 } ?? false, "output does not start at 0")
            for (ours, theirs) in zip(presented, ideal) where abs(ours - theirs) > min(1e-3, frame / 4) {
                Issue.record("frame at \(ours) s where the source has \(theirs) s")
                break
            }
            let idealDuration = source.frameEnd(ideal.last ?? 0) - (ideal.first ?? 0)
            let container = try await MediaFacts.formatDuration(output)
            #expect(abs(container - idealDuration) <= frame + 1e-3, "container \(container) s, ideal \(idealDuration) s")
            if let video = try await MediaFacts.streamDuration(output, selector: "v:0") {
                #expect(abs(video - idealDuration) <= frame + 1e-3, "video stream \(video) s, ideal \(idealDuration) s")
            }
            if MediaFacts.gstreamerAvailable, let gst = try await MediaFacts.gstreamerDuration(output) {
                #expect(abs(gst - idealDuration) <= frame + 1e-3, "GStreamer \(gst) s, ideal \(idealDuration) s")
            }
        } else {
            // Without edit lists: from the keyframe, contiguous, the ideal frames among them.
            let firstIndex = try #require(source.times.firstIndex { abs($0 - (presented.first ?? -1)) < 1e-3 },
                                          "the output's first frame \(presented.first ?? -1) s is not a source frame")
            let run = source.times[firstIndex..<min(source.times.count, firstIndex + presented.count)]
            #expect(run.count == presented.count && zip(run, presented).allSatisfy { abs($0 - $1) < 2e-3 },
                    "the presented frames are not a contiguous run of the source's")
            #expect(Set(ideal.map { Int(($0 * 1000).rounded()) }).isSubset(of: Set(presented.map { Int(($0 * 1000).rounded()) })),
                    "ideal frames missing")
        }
        #expect(try await MediaFacts.decodeErrors(output, timingAsIn: example.path).isEmpty)
    }

    /// Exact cuts last their frames' whole span (DESIGN.md's ideal cut: from the start of the frame at `start` to the end
    /// of the last frame that begins before `end`), to a tick of the output's video timescale (the container duration,
    /// which follows the edit list in MP4/MOV and the blocks in Matroska); every frame, the first and last included,
    /// keeps its source duration — no sliver at either end.
    @Test(arguments: await (fixtureExamples + mediaExamples).filter { $0.kind == "between" && $0.end - $0.start < 6 })
    func exactLastsItsFramesSpan(_ example: Example) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("exact." + (example.ext == "m4v" ? "mp4" : example.ext))
        let result = try await Run.vtrim(["cut", "--json", example.path, "--start", String(format: "%.6f", example.start),
                                    "--end", String(format: "%.6f", example.end), "--mode", "exact",
                                    // The frames' times and the length are checked, not their pictures: a fast encode that keeps B-frames.
                                    "--preset", "superfast", "-o", output])
        try #require(result.status == 0, "\(result)")
        let timeBase = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base",
                                                "-of", "csv=p=0", output]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = timeBase.split(separator: "/").compactMap { Double($0) }
        let tick = parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : 0.001
        let source = try await SourceFrames.of(example.path)
        let ideal = Array(source.ideal(example.start, example.end))
        let span = source.frameEnd(ideal.last ?? 0) - (ideal.first ?? 0)
        let container = try await MediaFacts.formatDuration(output)
        #expect(abs(container - span) <= tick + 1e-6, "lasts \(container) s, the frames' span is \(span) s (tick \(tick))")
        let actual = result.jsonLines.first?["actual"] as? [String: Any]
        let reported = try #require(actual?["duration"] as? Double)
        #expect(abs(reported - span) <= tick + 1e-6, "reported \(reported) s")
        let reportedStart = try #require(actual?["start"] as? Double)
        #expect(abs(reportedStart - (ideal.first ?? 0)) <= max(tick, 1e-3) + 1e-6, "reported start \(reportedStart) s, first frame \(ideal.first ?? 0) s")
        // The ideal frames, each at its source time from the first one's (variable frame rates included).
        let frames = try await Reference.frameTimes(output).sorted()
        #expect(frames.count == ideal.count, "\(frames.count) frames, ideal \(ideal.count)")
        if frames.count == ideal.count, let first = frames.first, let idealFirst = ideal.first {
            for (ours, theirs) in zip(frames, ideal) where abs((ours - first) - (theirs - idealFirst)) > max(tick, 1e-3) + 1e-6 {
                Issue.record("frame at \(ours - first) s from the first, where the source's is \(theirs - idealFirst) s")
                break
            }
        }
        #expect(try await MediaFacts.decodeErrors(output, timingAsIn: example.path).isEmpty)
    }

    /// A dry run plans exactly what the real run does: mode, parts, presented span, plan-time warnings,
    /// and — with --strict — the same verdict.
    @Test(arguments: await fixtureExamples.filter { $0.kind == "between" }, ["copy", "exact", "smart"])
    func dryRunIsTheRealRunsPlan(_ example: Example, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut." + example.ext)
        let range = ["--start", String(format: "%.6f", example.start), "--end", String(format: "%.6f", example.end), "--mode", mode]
        let dry = try await Run.vtrim(["cut", "--json", "--dry-run", example.path, "-o", output] + range)
        let real = try await Run.vtrim(["cut", "--json", example.path, "-o", output] + range)
        let planned = try #require(dry.jsonLines.first), done = try #require(real.jsonLines.first)
        func canonical(_ value: Any?) -> String {
            guard let value else { return "absent" }
            guard JSONSerialization.isValidJSONObject([value]), let data = try? JSONSerialization.data(withJSONObject: [value], options: .sortedKeys) else {
                return "\(value)"
            }
            return String(decoding: data, as: UTF8.self)
        }
        for key in ["mode", "planned", "smart", "streams", "keyframe", "pre_roll", "encoder"] {
            #expect(canonical(planned[key]) == canonical(done[key]), "\(key): \(canonical(planned[key])) vs \(canonical(done[key]))")
        }
        #expect(planned.codes("warnings") == done.codes("warnings").filter { !["decode_errors", "truncated"].contains($0) })
        #expect(planned.codes("notes") == done.codes("notes"))
        let strictDry = try await Run.vtrim(["cut", "--json", "--dry-run", "--strict", example.path, "-o", folder.file("s." + example.ext)] + range)
        let strictReal = try await Run.vtrim(["cut", "--json", "--strict", example.path, "-o", folder.file("s." + example.ext)] + range)
        #expect(strictDry.status == strictReal.status)
    }
}
