import Foundation
import Testing
import TestSupport

/// Real Dolby Vision files (../shared/media/androidx-media): profile 9 over H.264 and profile 10 over AV1 (`dav1`, which
/// FFmpeg 5.1 leaves without a codec). Copies keep the configuration with the source's fields; re-encoded frames drop it
/// with a note, or a warning where the base layer has no standard colours (10.0).
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct DolbyVisionTests {
    struct Sample: Sendable, CustomStringConvertible {
        let file: String, profile: Int, compatibility: Int, codec: String, entry: String, start: String, end: String
        var description: String { file }
        var path: String { (TestPaths.sharedMedia ?? "") + "/androidx-media/" + file }
    }

    static let samples = [
        Sample(file: "video_dovi_1920x1080_60fps_dvav_09.mp4", profile: 9, compatibility: 2, codec: "h264", entry: "avc1", start: "0.2", end: "1.1"),
        Sample(file: "video_dovi_3840x2160_30fps_dav1_10.mp4", profile: 10, compatibility: 0, codec: "av1", entry: "dav1", start: "1", end: "2.5"),
    ]

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

    @Test(arguments: samples)
    func reencodedFramesSayTheConfigurationIsDropped(_ sample: Sample) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("exact.mp4")
        let result = try await Run.vtrim(["cut", "--json", sample.path, "--start", sample.start, "--end", "\((Double(sample.start) ?? 0) + 0.2)",
                                          "--mode", "exact", "-o", output])
        #expect(result.status == 0, "\(result)")
        let report = try #require(result.jsonLines.first)
        let kind = sample.compatibility == 0 ? "warnings" : "notes"
        #expect(report.codes(kind).contains("dolby_vision_dropped"), "\(report)")
        #expect(try await Self.dolbyVision(output)["dv_profile"] == nil)
    }

    /// A profile 8.4 HEVC source whose every frame carries its own RPU (`fixtures/tools/add-rpu-units.py`: the iPhone
    /// clip's RPU, its CRC replaced by the frame's index): a smart cut keeps Dolby Vision, and every frame of the output —
    /// re-encoded or copied — ends with the RPU of the source frame it shows.
    @Test func smartEdgesCarryEachFramesRPU() async throws {
        let media = try #require(TestPaths.sharedMedia)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tools = TestPaths.packageRoot + "/fixtures/tools/"
        let steps: [(String, [String])] = [
            ("ffmpeg", ["-v", "error", "-i", media + "/androidx-media/dolbyVision-hdr.MOV", "-map", "0:v", "-c:v", "copy",
                        "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", folder.file("template.hevc")]),
            ("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "4", "-c:v", "libx265", "-pix_fmt", "yuv420p10le",
                        // No B-frames: a raw stream remuxed keeps decode order only, so a reordering one would lose its times.
                        "-x265-params", "log-level=error:aud=1:bframes=0:keyint=30:min-keyint=30:scenecut=0:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                        "-f", "hevc", folder.file("plain.hevc")]),
            ("python3", [tools + "add-rpu-units.py", folder.file("plain.hevc"), folder.file("rpu.hevc"), folder.file("template.hevc")]),
            ("ffmpeg", ["-v", "error", "-r", "30", "-i", folder.file("rpu.hevc"), "-c", "copy", "-tag:v", "hvc1", folder.file("plain.mp4")]),
            ("python3", [tools + "add-entry-boxes.py", folder.file("plain.mp4"), folder.file("dv.mp4"), "dovi"]),
        ]
        for (tool, arguments) in steps {
            let made = try await Run.tool(tool, arguments)
            try #require(made.status == 0, "\(tool): \(made.stderr)")
        }
        let source = folder.file("dv.mp4")
        let sourceTrack = try MP4VideoTrack.read(source)
        #expect(sourceTrack.sampleRPUs.allSatisfy { $0 != nil }, "the source's every frame has an RPU")
        let sourceTimes = try await Self.packetTimes(source)
        for ext in ["mp4", "mkv"] {
            let output = folder.file("smart.\(ext)")
            let result = try await Run.vtrim(["cut", "--json", source, "--start", "0.5", "--end", "3.3", "--mode", "smart", "-o", output])
            #expect(result.status == 0, "\(result)")
            let report = try #require(result.jsonLines.first)
            #expect(report["mode"] as? String == "smart" && !report.codes("notes").contains("dolby_vision_dropped"), "\(report)")
            #expect(try await Self.dolbyVision(output)["dv_profile"] == "8", "\(ext)")
            guard ext == "mp4" else { continue }
            let track = try MP4VideoTrack.read(output)
            let times = try await Self.packetTimes(output)
            try #require(times.count == track.sampleRPUs.count)
            let start = try #require((report["actual"] as? [String: Any])?["start"] as? Double)
            let first = times.min() ?? 0
            for (index, time) in times.enumerated() {
                // The source frame shown at the same place: output time − first + start.
                let wanted = time - first + start
                let sourceIndex = try #require(sourceTimes.indices.min { abs(sourceTimes[$0] - wanted) < abs(sourceTimes[$1] - wanted) })
                #expect(track.sampleRPUs[index] != nil && track.sampleRPUs[index] == sourceTrack.sampleRPUs[sourceIndex],
                        "output frame at \(time) s (source \(wanted) s): RPU \(track.sampleRPUs[index]?.suffix(5).map { $0 } ?? []), source's \(sourceTrack.sampleRPUs[sourceIndex]?.suffix(5).map { $0 } ?? [])")
            }
        }
    }

    /// Each video packet's presentation time (seconds, after the edit list), in decode order.
    static func packetTimes(_ path: String) async throws -> [Double] {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return probe.stdoutLines.compactMap { Double($0.split(separator: ",").first ?? "") }
    }
}
