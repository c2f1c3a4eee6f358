import Foundation
import TestSupport
import Testing

/// Smart cuts and joins of MPEG-2 video from MPEG-TS, as broadcast and older cameras write it, into MPEG-TS (and
/// Matroska and MP4): open GOPs (two B-frames
/// shown before each I-frame after the first, referring to the GOP before), progressive 4:2:0 and interlaced 4:2:2, and
/// timestamps that wrap at 2^33 inside the range. The mode stays smart; FFmpeg prints nothing decoding or remuxing the
/// output; FFmpeg (and GStreamer, on the joins) show exactly the ideal frames (the leading B-frames of each copied GOP, which referred to
/// a picture the edge replaced, are re-encoded into the edge — spliced as they were they decode without an error but
/// wrong); the copied pictures are the source's byte for byte but for their renumbering; every sequence header is the
/// source's; and each copied GOP that lost its leading B-frames is marked closed and numbered from 0.
@Suite(.serialized)
struct SmartMPEG2Tests {
    /// 4 s at 30 fps, 256×144, a GOP every 15 frames with two B-frames, MP2 audio, into MPEG-TS.
    static let recipes: [String: [String]] = [
        "progressive": ["-b:v", "1500k", "-maxrate", "2500k", "-bufsize", "1000k"],
        "interlaced-422": ["-pix_fmt", "yuv422p", "-flags", "+ildct+ilme", "-top", "1", "-b:v", "2M", "-maxrate", "4M", "-bufsize", "1500k"],
        // 2^33 ticks of 90 kHz is 95443.72 s: the stream's timestamps wrap about 2 s in (the muxer starts at 1.4 s).
        "wrapping": ["-b:v", "1500k", "-maxrate", "2500k", "-bufsize", "1000k", "-output_ts_offset", "95440.3"],
    ]

