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
}
