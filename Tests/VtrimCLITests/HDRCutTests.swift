import Foundation
import TestSupport
import Testing

/// HDR10 sources keep their static metadata through re-encoding: the mastering display and content light
/// levels stay on the output stream (MP4 `mdcv`/`clli`) and, from x265, in the bitstream's SEI, where
/// players that read only the HEVC stream find them.
@Suite(.serialized)
struct HDRCutTests {
    /// 4 s of 10-bit PQ HEVC (a keyframe every second) with x265's SEI, plus `mdcv`/`clli` boxes (fixtures/tools/add-entry-boxes.py)
    /// unless `inBandOnly` (then the SEI is all the file says, as in x265's own files and broadcast streams).
    static func hdr10File(_ folder: TemporaryFolder, inBandOnly: Bool = false) async throws -> String {
        let encoded = folder.file("pq.mp4"), path = folder.file("hdr10.mp4")
        let x265 = "log-level=error:keyint=30:min-keyint=30:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
            + ":master-display=G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,50):max-cll=1000,400"
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "4",
                                          "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params", x265, "-color_primaries", "bt2020",
                                          "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-tag:v", "hvc1", encoded])
        try #require(run.status == 0, "\(run.stderr)")
        if inBandOnly { return encoded }
        let boxes = try await Run.tool("python3", [TestPaths.packageRoot + "/fixtures/tools/add-entry-boxes.py", encoded, path, "hdr10"])
        try #require(boxes.status == 0, "\(boxes.stderr)")
        return path
    }

    /// The stream's side data (ffprobe's names and values), and the first frame's (from the bitstream).
    static func metadata(_ path: String) async throws -> (stream: [[String: Any]], frame: [[String: Any]]) {
        let stream = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data", "-of", "json", path])
        let frame = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries",
                                             "frame_side_data", "-of", "json", path])
        func list(_ run: RunResult, _ key: String) -> [[String: Any]] {
            let object = (try? JSONSerialization.jsonObject(with: run.stdoutData)) as? [String: Any]
            let first = (object?[key] as? [[String: Any]])?.first
            return (first?["side_data_list"] as? [[String: Any]] ?? []).filter {
                ["Mastering display metadata", "Content light level metadata"].contains($0["side_data_type"] as? String ?? "")
            }
        }
        return (list(stream, "streams"), list(frame, "frames"))
    }

    /// The same entries with the same values: fractions compared as numbers (Matroska stores them reduced), in any order.
    static func same(_ a: [[String: Any]], _ b: [[String: Any]]) -> Bool {
        func value(_ any: Any) -> Double? {
            if let number = any as? NSNumber { return number.doubleValue }
            let parts = "\(any)".split(separator: "/").compactMap { Double($0) }
            return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : parts.first
        }
        func entries(_ list: [[String: Any]]) -> [String: [String: Any]] {
            Dictionary(list.map { ("\($0["side_data_type"] ?? "")", $0) }, uniquingKeysWith: { first, _ in first })
        }
        let left = entries(a), right = entries(b)
        return a.count == b.count && left.keys == right.keys && left.allSatisfy { type, entry in
            guard let other = right[type], Set(entry.keys) == Set(other.keys) else { return false }
            return entry.allSatisfy { key, item in
                key == "side_data_type" || value(item).flatMap { x in other[key].flatMap(value).map { abs($0 - x) < 1e-9 } } == true
            }
        }
    }

    /// Into MP4, Matroska and MPEG-TS; smart edges carry x265's SEI as the copied frames do (MPEG-TS holds no
    /// stream-level metadata: the SEI is all there is). A source whose SEI is all it says (`inBandOnly`) is read from
    /// its keyframe's decoded picture: its exact cut lost the mastering display and its smart cut fell back ("present in
    /// the source, absent from the encoder").
    @Test(arguments: [("exact", "mp4", false), ("smart", "mp4", false), ("smart", "mkv", false), ("smart", "ts", false),
                      ("exact", "mp4", true), ("smart", "mp4", true), ("smart", "ts", true)])
    func metadataSurvivesReencoding(mode: String, container: String, inBandOnly: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await Self.hdr10File(folder, inBandOnly: inBandOnly)
        let source = try await Self.metadata(path)
        try #require(source.stream.count == (inBandOnly ? 0 : 2) && source.frame.count == 2, "the fixture lacks its metadata: \(source)")
        let output = folder.file("cut.\(container)")
        let run = try await Run.vtrim(["cut", "--json", "--mode", mode, "--start", "0.5", "--end", "3.5", "-o", output, path])
        #expect(run.status == 0, "\(run)")
        #expect(run.jsonLines.first?["mode"] as? String == mode, "\(run.stdout)")
        let cut = try await Self.metadata(output)
        if container != "ts" { #expect(Self.same(cut.stream, source.stream), "stream: \(cut.stream) vs \(source.stream)") }
        // The first frame is re-encoded in both modes: its SEI comes from vtrim's x265 settings.
        #expect(Self.same(cut.frame, source.frame), "frame: \(cut.frame) vs \(source.frame)")
        let transfer = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_transfer",
                                                "-of", "default=noprint_wrappers=1:nokey=1", output])
        #expect(transfer.stdout.split(whereSeparator: \.isNewline).first == "smpte2084")
    }

    /// AV1 HDR10 from libsvtav1 (10-bit PQ, the mastering display and light levels as metadata OBUs): a smart cut's
    /// libsvtav1 edges write the source keyframe's values as metadata OBUs too, so it stays smart (it fell back naming
    /// the mastering display), and the first frame — re-encoded — states what the source's does.
    @Test func av1MetadataGoesIntoSmartEdges() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("hdr10-av1.mkv")
        // SVT-AV1 takes decimals (chromaticity, cd/m²).
        let svt = "mastering-display=G(0.17,0.797)B(0.131,0.046)R(0.708,0.292)WP(0.3127,0.329)L(1000,0.005):content-light=1000,400"
        // SVT-AV1's banner off, for this child only: setenv here would race the other tests' spawns, which read environ.
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "4", "-pix_fmt", "yuv420p10le",
                                          "-c:v", "libsvtav1", "-preset", "12", "-g", "30", "-svtav1-params", svt, "-color_primaries", "bt2020",
                                          "-color_trc", "smpte2084", "-colorspace", "bt2020nc", path], environment: ["SVT_LOG": "1"])
        try #require(run.status == 0, "\(run.stderr)")
        let source = try await Self.metadata(path)
        try #require(source.frame.count == 2, "the source lacks its metadata: \(source)")
        let output = folder.file("cut.mkv")
        let cut = try await Run.vtrim(["cut", "--json", "--mode", "smart", "--start", "0.5", "--end", "3.5", "-o", output, path])
        #expect(cut.status == 0, "\(cut)")
        #expect(cut.jsonLines.first?["mode"] as? String == "smart", "\(cut.stdout)")
        let written = try await Self.metadata(output)
        #expect(Self.same(written.frame, source.frame), "frame: \(written.frame) vs \(source.frame)")
        let decode = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// HDR10+ (SMPTE ST 2094-40) differs frame by frame, and no encoder here writes it: each re-encoded frame carries its
    /// source frame's (`fixtures/tools/add-hdr10plus.py`: frame n targets 400 + n cd/m²), so FFmpeg reads on every
    /// output frame — re-encoded or copied, in MP4, Matroska and MPEG-TS — the metadata of the picture it shows.
    @Test(arguments: ["smart", "exact"])
    func hdr10PlusFollowsEachFrame(mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let x265 = "log-level=error:aud=1:bframes=0:keyint=30:min-keyint=30:scenecut=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
        let steps: [(String, [String])] = [
            ("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "4", "-c:v", "libx265", "-pix_fmt", "yuv420p10le",
                        "-x265-params", x265, "-f", "hevc", folder.file("plain.hevc")]),
            ("python3", [TestPaths.packageRoot + "/fixtures/tools/add-hdr10plus.py", folder.file("plain.hevc"), folder.file("plus.hevc")]),
            ("ffmpeg", ["-v", "error", "-r", "30", "-i", folder.file("plus.hevc"), "-c", "copy", "-tag:v", "hvc1", folder.file("plus.mp4")]),
        ]
        for (tool, arguments) in steps {
            let made = try await Run.tool(tool, arguments)
            try #require(made.status == 0, "\(tool): \(made.stderr)")
        }
        for container in ["mp4", "mkv", "ts"] {
            let output = folder.file("cut.\(container)")
            let run = try await Run.vtrim(["cut", "--json", "--mode", mode, "--start", "0.5", "--end", "3.3", "-o", output, folder.file("plus.mp4")])
            #expect(run.status == 0 && run.jsonLines.first?["mode"] as? String == mode, "\(run)")
            let frames = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                        "frame=best_effort_timestamp_time:frame_side_data=targeted_system_display_maximum_luminance",
                                                        "-of", "json", output])
            let list = (try JSONSerialization.jsonObject(with: Data(frames.stdout.utf8)) as? [String: Any])?["frames"] as? [[String: Any]] ?? []
            #expect(list.count == 84, "\(container): \(list.count) frames")
            let first = list.compactMap { Double($0["best_effort_timestamp_time"] as? String ?? "") }.min() ?? 0
            for frame in list {
                let time = Double(frame["best_effort_timestamp_time"] as? String ?? "") ?? -1
                // The source frame shown there: 0.5 s is frame 15.
                let index = Int(((time - first) * 30).rounded()) + 15
                let luminance = (frame["side_data_list"] as? [[String: Any]])?.compactMap { $0["targeted_system_display_maximum_luminance"] as? String }
                #expect(luminance == ["\(400 + index)/1"], "\(mode) \(container): frame at \(time) s has \(luminance ?? []), source frame \(index)'s is \(400 + index)")
            }
        }
    }
}