    /// A source by its recipe's name (test media, made once).
    static func source(_ name: String) async throws -> String {
        try await TestMedia.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "4",
                                    "-c:v", "mpeg2video", "-g", "15", "-bf", "2"] + (recipes[name] ?? []) + ["-c:a", "mp2"], name: name + ".ts")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let source: String
        let join: Bool
        var output = "ts"
        var testDescription: String { "\(source) → \(output)\(join ? ", 3 ranges" : "")" }
    }

    /// Every source into MPEG-TS; the progressive one into Matroska and MP4 too. Under the sanitizers, the joins into
    /// MPEG-TS (both edges and every seam run there).
    static let cases = recipes.keys.sorted().flatMap { source in
        (source == "progressive" ? ["ts", "mkv", "mp4"] : ["ts"]).flatMap { output in [false, true].map { Case(source: source, join: $0, output: output) } }
    }.filter { !TestPaths.sanitized || ($0.join && $0.output == "ts") }

    /// The generated sources are what the cases mean to test: open GOPs after the first — FFmpeg's first holds 13
    /// pictures, then an I-frame every 15 frames (15, 30, …, 105) shown after its two leading B-frames, and a last
    /// picture (119) with one — and (for one) a wrap.
    @Test func sourcesHoldOpenGOPsAndAWrap() async throws {
        for name in Self.recipes.keys.sorted() {
            let path = try await Self.source(name)
            let groups = try await MPEG2Stream.read(path).groups
            #expect(groups.count == 9 && groups.dropFirst().dropLast().allSatisfy { !$0.closed && $0.references.prefix(3) == [2, 0, 1] },
                    "\(name): \(groups)")
        }
        let wrapping = try await Self.source("wrapping")
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", wrapping])
        // libavformat unwraps them; masked to 33 bits again, they fall back once.
        let raw = probe.stdoutLines.compactMap { Int64($0.split(separator: ",").first ?? "") }.map { $0 & (1 << 33 - 1) }
        #expect(zip(raw, raw.dropFirst()).contains { $0.0 > $0.1 + 45000 }, "no timestamp wraps in \(wrapping)")
    }

    @Test(arguments: cases)
    func smartCut(_ example: Case) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.source(example.source)
        let times = try await Reference.frameTimes(input).sorted()
        #expect(times.count == 120, "\(input): \(times.count) frames")
        guard times.count == 120 else { return }
        let output = folder.file("smart.\(example.output)")
        let cut = try await SmartRanges.cut(input, output: output, join: example.join, times: times)
        let label = example.testDescription, spans = cut.spans
        #expect(cut.result.status == 0 && cut.mode == "smart", "\(label): \(cut.result)")
        #expect(cut.decodeErrors.isEmpty && cut.remuxErrors.isEmpty, "\(label): \(cut.decodeErrors) \(cut.remuxErrors)")
        guard !TestPaths.sanitized else { return }

        let source = try await FrameMatch.frames(input)
        let ideal = FrameMatch.ideal(spans, times: times)
        let ffmpeg = try await FrameMatch.frames(output)
        #expect(FrameMatch.mismatches(ffmpeg, source: source, ideal: ideal).isEmpty, "\(label): FFmpeg shows \(FrameMatch.sourceIndices(ffmpeg, in: source))")
        if example.join, MediaFacts.gstreamerAvailable {
            let gstreamer = try await FrameMatch.frames(output, gstreamer: true)
            #expect(FrameMatch.mismatches(gstreamer, source: source, ideal: ideal).isEmpty,
                    "\(label): GStreamer shows \(FrameMatch.sourceIndices(gstreamer, in: source))")
        }

        let read = try await MPEG2Stream.read(input), written = try await MPEG2Stream.read(output)
        // The copied pictures after a range's first I-frame (whose leading B-frames were left out, so the run restarts):
        // one range's frames 31–87 (K2 the I-frame at 90, shown from 88), the third join range's 91–117 (its end at 118
        // is where the last picture's group is shown from: copied to there, no tail).
        let run = FrameCodecStreams.longestCopiedRun(written.pictures, source: read.pictures)
        #expect(run == (example.join ? 27 : 57), "\(label): longest copied run \(run)")
        #expect(read.sequenceHeaders.count == 1 && written.sequenceHeaders == read.sequenceHeaders,
                "\(label): \(written.sequenceHeaders.count) sequence headers, \(written.sequenceHeaders.subtracting(read.sequenceHeaders).count) not the source's")
        // Every GOP is numbered 0…n−1 (a copied GOP that lost its leading B-frames is renumbered); the closed ones are
        // each edge's and each copied run's first (head, copy, tail: 3 for one range; 3 + 3 + 2 for the join, whose last
        // range has no tail).
        for group in written.groups {
            #expect(group.references.sorted() == Array(0..<group.references.count), "\(label): a GOP numbered \(group.references)")
        }
        let closed = written.groups.filter { $0.closed }.count, broken = written.groups.filter { $0.brokenLink }.count
        #expect(closed == (example.join ? 8 : 3) && broken == 0, "\(label): \(written.groups)")
    }

    /// A source with its own intra quantiser matrix: mpeg2video takes none through its options, so no edge can repeat the
    /// sequence header — the cut falls back to exact and names the field.
    @Test func ownQuantiserMatrixFallsBackNamingIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("matrix.ts")
        let matrix = (0..<64).map { String(8 + $0 / 4) }.joined(separator: ",")
        let made = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-t", "2", "-c:v", "mpeg2video",
                                           "-g", "15", "-bf", "2", "-b:v", "1M", "-intra_matrix", matrix, input])
        #expect(made.status == 0, "\(made)")
        let result = try await Run.vtrim(["cut", "--json", input, "--start", "0.3", "--end", "1.7", "--mode", "smart", "-o", folder.file("out.ts")])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        #expect(report["mode"] as? String == "exact")
        let warnings = "\(report["warnings"] ?? "")"
        #expect(warnings.contains("smart_fallback") && warnings.contains("intra_quantiser_matrix"), "\(warnings)")
    }
}
