import Foundation

/// Facts about a media file from independent tools: ffprobe/ffmpeg, and GStreamer's demuxers.
public enum MediaFacts {
    /// Video frames a decoder outputs (ffprobe -count_frames; frames an edit list hides are not counted).
    public static func videoFrameCount(_ path: String) async throws -> Int {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return result.stdoutLines.lazy.compactMap { Int($0.split(separator: ",").first ?? "") }.first ?? -1
    }

    /// ffprobe's view of a file's format and streams (its JSON), read once per file version in a run: the durations
    /// and the rotation below come from it, not from an ffprobe each.
    static func probe(_ path: String) async throws -> Data {
        try await FileFacts.once(path, "format and streams") {
            try await Run.tool("ffprobe", ["-v", "error", "-show_format", "-show_streams", "-of", "json", path]).stdoutData
        }
    }

    /// The streams ffprobe lists, each with its index within its kind ("v:0", "a:1", "s:0").
    static func streams(_ path: String) async throws -> [(selector: String, fields: [String: Any])] {
        let json = (try? JSONSerialization.jsonObject(with: try await probe(path))) as? [String: Any]
        var counts: [String: Int] = [:]
        return ((json?["streams"] as? [[String: Any]]) ?? []).map { stream in
            let kind = ["video": "v", "audio": "a", "subtitle": "s", "data": "d"][stream["codec_type"] as? String ?? ""] ?? "t"
            defer { counts[kind, default: 0] += 1 }
            return ("\(kind):\(counts[kind, default: 0])", stream)
        }
    }

    /// The presented video duration: the video stream's duration where the container has one, else the
    /// container's.
    public static func videoDuration(_ path: String) async throws -> Double {
        if let value = try await streamDuration(path, selector: "v:0") { return value }
        return try await formatDuration(path)
    }

    /// A stream's duration ("v:0", "a:0", "s:0"), or nil where the container gives it none.
    public static func streamDuration(_ path: String, selector: String) async throws -> Double? {
        let stream = try await streams(path).first { $0.selector == selector }
        return (stream?.fields["duration"] as? String).flatMap(Double.init)
    }

    public static func formatDuration(_ path: String) async throws -> Double {
        let json = (try? JSONSerialization.jsonObject(with: try await probe(path))) as? [String: Any]
        return ((json?["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? -1
    }

    /// Error lines a full decode of every stream prints (empty: decodes cleanly), the null muxer's complaints
    /// about timestamps included (issue 50: "non monotonically increasing dts" came from frames shortened into slivers
    /// at seams, which the ideal cut no longer writes). `timingAsIn`: the source, where the frames' own timing makes
    /// ffmpeg print those complaints for the source itself (variable-rate phone and browser files) — kept frames keep it.
    public static func decodeErrors(_ path: String, timingAsIn source: String? = nil) async throws -> [String] {
        let lines = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).stderrLines
            .filter { !$0.contains("Last message repeated") }
        guard let source else { return lines }
        let sourceLines = try await FileFacts.once(source, "decode errors") { try await decodeErrors(source) }
        guard sourceLines.contains(where: isTimingComplaint) else { return lines }
        return lines.filter { !isTimingComplaint($0) }
    }

    public static func isTimingComplaint(_ line: String) -> Bool { line.contains("non monotonically increasing dts") }

    /// Whether the first video packet in the file is flagged as a keyframe.
    public static func firstVideoPacketIsKeyframe(_ path: String) async throws -> Bool {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                              "-read_intervals", "%+#1", "-of", "csv=p=0", path])
        return result.stdout.hasPrefix("K")
    }

    /// The display-matrix rotation ffprobe reports for the video (counter-clockwise), or nil.
    public static func rotation(_ path: String) async throws -> Int? {
        let video = try await streams(path).first { $0.selector == "v:0" }?.fields
        let sideData = (video?["side_data_list"] as? [[String: Any]]) ?? []
        return sideData.lazy.compactMap { ($0["rotation"] as? Int) ?? ($0["rotation"] as? Double).map { Int($0) } }.first
    }

    public static func fileSize(_ path: String) throws -> Int64 {
        ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.int64Value ?? -1
    }

    public static var gstreamerAvailable: Bool { TestPaths.toolExists("gst-discoverer-1.0") }

    /// The duration GStreamer's demuxer reports (qtdemux applies edit lists on its own).
    public static func gstreamerDuration(_ path: String) async throws -> Double? {
        let result = try await Run.tool("gst-discoverer-1.0", [path])
        guard let line = result.stdoutLines.first(where: { $0.contains("Duration:") }) else { return nil }
        let clock = line.split(separator: " ").last.map(String.init) ?? ""
        let parts = clock.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}
