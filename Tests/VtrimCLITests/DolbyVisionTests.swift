import Foundation
import Testing
import TestSupport

/// Real Dolby Vision files (../shared/media/androidx-media): profile 9 over H.264 and profile 10 over AV1 (`dav1`, which
/// FFmpeg 5.1 leaves without a codec). Copies keep the configuration with the source's fields, and so do exact and smart
/// cuts, whose re-encoded frames carry their source frames' RPUs.
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct DolbyVisionTests {
    struct Sample: Sendable, CustomStringConvertible {
        let file: String, profile: Int, compatibility: Int, codec: String, entry: String, start: String, end: String
        /// Where an exact cut of it ends: a few frames tell, and 1080p60 H.264 and 4K AV1 encode slowly.
        var exactEnd: String? = nil
        var description: String { file }
        var path: String { (TestPaths.sharedMedia ?? "") + "/androidx-media/" + file }
    }

    static let samples = [
        Sample(file: "video_dovi_1920x1080_60fps_dvav_09.mp4", profile: 9, compatibility: 2, codec: "h264", entry: "avc1", start: "0.2", end: "1.1",
               exactEnd: "0.5"),
        Sample(file: "video_dovi_3840x2160_30fps_dav1_10.mp4", profile: 10, compatibility: 0, codec: "av1", entry: "dav1", start: "1", end: "1.6",
               exactEnd: "1.2"),
    ]
    /// An iPhone's profile 8.4 clip (one keyframe, four frames).
    static let iPhone = Sample(file: "dolbyVision-hdr.MOV", profile: 8, compatibility: 4, codec: "hevc", entry: "hvc1", start: "0.02", end: "0.1")

    static func dolbyVision(_ path: String) async throws -> [String: String] {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_streams", path])
        var fields: [String: String] = [:]
        for line in probe.stdoutLines where line.hasPrefix("dv_") || line.hasPrefix("codec_name=") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    @Test(arguments: samples)
    func probedAndThumbnailed(_ sample: Sample) async throws {
        let probe = try await Run.vtrim(["probe", "--json", sample.path])
        #expect(probe.status == 0, "\(probe)")
        let video = (probe.jsonLines.first?["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "video" }
        #expect(video?["codec"] as? String == sample.codec, "\(probe.stdout)")
        // Profile 10.0's pictures are in Dolby Vision's own colours: said, never shown quietly.
        let colours = sample.compatibility == 0
        #expect(probe.jsonLines.first?.codes("warnings").contains("dolby_vision_colours") == colours, "\(probe.stdout)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let thumbs = try await Run.vtrim(["thumbs", "--json", sample.path, "--count", "3", "--height", "60", "-o", folder.file("s.png")])
        #expect(thumbs.status == 0, "\(thumbs)")
        #expect(thumbs.jsonLines.first?.codes("warnings").contains("dolby_vision_colours") == colours, "\(thumbs.stdout)")
    }

    @Test(arguments: samples)
    func copiesKeepTheConfiguration(_ sample: Sample) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try await Self.dolbyVision(sample.path)
        #expect(source["dv_profile"] == String(sample.profile))
        // FFmpeg 5.1's MOV muxer takes no AV1.
        for container in sample.codec == "av1" ? ["mp4", "mkv"] : ["mp4", "mov", "mkv"] {
            let output = folder.file("copy.\(container)")
            let result = try await Run.vtrim(["cut", "--json", sample.path, "--start", sample.start, "--end", sample.end, "--mode", "copy", "-o", output])
            #expect(result.status == 0, "\(result)")
            let written = try await Self.dolbyVision(output)
            for key in ["dv_version_major", "dv_version_minor", "dv_profile", "dv_level", "rpu_present_flag", "el_present_flag", "bl_present_flag", "dv_bl_signal_compatibility_id"] {
                #expect(written[key] == source[key], "\(container): \(key) \(written[key] ?? "none"), source \(source[key] ?? "none")")
            }
            #expect(written["codec_name"] == sample.codec || container != "mkv", "\(container)")
            if container != "mkv" {
                let entry = try #require(try MP4VideoTrack.read(output).entries.first)
                #expect(entry.type == sample.entry, "\(container): \(entry.type)")
                #expect(entry.childTypes.filter { $0 == "dvvC" }.count == 1, "\(container): \(entry.childTypes)")
            }
            // FFmpeg 5.1 reads a `dav1` entry only with its decoder named.
            let named = sample.codec == "av1" ? ["-c:v", "libdav1d"] : []
            let decode = try await Run.tool("ffmpeg", ["-v", "error"] + named + ["-i", output, "-map", "0:v", "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(container): \(decode.stderr)")
        }
    }

    /// Exact cuts re-encode every frame, and each carries its source frame's RPU (H.264's NAL unit type 28, AV1's T.35
    /// metadata OBU): the output is Dolby Vision with the source's fields, in MP4/MOV (the entry and one `dvvC`) and Matroska.
    @Test(arguments: samples + [iPhone])
    func exactCutsCarryEachFramesRPU(_ sample: Sample) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try await Self.dolbyVision(sample.path)
        let end = sample.exactEnd ?? sample.end
        // The iPhone clip is portrait: Matroska, holding no display matrix, turns it (`aPictureTurnedUpright…`). 4K AV1 into
        // MP4 only (its Matroska path is the profile 9 one's).
        for container in sample.codec == "av1" ? ["mp4"] : sample.file == Self.iPhone.file ? ["mp4", "mov"] : ["mp4", "mov", "mkv"] {
            let output = folder.file("exact.\(container)")
            let result = try await Run.vtrim(["cut", "--json", sample.path, "--start", sample.start, "--end", end, "--mode", "exact", "-o", output])
            #expect(result.status == 0, "\(result)")
            let report = try #require(result.jsonLines.first)
            #expect(report["mode"] as? String == "exact" && !report.codes("notes").contains("dolby_vision_dropped")
                    && !report.codes("warnings").contains("dolby_vision_dropped") && !report.codes("warnings").contains("dolby_vision_colours"), "\(report)")
            let written = try await Self.dolbyVision(output)
            for key in ["dv_profile", "dv_level", "rpu_present_flag", "el_present_flag", "bl_present_flag", "dv_bl_signal_compatibility_id"] {
                #expect(written[key] == source[key], "\(container): \(key) \(written[key] ?? "none"), source \(source[key] ?? "none")")
            }
            let named = sample.codec == "av1" ? ["-c:v", "libdav1d"] : []
            let decode = try await Run.tool("ffmpeg", ["-v", "error"] + named + ["-i", output, "-map", "0:v", "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(container): \(decode.stderr)")
            // A second reader: GStreamer decodes every frame (its only AV1 decoder here, libaom's, refuses profile 10 sources too).
            if sample.codec != "av1", MediaFacts.gstreamerAvailable {
                let frames = try await FrameMatch.frames(output).count
                #expect(try await FrameMatch.frames(output, gstreamer: true).count == frames, "\(container): GStreamer")
            }
            guard container != "mkv" else { continue }
            let entry = try #require(try MP4VideoTrack.read(output).entries.first)
            #expect(entry.type == sample.entry && entry.childTypes.filter { $0 == "dvvC" }.count == 1, "\(container): \(entry.type) \(entry.childTypes)")
            try await Self.expectEachFrameCarriesItsSourcesRPU(output, source: sample.path, start: sample.start, "\(sample.file) → \(container)")
        }
    }

    /// MPEG-TS and AVI cannot say a stream is Dolby Vision (FFmpeg 5.1 writes no descriptor): the cut keeps every
    /// frame's RPU but says players will show the base layer — never a quiet loss.
    @Test(arguments: ["ts", "avi"])
    func containersWithoutASignalSaySo(_ container: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sample = Self.samples[0]
        let output = folder.file("copy.\(container)")
        let result = try await Run.vtrim(["cut", "--json", sample.path, "--start", sample.start, "--end", sample.end, "--mode", "copy", "-o", output])
        #expect(result.status == 0, "\(result)")
        let note = (result.jsonLines.first?["notes"] as? [[String: Any]])?.first { $0["code"] as? String == "dolby_vision_dropped" }
        #expect((note?["message"] as? String)?.contains("not signalled as Dolby Vision 9.2: \(container == "ts" ? "mpegts" : "avi")") == true, "\(result.stdout)")
        #expect(try await Self.dolbyVision(output)["dv_profile"] == nil)
    }

    /// An exact cut that turns the picture upright (Matroska holds no display matrix) re-encodes other pictures than the
    /// source's: Dolby Vision is dropped, with the note.
    @Test func aPictureTurnedUprightDropsDolbyVisionWithANote() async throws {
        let media = try #require(TestPaths.sharedMedia)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("upright.mkv")
        let result = try await Run.vtrim(["cut", "--json", media + "/androidx-media/dolbyVision-hdr.MOV", "--start", "0.02", "--end", "0.1",
                                          "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.first?.codes("notes").contains("dolby_vision_dropped") == true, "\(result.stdout)")
        #expect(try await Self.dolbyVision(output)["dv_profile"] == nil)
    }

    /// Every sample of the MP4/MOV `output` carries the RPU of the source frame it shows (output time − first + `start`).
    static func expectEachFrameCarriesItsSourcesRPU(_ output: String, source: String, start: String, _ context: String) async throws {
        let sourceTrack = try MP4VideoTrack.read(source), track = try MP4VideoTrack.read(output)
        let sourceTimes = try await packetTimes(source), times = try await packetTimes(output)
        try #require(times.count == track.sampleRPUs.count && sourceTimes.count == sourceTrack.sampleRPUs.count, "\(context)")
        let first = times.min() ?? 0, offset = Double(start) ?? 0
        // The first frame is the one shown at `start`: the latest source frame at or before it.
        let startFrame = sourceTimes.filter { $0 <= offset + 0.0005 }.max() ?? offset
        for (index, time) in times.enumerated() {
            let wanted = time - first + startFrame
            let sourceIndex = try #require(sourceTimes.indices.min { abs(sourceTimes[$0] - wanted) < abs(sourceTimes[$1] - wanted) })
            #expect(track.sampleRPUs[index] != nil && track.sampleRPUs[index] == sourceTrack.sampleRPUs[sourceIndex],
                    "\(context): frame at \(time) s (source \(wanted) s) carries \(track.sampleRPUs[index]?.count ?? 0) bytes of RPU, not the source frame's")
        }
    }

    /// A profile 8.4 HEVC source and a profile 9.2 H.264 one whose every frame carries its own RPU
    /// (`fixtures/tools/add-rpu-units.py`: the real file's RPU, its CRC replaced by the frame's index): smart and exact
    /// cuts keep Dolby Vision, and every frame of the output — re-encoded or copied — ends with the RPU of the source frame
    /// it shows.
    @Test(arguments: ["hevc", "h264"])
    func reencodedFramesCarryEachFramesRPU(_ codec: String) async throws {
        let media = try #require(TestPaths.sharedMedia)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tools = TestPaths.packageRoot + "/fixtures/tools/"
        let hevc = codec == "hevc"
        let real = media + "/androidx-media/" + (hevc ? "dolbyVision-hdr.MOV" : "video_dovi_1920x1080_60fps_dvav_09.mp4")
        // No B-frames: a raw stream remuxed keeps decode order only, so a reordering one would lose its times.
        let encoder = hevc
            ? ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params",
               "log-level=error:aud=1:bframes=0:keyint=30:min-keyint=30:scenecut=0:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc"]
            : ["-c:v", "libx264", "-x264-params", "aud=1:bframes=0:keyint=30:min-keyint=30:scenecut=0"]
        let steps: [(String, [String])] = [
            ("ffmpeg", ["-v", "error", "-i", real, "-map", "0:v", "-c:v", "copy", "-bsf:v", hevc ? "hevc_mp4toannexb" : "h264_mp4toannexb",
                        "-f", codec, folder.file("template.raw")]),
            ("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "4"] + encoder + ["-f", codec, folder.file("plain.raw")]),
            ("python3", [tools + "add-rpu-units.py", folder.file("plain.raw"), folder.file("rpu.raw"), folder.file("template.raw"), codec]),
            ("ffmpeg", ["-v", "error", "-r", "30", "-f", codec, "-i", folder.file("rpu.raw"), "-c", "copy"] + (hevc ? ["-tag:v", "hvc1"] : [])
                + [folder.file("plain.mp4")]),
            ("python3", [tools + "add-entry-boxes.py", folder.file("plain.mp4"), folder.file("dv.mp4"), hevc ? "dovi" : "dovi9"]),
        ]
        for (tool, arguments) in steps {
            let made = try await Run.tool(tool, arguments)
            try #require(made.status == 0, "\(tool): \(made.stderr)")
        }
        let source = folder.file("dv.mp4")
        let sourceTrack = try MP4VideoTrack.read(source)
        #expect(sourceTrack.sampleRPUs.allSatisfy { $0 != nil }, "the source's every frame has an RPU")
        for (mode, ext) in [("smart", "mp4"), ("smart", "mkv"), ("exact", "mp4")] {
            let output = folder.file("\(mode).\(ext)")
            let result = try await Run.vtrim(["cut", "--json", source, "--start", "0.5", "--end", "3.3", "--mode", mode, "-o", output])
            #expect(result.status == 0, "\(result)")
            let report = try #require(result.jsonLines.first)
            #expect(report["mode"] as? String == mode && !report.codes("notes").contains("dolby_vision_dropped"), "\(report)")
            #expect(try await Self.dolbyVision(output)["dv_profile"] == (hevc ? "8" : "9"), "\(mode) \(ext)")
            guard ext == "mp4" else { continue }
            try await Self.expectEachFrameCarriesItsSourcesRPU(output, source: source, start: "0.5", "\(mode) \(ext)")
        }
    }

    /// Each video packet's presentation time (seconds, after the edit list), in decode order.
    static func packetTimes(_ path: String) async throws -> [Double] {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return probe.stdoutLines.compactMap { Double($0.split(separator: ",").first ?? "") }
    }
}
