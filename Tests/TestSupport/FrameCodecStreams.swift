import Foundation

/// What a second reader (FFmpeg's `trace_headers` bitstream filter, and ffprobe's packet hashes) sees of a VP8, VP9 or
/// AV1 stream: the stream-level headers its frames state, and its packets' bytes.
public enum FrameCodecStreams {
    /// Every distinct stream-level header the video states, each as its fields (`name = value`, bit offsets left out):
    /// AV1's sequence headers (the stored configuration's, traced as extradata, and every in-stream one), VP9's keyframes'
    /// profile and colour configuration. One element: every frame (and the stored configuration) states the same.
    /// `av1`: sequence headers; otherwise VP9 keyframes. `stored`: the configuration's (traced before the first
    /// packet); `frames`: the packets'.
    public static func distinctHeaders(_ path: String, av1: Bool) async throws -> (stored: Set<[String]>, frames: Set<[String]>) {
        let result = try await Run.tool("ffmpeg", ["-v", "trace", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        var stored = Set<[String]>(), frames = Set<[String]>()
        var inPackets = false
        var current: [String]?
        var vp9Keyframe = false
        func close() {
            if let fields = current, !fields.isEmpty, vp9Keyframe || fields.contains(where: { $0.hasPrefix("seq_profile") }) {
                if inPackets { frames.insert(fields) } else { stored.insert(fields) }
            }
            current = nil
            vp9Keyframe = false
        }
        for line in result.stderrLines {
            guard let range = line.range(of: "[trace_headers @ "), let end = line[range.upperBound...].range(of: "] ") else { continue }
            let text = line[end.upperBound...]
            let words = text.split(separator: " ", omittingEmptySubsequences: true)
            // A field line: bit offset, name, bits, "=", value.
            if words.count == 5, Int(words[0]) != nil, words[3] == "=" {
                guard current != nil else { continue }
                let name = String(words[1]), value = String(words[4])
                if name == "frame_type" { vp9Keyframe = value == "0" }
                let kept = ["profile_low_bit", "profile_high_bit", "ten_or_twelve_bit", "color_space", "color_range", "subsampling_x",
                            "subsampling_y"]
                if current?.first == "vp9" {
                    if kept.contains(name) { current?.append("\(name) = \(value)") }
                } else {
                    current?.append("\(name) = \(value)")
                }
                continue
            }
            close()
            if text.hasPrefix("Packet:") { inPackets = true }
            if av1, text == "Sequence Header" { current = [] }
            if !av1, text == "Frame" { current = ["vp9"] }
        }
        close()
        return (stored, frames)
    }

    /// The MD5 of each video packet's bytes, in the file's order.
    public static func packetHashes(_ path: String) async throws -> [String] {
        let result = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=data_hash", "-show_data_hash", "md5",
                                              "-of", "csv=p=0", path])
        return result.stdoutLines.filter { !$0.isEmpty }
    }

    /// The longest run of consecutive output packets that are consecutive packets of the source, byte for byte.
    public static func longestCopiedRun(_ output: [String], source: [String]) -> Int {
        var positions: [String: [Int]] = [:]
        for (index, hash) in source.enumerated() { positions[hash, default: []].append(index) }
        var best = 0
        for start in output.indices {
            for origin in positions[output[start]] ?? [] {
                var length = 0
                while start + length < output.count, origin + length < source.count, output[start + length] == source[origin + length] { length += 1 }
                best = max(best, length)
            }
        }
        return best
    }
}
