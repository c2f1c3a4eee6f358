import Foundation
import TestSupport
import Testing

/// Smart cuts and joins into every container vtrim writes H.264/HEVC to — MP4, Matroska (no edit lists, no
/// stored decode times) and MPEG-TS (Annex B) — from a source in the same container, with B-frames: the mode
/// stays smart, FFmpeg and GStreamer show exactly the ideal frames, FFmpeg prints nothing decoding or remuxing
/// it, the copied middle is the source's slices byte for byte, and every set a slice uses is the one a reader
/// has met (the stored configuration describes every frame; no id is given two contents).
@Suite(.serialized)
struct SmartContainerTests {
    /// 4 s at 30 fps, a clean start every 15 frames, B-frames (x264's pyramid: reorder depth 2).
    static let recipes: [String: [String]] = {
        let x265 = "log-level=error:keyint=15:min-keyint=15:scenecut=0:open-gop=0:bframes=3"
        return [
            "h264": ["-c:v", "libx264", "-bf", "3", "-g", "15", "-keyint_min", "15", "-sc_threshold", "0"],
            "hevc": ["-c:v", "libx265", "-x265-params", x265, "-tag:v", "hvc1"],
            "hevc10": ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", x265, "-tag:v", "hvc1"],
        ]
    }()

    /// A source (`codec.container`): the MP4 master encoded, the others remuxed from it (test media, made once).
    static func source(_ name: String) async throws -> String {
        let codec = (name as NSString).deletingPathExtension, container = (name as NSString).pathExtension
        let input = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "4"]
        let master = try await TestMedia.ffmpeg(input + (recipes[codec] ?? []) + ["-c:a", "aac", "-shortest"], name: "\(codec).mp4")
        guard container != "mp4" else { return master }
        return try await TestMedia.ffmpeg(["-i", master, "-c", "copy"], name: name)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let codec: String
        let container: String
        let join: Bool
        var testDescription: String { "\(codec) → \(container)\(join ? ", 3 ranges" : "")" }
    }

    /// MOV shares MP4's muxer and sample entry (SmartCutTests covers it); these are the three ways sets are carried.
    /// (A single range into MP4 is SmartCutTests' own case.)
    static let cases = ["h264", "hevc", "hevc10"].flatMap { codec in
        ["mp4", "mkv", "ts"].flatMap { container in [false, true].map { Case(codec: codec, container: container, join: $0) } }
    }.filter { $0.join || $0.container != "mp4" }

    /// What the checks read from a source, read once for its two cases.
    struct SourceFacts: Sendable {
        let times: [Double]
        let frames: [[UInt8]]
        let stream: ElementaryStream?
    }

    static let facts = Once { () async -> [String: SourceFacts] in
        var facts: [String: SourceFacts] = [:]
        for name in recipes.keys.flatMap({ codec in ["mp4", "mkv", "ts"].map { "\(codec).\($0)" } }) {
            guard let path = try? await source(name), let times = try? await Reference.frameTimes(path).sorted() else { continue }
            // The sanitized pass judges no frames (below): it reads only the times.
            if TestPaths.sanitized {
                facts[name] = SourceFacts(times: times, frames: [], stream: nil)
                continue
            }
            guard let frames = try? await FrameMatch.frames(path), let stream = try? await ElementaryStream(path) else { continue }
            facts[name] = SourceFacts(times: times, frames: frames, stream: stream)
        }
        return facts
    }


    @Test(arguments: cases)
    func smartIntoEveryContainer(_ example: Case) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source("\(example.codec).\(example.container)")
        let known = try #require(try await Self.facts.value["\(example.codec).\(example.container)"], "\(input) could not be read")
        let times = known.times
        #expect(times.count == 120, "\(input): \(times.count) frames")
        guard times.count == 120 else { return }
        let spans = SmartRanges.spans(join: example.join, times: times)
        let output = folder.file("smart.\(example.container)")
        let arguments = SmartRanges.arguments(spans, join: example.join)
        let result = try await Run.vtrim(["cut", "--json", input] + arguments + ["--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(report["mode"] as? String == "smart", "\(report["warnings"] ?? "")")
        let label = example.testDescription

        // FFmpeg prints nothing decoding it, nor remuxing it (Matroska: decode times derived from the first SPS's depth).
        let decode = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "\(label): \(decode.stderr)")
        let remux = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-c", "copy", "-f", "null", "-"])
        #expect(remux.stderr.isEmpty, "\(label): \(remux.stderr)")
        // The sanitized pass runs vtrim on every path here; what it wrote is judged frame by frame in the normal pass.
        guard !TestPaths.sanitized else { return }

        // Exactly the ideal frames, in FFmpeg and in GStreamer.
        let ideal = FrameMatch.ideal(spans, times: times)
        let source = known.frames
        let ffmpeg = try await FrameMatch.frames(output)
        #expect(FrameMatch.mismatches(ffmpeg, source: source, ideal: ideal).isEmpty, "\(label): FFmpeg shows \(FrameMatch.sourceIndices(ffmpeg, in: source))")
        // GStreamer on the joins (three seams and six edges each; one range adds nothing a join lacks).
        if example.join, MediaFacts.gstreamerAvailable {
            let gstreamer = try await FrameMatch.frames(output, gstreamer: true)
            #expect(FrameMatch.mismatches(gstreamer, source: source, ideal: ideal).isEmpty,
                    "\(label): GStreamer shows \(FrameMatch.sourceIndices(gstreamer, in: source))")
        }

        // The copied middle is the source's slices byte for byte: each range's whole GOPs (a join's, 15 frames each;
        // the single range's, 60).
        let written = try await ElementaryStream(output), original = try #require(known.stream)
        let run = written.longestRunOfSlices(in: original)
        #expect(run == (example.join ? 15 : 60), "\(label): longest copied run \(run)")
        #expect(written.setProblems.isEmpty, "\(label): \(written.setProblems)")
        // 10-bit HEVC stays Main 10 in the re-encoded edges.
        if example.codec == "hevc10" {
            let profiles = Set(written.units.filter { written.type($0) == 33 }.compactMap { NALSyntax.setIds($0, hevc: true)?.profile?.profile })
            #expect(profiles == [2], "\(label): SPS profiles \(profiles)")
        }
    }
}
