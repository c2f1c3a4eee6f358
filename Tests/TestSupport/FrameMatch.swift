import Foundation

/// Which source frame each presented frame of an output is: both decoded small and grey (ffmpeg, or
/// GStreamer's decodebin for the output), each output frame matched to the nearest source frame by mean
/// squared difference. The test pictures change every frame, so re-encoded frames match their own.
public enum FrameMatch {
    public static let width = 64, height = 48

    /// Every presented frame, in presentation order.
    public static func frames(_ path: String, gstreamer: Bool = false) async throws -> [[UInt8]] {
        let result: RunResult
        if gstreamer {
            // gst-launch-1.0 (GStreamer 1.22) deadlocked in decodebin's multiqueue with the audio pad left unlinked (in CI,
            // on MPEG-TS with MP2 audio, twice in a row): decodebin exposes the video alone, and the read is bounded and
            // tried once more when it hangs.
            let pipeline = ["60", "gst-launch-1.0", "-q", "filesrc", "location=\(path)", "!", "decodebin", "caps=video/x-raw(ANY)",
                            "expose-all-streams=false", "!", "videoconvert", "!",
                            "videoscale", "!", "video/x-raw,format=GRAY8,width=\(width),height=\(height)", "!", "fdsink"]
            var attempt = try await Run.tool("timeout", ["-s", "KILL"] + pipeline)
            if attempt.status == 137 { attempt = try await Run.tool("timeout", ["-s", "KILL"] + pipeline) }
            result = attempt
        } else {
            result = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf", "scale=\(width):\(height)",
                                             "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        }
        guard result.status == 0 else { throw ReferenceError(message: "decoding \(path): \(result.stderr)") }
        let bytes = [UInt8](result.stdoutData), size = width * height
        return (0..<(bytes.count / size)).map { Array(bytes[$0 * size..<($0 + 1) * size]) }
    }

    /// For each output frame, the index of the source frame it shows.
    public static func sourceIndices(_ output: [[UInt8]], in source: [[UInt8]]) -> [Int] {
        output.map { frame in
            var best = 0, bestError = Int.max
            for (index, candidate) in source.enumerated() {
                let error = squaredError(frame, candidate, below: bestError)
                if error < bestError { best = index; bestError = error }
            }
            return best
        }
    }

    /// The sum of squared differences of two frames' pixels, or (once it reaches `limit`) at least `limit`. A plain
    /// loop over the buffers: the tests run unoptimised, where zip and reduce cost a tenth of the whole run.
    static func squaredError(_ a: [UInt8], _ b: [UInt8], below limit: Int = .max) -> Int {
        a.withUnsafeBufferPointer { first in
            b.withUnsafeBufferPointer { second in
                var sum = 0, pixel = 0
                let count = min(first.count, second.count)
                while pixel < count {
                    let difference = Int(first[pixel]) &- Int(second[pixel])
                    sum &+= difference &* difference
                    if sum >= limit { break }
                    pixel &+= 1
                }
                return sum
            }
        }
    }

    /// Positions where the output does not show its ideal frame (or is shorter or longer than the ideal): a
    /// shown frame is the ideal one when it is at least as close to it as to any other source frame near it,
    /// within 2 % (real footage repeats frames that look the same at this size).
    public static func mismatches(_ output: [[UInt8]], source: [[UInt8]], ideal: [Int]) -> [Int] {
        func error(_ a: [UInt8], _ b: [UInt8]) -> Int { squaredError(a, b) }
        var wrong = Array(min(output.count, ideal.count)..<max(output.count, ideal.count))
        for position in 0..<min(output.count, ideal.count) {
            let expected = ideal[position]
            let own = error(output[position], source[expected])
            let nearest = (max(0, expected - 8)..<min(source.count, expected + 9)).map { error(output[position], source[$0]) }.min() ?? own
            if Double(own) > Double(nearest) * 1.02 + Double(width * height) { wrong.append(position) }
        }
        return wrong.sorted()
    }

    /// How long each range of the ideal join lasts: its frames' span, from its first frame's start to its last frame's end
    /// (the next frame's time; at the stream's end, the frame before's length).
    public static func spans(_ ranges: [(Double, Double)], times: [Double]) -> [Double] {
        var spans: [Double] = []
        var previous: Int?
        for range in ranges {
            var first = times.lastIndex { $0 <= range.0 + 5e-7 } ?? 0
            if let previous { first = max(first, previous + 1) }
            guard let last = times.lastIndex(where: { $0 < range.1 - 5e-7 }), first <= last else { continue }
            let end = last + 1 < times.count ? times[last + 1] : times[last] + (last > 0 ? times[last] - times[last - 1] : 1.0 / 30)
            spans.append(end - times[first])
            previous = last
        }
        return spans
    }

    /// The indices (into `times`, sorted presentation times) of the ideal frames of each range, in order.
    /// DESIGN.md's ideal join: each range from the frame at its start through the last frame that begins before its
    /// end, except that a range starts with the first frame the range before did not show (no frame twice).
    public static func ideal(_ ranges: [(Double, Double)], times: [Double]) -> [Int] {
        var shown: [Int] = []
        for range in ranges {
            var first = times.lastIndex { $0 <= range.0 + 5e-7 } ?? 0
            if let previous = shown.last { first = max(first, previous + 1) }
            let last = times.lastIndex { $0 < range.1 - 5e-7 } ?? first
            guard first <= last || shown.isEmpty else { continue }
            shown += Array(first...max(first, last))
        }
        return shown
    }
}
