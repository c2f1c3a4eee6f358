import Foundation
import MediaEngine

/// Reference pictures decoded by the ffmpeg CLI, to check vtrim against an independent decoder.
public enum Reference {
    public struct DecodedFrame: Sendable {
        public let seconds: Double
        public let image: RGBImage
    }

    /// Every frame of the file's video decoded from the start (no seeking, so open GOPs are safe),
    /// autorotated as ffmpeg's CLI does, scaled to `width`×`height`, with presentation times from
    /// ffprobe relative to the container start.
    public static func frames(_ path: String, width: Int, height: Int) async throws -> [DecodedFrame] {
        let raw = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf",
                                          "scale=\(width):\(height):flags=bicubic+accurate_rnd+full_chroma_int",
                                          "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard raw.status == 0 else { throw ReferenceError(message: raw.stderr) }
        let times = try await frameTimes(path)
        let size = width * height * 3
        let data = [UInt8](raw.stdoutData)
        let count = data.count / size
        return (0..<min(count, times.count)).map { index in
            DecodedFrame(seconds: times[index],
                         image: RGBImage(width: width, height: height, stride: width * 3,
                                         pixels: Array(data[index * size..<(index + 1) * size])))
        }
    }

    /// Presentation times of the decoded frames, in decode-output order, relative to the container start. Asked once
    /// per file version in a run (the same source serves many cases): one ffprobe for the start, the codec and the times.
    public static func frameTimes(_ path: String) async throws -> [Double] {
        try await FileFacts.once(path, "frame times") { try await readFrameTimes(path) }
    }

    private static func readFrameTimes(_ path: String) async throws -> [Double] {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                   "format=start_time:stream=codec_name:frame=best_effort_timestamp_time", "-of", "json", path])
        let json = (try? JSONSerialization.jsonObject(with: probe.stdoutData)) as? [String: Any] ?? [:]
        let start = ((json["format"] as? [String: Any])?["start_time"] as? String).flatMap(Double.init) ?? 0
        let codec = (json["streams"] as? [[String: Any]])?.first?["codec_name"] as? String ?? ""
        if codec == "av1", [".mp4", ".mov"].contains(where: { path.lowercased().hasSuffix($0) }) {
            // FFmpeg 5.1's libdav1d wrapper shows the frames an MP4 edit list hides; libaom's decoder does not.
            let run = try await Run.tool("ffmpeg", ["-hide_banner", "-nostats", "-c:v", "libaom-av1", "-i", path, "-map", "0:v:0",
                                              "-vf", "showinfo", "-f", "null", "-"])
            return run.stderrLines.compactMap { line -> Double? in
                guard let range = line.range(of: "pts_time:") else { return nil }
                return Double(line[range.upperBound...].prefix { !$0.isWhitespace })
            }.map { $0 - start }
        }
        let frames = json["frames"] as? [[String: Any]] ?? []
        return frames.compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap(Double.init) }.map { $0 - start }
    }

    public static func videoCodec(_ path: String) async throws -> String {
        // MPEG-TS lists the stream under its program too: the first line.
        try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
            .stdout.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }

    public static func containerStart(_ path: String) async throws -> Double {
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", path])
        return Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The frame a player shows at t (DESIGN.md): last with time ≤ t, else the first.
    public static func frameShown(at seconds: Double, in frames: [DecodedFrame]) -> DecodedFrame? {
        frames.last { $0.seconds <= seconds + 1e-9 } ?? frames.first
    }
}

public struct ReferenceError: Error, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

public enum ImageCompare {
    /// Peak signal-to-noise ratio in dB over all RGB samples (∞ when identical).
    public static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        var sum = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                let dr = Double(p.r) - Double(q.r), dg = Double(p.g) - Double(q.g), db = Double(p.b) - Double(q.b)
                sum += dr * dr + dg * dg + db * db
            }
        }
        let mse = sum / Double(a.width * a.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    public enum Marker { case red, blue }

    /// Whether the region is clearly the marker colour.
    public static func isMarker(_ image: RGBImage, _ marker: Marker, x: Int, y: Int, size: Int) -> Bool {
        let mean = image.meanColor(x: x, y: y, width: size, height: size)
        switch marker {
        case .red: return mean.r > 180 && mean.g < 80 && mean.b < 80
        case .blue: return mean.b > 180 && mean.r < 80 && mean.g < 80
        }
    }

    /// Red marker top-left and blue top-right, as the fixtures draw them on the upright picture
    /// (48 px squares 8 px from the edges of a 320x240 picture), scaled to `image`.
    public static func markersUpright(_ image: RGBImage) -> Bool {
        let scale = Double(image.width) / 320
        let inset = Int((16 * scale).rounded()), size = max(2, Int((32 * scale).rounded()))
        return isMarker(image, .red, x: inset, y: inset, size: size)
            && isMarker(image, .blue, x: image.width - inset - size, y: inset, size: size)
    }
}
