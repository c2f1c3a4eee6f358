import Foundation
import TestSupport
import Testing

/// Smart cuts and joins of the frame-spliced codecs — VP9 (8- and 10-bit), VP8, AV1 from libsvtav1 at presets 4 and 12
/// and from libaom — into WebM, Matroska and MP4 (VP8: FFmpeg 5.1 writes it to no MP4): the mode stays smart; FFmpeg
/// prints nothing decoding or remuxing the output; FFmpeg (and GStreamer, on the joins) show exactly the ideal frames;
/// the copied middle is the source's packets byte for byte; and every header a reader takes from the stream — AV1's
/// sequence header in every keyframe and in the stored `av1C`/CodecPrivate, VP9's profile and colour configuration in
/// every keyframe — is the source's in-stream one.
@Suite(.serialized)
struct SmartFrameCodecTests {
    /// 4 s at 30 fps, 256×144, a keyframe every 15 frames, with Opus audio; made once in Matroska, remuxed.
    static let recipes: [String: [String]] = [
        "vp9": ["-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8"],
        // libvpx's two-pass good-quality path with alternate reference frames: hidden frames in superframes (one pass
        // writes none here).
        "vp9-altref": ["-c:v", "libvpx-vp9", "-b:v", "300k", "-deadline", "good", "-cpu-used", "8", "-auto-alt-ref", "1",
                       "-lag-in-frames", "16"],
        "vp9-10bit": ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p10le", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8"],
        "vp8": ["-c:v", "libvpx", "-crf", "20", "-b:v", "1M", "-deadline", "realtime", "-cpu-used", "8"],
        "av1-svt4": ["-c:v", "libsvtav1", "-preset", "4"],
        "av1-svt12": ["-c:v", "libsvtav1", "-preset", "12"],
        "av1-aom": ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "40"],
    ]

    /// A source (`codec.container`): encoded into Matroska, remuxed into the other containers (test media, made once).
    static func source(_ name: String) async throws -> String {
        let codec = (name as NSString).deletingPathExtension, container = (name as NSString).pathExtension
        let arguments = recipes[codec] ?? []
        let input = ["-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "4",
                     "-g", "15", "-keyint_min", "15"]
        // SVT-AV1's banner off, for this child only: setenv here would race the other tests' spawns, which read environ.
        let quiet = ["SVT_LOG": "1"]
        let master = try await TestMedia.file("\(codec).mkv", key: ["smart-frame-codec", codec] + input + arguments) { output in
            var encoding = arguments
            if codec == "vp9-altref" {
                let log = ["-passlogfile", (output as NSString).deletingPathExtension]
                _ = try await Run.tool("ffmpeg", ["-v", "error", "-y"] + input + arguments + log + ["-pass", "1", "-an", "-f", "null", "-"],
                                       environment: quiet)
                encoding += log + ["-pass", "2"]
            }
            let made = try await Run.tool("ffmpeg", ["-v", "error", "-y"] + input + encoding + ["-c:a", "libopus", "-shortest", output],
                                          environment: quiet)
            guard made.status == 0 else { throw ReferenceError(message: made.stderr) }
        }
        guard container != "mkv" else { return master }
        return try await TestMedia.ffmpeg(["-i", master, "-c", "copy"], name: name)
    }

    static func containers(_ codec: String) -> [String] {
        codec == "vp8" ? ["webm", "mkv"] : codec == "vp9-altref" ? ["webm"] : ["webm", "mkv", "mp4"]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let codec: String
        let container: String
        let join: Bool
        var testDescription: String { "\(codec) → \(container)\(join ? ", 3 ranges" : "")" }
    }

    /// Under the sanitizers, each codec's join into Matroska (both edges and the seams of every range run there).
    static let cases = recipes.keys.sorted().flatMap { codec in
        containers(codec).flatMap { container in [false, true].map { Case(codec: codec, container: container, join: $0) } }
    }.filter { !TestPaths.sanitized || ($0.join && $0.container == "mkv") }

    /// The altref source does hold hidden frames (a superframe's first frame not shown), or its cases test nothing new.
    @Test func altrefSourceHoldsHiddenFrames() async throws {
        let path = try await Self.source("vp9-altref.webm")
        let trace = try await Run.tool("ffmpeg", ["-v", "trace", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let hidden = trace.stderrLines.filter { $0.contains(" show_frame ") && $0.hasSuffix("= 0") }.count
        #expect(hidden > 0, "no hidden frame in \(path)")
    }

    struct SourceFacts: Sendable {
        let times: [Double]
        let frames: [[UInt8]]
        let packets: [String]
        let headers: Set<[String]>
    }

    static let facts = Once { () async -> [String: SourceFacts] in
        var facts: [String: SourceFacts] = [:]
        for name in recipes.keys.flatMap({ codec in containers(codec).map { "\(codec).\($0)" } }) {
            guard let path = try? await source(name), let times = try? await Reference.frameTimes(path).sorted() else { continue }
            if TestPaths.sanitized {
                facts[name] = SourceFacts(times: times, frames: [], packets: [], headers: [])
                continue
            }
            guard let frames = try? await FrameMatch.frames(path), let packets = try? await FrameCodecStreams.packetHashes(path),
                  let headers = try? await FrameCodecStreams.distinctHeaders(path, av1: name.hasPrefix("av1")) else { continue }
            facts[name] = SourceFacts(times: times, frames: frames, packets: packets, headers: headers.frames)
        }
        return facts
    }


    @Test(arguments: cases)
    func smartCut(_ example: Case) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let name = "\(example.codec).\(example.container)"
        let input = try await Self.source(name)
        let known = try #require(try await Self.facts.value[name], "\(input) could not be read")
        let times = known.times
        #expect(times.count == 120, "\(input): \(times.count) frames")
        guard times.count == 120 else { return }
        let output = folder.file("smart.\(example.container)")
        let cut = try await SmartRanges.cut(input, output: output, join: example.join, times: times)
        let label = example.testDescription, spans = cut.spans
        #expect(cut.result.status == 0 && cut.mode == "smart", "\(label): \(cut.result)")
        #expect(cut.decodeErrors.isEmpty && cut.remuxErrors.isEmpty, "\(label): \(cut.decodeErrors) \(cut.remuxErrors)")
        guard !TestPaths.sanitized else { return }

        let ideal = FrameMatch.ideal(spans, times: times)
        let ffmpeg = try await FrameMatch.frames(output)
        #expect(FrameMatch.mismatches(ffmpeg, source: known.frames, ideal: ideal).isEmpty,
                "\(label): FFmpeg shows \(FrameMatch.sourceIndices(ffmpeg, in: known.frames))")
        if example.join, MediaFacts.gstreamerAvailable {
            let gstreamer = try await FrameMatch.frames(output, gstreamer: true)
            #expect(FrameMatch.mismatches(gstreamer, source: known.frames, ideal: ideal).isEmpty,
                    "\(label): GStreamer shows \(FrameMatch.sourceIndices(gstreamer, in: known.frames))")
        }

        // The copied middle: each range's whole groups of pictures, byte for byte (a join's 15 frames); a single range
        // copies its last group too, as nothing in it refers past the end (its 60, and 10 more).
        let run = FrameCodecStreams.longestCopiedRun(try await FrameCodecStreams.packetHashes(output), source: known.packets)
        #expect(run == (example.join ? 15 : 70), "\(label): longest copied run \(run)")

        // Every header in the output, stored or in a frame, is the source's in-stream one (VP8: the planner's check).
        if example.codec != "vp8" {
            let headers = try await FrameCodecStreams.distinctHeaders(output, av1: example.codec.hasPrefix("av1"))
            #expect(known.headers.count == 1, "\(label): the source states \(known.headers.count) headers")
            #expect(headers.frames == known.headers, "\(label): the frames state \(headers.frames.subtracting(known.headers))")
            if example.codec.hasPrefix("av1") {
                #expect(headers.stored == known.headers, "\(label): the stored configuration states \(headers.stored)")
            }
        }
    }

    /// rav1e's sequence header (seq_level_idx 31, its own order hint bits) is one no candidate encoder here writes:
    /// the cut falls back to exact and says which field differs; where a candidate does match, it stays smart.
    @Test func rav1eSourceIsSmartOrSaysWhichFieldDiffers() async throws {
        guard TestPaths.toolExists("ffmpeg") else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("rav1e.mkv")
        let made = try await Run.tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-t", "2", "-g", "15",
                                           "-c:v", "librav1e", "-speed", "10", input])
        guard made.status == 0 else { return }
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "0.3", "--end", "1.7", "--mode", "smart", "-o", folder.file("out.mkv")])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        if report["mode"] as? String != "smart" {
            let warnings = "\(report["warnings"] ?? "")"
            #expect(warnings.contains("smart_fallback") && warnings.contains("AV1 sequence header"), "\(warnings)")
        } else {
            let source = try await FrameCodecStreams.distinctHeaders(input, av1: true), written = try await FrameCodecStreams.distinctHeaders(folder.file("out.mkv"), av1: true)
            #expect(written.frames == source.frames && written.stored == source.frames, "\(written)")
        }
    }

    /// VP8 into MP4 (which FFmpeg 5.1 cannot write): a smart cut is refused with the one-line error that names the
    /// container and the way out (exit 1, nothing written); the exact cut re-encodes to a codec MP4 holds (VP9).
    @Test func vp8IntoMP4IsRefusedSmartAndReencodedExact() async throws {
        let input = try await Self.source("vp8.webm")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("out.mp4")
        let smart = try await Run.vtrim(["cut", input, "--start", "0.5", "--end", "1.5", "--mode", "smart", "-o", output])
        #expect(smart.status == 1 && smart.stderr.contains("cannot hold vp8 video"), "\(smart)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let exact = try await Run.vtrim(["cut", input, "--start", "0.5", "--end", "1.5", "--mode", "exact", "-o", output])
        #expect(exact.status == 0, "\(exact)")
        #expect(try await Reference.videoCodec(output) == "vp9")
    }

    /// ../shared/media's VP8, VP9 and AV1 files with three or more keyframes: from mid first GOP to 0.3 s past the third
    /// keyframe, into their own container — smart, judged as SmartCutTests judges H.264 (copied frames identical,
    /// re-encoded ones ≥ 40 dB, audio one contiguous run), or a fallback we know.
    static let mediaRows = ManifestRow.load().filter {
        ["vp8", "vp9", "av1"].contains($0["video_codec"] ?? "") && $0["damaged"] == "no" && ($0["keyframes"].flatMap(Int.init) ?? 0) >= 3
    }

    /// VP8 with an alpha channel (BlockAdditional): the edges would lose it.
    static let expectedFallbacks = ["imagorvideo/alpha-webm.webm": "alpha channel"]

    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"), arguments: mediaRows.sanitizerShare)
    func realWorldFiles(_ row: ManifestRow) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A long file's first 20 s, its packets as they are (the checks decode the whole input).
        var input = row.path
        if (row["format_duration_s"].flatMap(Double.init) ?? 0) > 30 {
            input = folder.file("first-20s." + (row.path as NSString).pathExtension)
            #expect(try await Run.tool("ffmpeg", ["-v", "error", "-i", row.path, "-map", "0", "-c", "copy", "-t", "20", input]).status == 0)
        }
        // By the packets' flags: FFmpeg's VP9 decoder does not skip inter frames for `-skip_frame nokey`.
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", input])
        let origin = try await Reference.containerStart(input)
        let keyframes = probe.stdoutLines.filter { $0.hasSuffix(",K_") || $0.hasSuffix(",K") }
            .compactMap { Double($0.split(separator: ",")[0]) }.map { $0 - origin }.sorted()
        guard keyframes.count >= 3 else { return }
        let start = SmartCutCheck.millis((keyframes[0] + keyframes[1]) / 2), end = SmartCutCheck.millis(keyframes[2] + 0.3)
        let output = folder.file("smart." + (row.path as NSString).pathExtension)
        let result = try await Run.vtrim(["cut", "--json", input, "--start", String(start), "--end", String(end), "--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(row.file): \(result)")
        let object = try #require(result.jsonLines.first)
        guard object["mode"] as? String == "smart" else {
            let message = (object["warnings"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "smart_fallback" }?["message"] as? String ?? "?"
            #expect(Self.expectedFallbacks[row.file].map { message.contains($0) } == true, "\(row.file): unexpected fallback: \(message)")
            return
        }
        if TestPaths.sanitized { return }
        try await SmartCutCheck.verify(input: input, output: output, start: start, end: end, report: object, everyReencodedFrame: false,
                                 label: row.file)
        if row["video_codec"] != "vp8" {
            let av1 = row["video_codec"] == "av1"
            let source = try await FrameCodecStreams.distinctHeaders(input, av1: av1), written = try await FrameCodecStreams.distinctHeaders(output, av1: av1)
            #expect(written.frames == source.frames && source.frames.count == 1, "\(row.file): \(written.frames.subtracting(source.frames))")
            if av1 { #expect(written.stored == source.frames, "\(row.file): the stored configuration states \(written.stored)") }
        }
    }
}
