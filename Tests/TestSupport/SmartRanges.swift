import Foundation

/// The ranges the smart-cut matrices cut from their 4 s, 30 fps generated sources (a clean start every 15 frames):
/// one range holding four whole GOPs, or a 3-range join each holding one; placed on frame times (a start just after its
/// frame's time, an end just before: both round onto the frame's tick).
public enum SmartRanges {
    /// Source frame indices of each range (start frame, end frame exclusive).
    public static func frames(join: Bool) -> [(Int, Int)] { join ? [(8, 40), (50, 80), (88, 118)] : [(17, 100)] }

    /// The ranges in seconds, from the source's sorted frame times.
    public static func spans(join: Bool, times: [Double]) -> [(Double, Double)] {
        frames(join: join).map { (times[$0.0] + 5e-7, times[$0.1] - 5e-7) }
    }

    /// `vtrim cut`'s arguments for them: `--keep` per range of a join, `--start`/`--end` for one range.
    public static func arguments(_ spans: [(Double, Double)], join: Bool) -> [String] {
        join ? spans.flatMap { ["--keep", String(format: "%.7f..%.7f", $0.0, $0.1)] }
            : ["--start", String(format: "%.7f", spans[0].0), "--end", String(format: "%.7f", spans[0].1)]
    }

    /// A smart cut of `input`'s ranges into `output`, and what FFmpeg prints decoding and remuxing what it wrote.
    public struct Cut {
        public let spans: [(Double, Double)]
        public let result: RunResult
        public let report: [String: Any]?
        /// `ffmpeg -v error`'s output decoding, and remuxing, the output: empty when it has nothing to say.
        public let decodeErrors: String
        public let remuxErrors: String
        public var mode: String? { report?["mode"] as? String }
    }

    public static func cut(_ input: String, output: String, join: Bool, times: [Double]) async throws -> Cut {
        let spans = spans(join: join, times: times)
        let result = try await Run.vtrim(["cut", "--json", input] + arguments(spans, join: join) + ["--mode", "smart", "-o", output])
        let decode = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        let remux = try await Run.tool("ffmpeg", ["-v", "error", "-i", output, "-c", "copy", "-f", "null", "-"])
        return Cut(spans: spans, result: result, report: result.jsonLines.first, decodeErrors: decode.stderr, remuxErrors: remux.stderr)
    }
}
