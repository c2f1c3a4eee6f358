import Foundation

/// Facts about a media file from independent tools: ffprobe/ffmpeg, and GStreamer's demuxers.
public enum MediaFacts {
    /// Video frames a decoder outputs (ffprobe -count_frames; frames an edit list hides are not counted).
    public static func videoFrameCount(_ path: String) throws -> Int {
        let result = try Run.tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return result.stdoutLines.lazy.compactMap { Int($0.split(separator: ",").first ?? "") }.first ?? -1
    }

    /// The presented video duration: the video stream's duration where the container has one, else the
    /// container's.
    public static func videoDuration(_ path: String) throws -> Double {
        let stream = try Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                                              "-of", "csv=p=0", path])
        if let value = stream.stdoutLines.lazy.compactMap({ Double($0.split(separator: ",").first ?? "") }).first { return value }
        return try formatDuration(path)
    }

    public static func streamDuration(_ path: String, selector: String) throws -> Double? {
        let stream = try Run.tool("ffprobe", ["-v", "error", "-select_streams", selector, "-show_entries", "stream=duration",
                                              "-of", "csv=p=0", path])
        return stream.stdoutLines.lazy.compactMap { Double($0.split(separator: ",").first ?? "") }.first
    }

    public static func formatDuration(_ path: String) throws -> Double {
        let format = try Run.tool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Error lines a full decode of every stream prints (empty: decodes cleanly). The null muxer's own
    /// complaints about variable-frame-rate timestamps are not decode errors and are left out.
    public static func decodeErrors(_ path: String) throws -> [String] {
        try Run.tool("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).stderrLines.filter {
            !$0.contains("non monotonically increasing dts") && !$0.contains("Last message repeated")
        }
    }

    /// Whether the first video packet in the file is flagged as a keyframe.
    public static func firstVideoPacketIsKeyframe(_ path: String) throws -> Bool {
        let result = try Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                              "-read_intervals", "%+#1", "-of", "csv=p=0", path])
        return result.stdout.hasPrefix("K")
    }

    /// The display-matrix rotation ffprobe reports for the video (counter-clockwise), or nil.
    public static func rotation(_ path: String) throws -> Int? {
        let result = try Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                              "stream_side_data=rotation", "-of", "csv=p=0", path])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public static func fileSize(_ path: String) throws -> Int64 {
        ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.int64Value ?? -1
    }

    public static var gstreamerAvailable: Bool { TestPaths.toolExists("gst-discoverer-1.0") }

    /// The duration GStreamer's demuxer reports (qtdemux applies edit lists on its own).
    public static func gstreamerDuration(_ path: String) throws -> Double? {
        let result = try Run.tool("gst-discoverer-1.0", [path])
        guard let line = result.stdoutLines.first(where: { $0.contains("Duration:") }) else { return nil }
        let clock = line.split(separator: " ").last.map(String.init) ?? ""
        let parts = clock.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}
