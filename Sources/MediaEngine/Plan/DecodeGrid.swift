import CAV

/// A smart cut's decode times on one grid: the output's k-th packet (decode order) decodes at `k × frameTicks − delay`
/// after the cut's output start, so a constant-rate source stays constant-rate (MP4's `stts` one run): the re-encoded
/// edges decode with the copied frames' delay, and the decode slots of the copied keyframe's open-GOP leading pictures
/// (HEVC CRAs, MPEG-2), which are left out, do not stay empty. Copied packets keep their bytes; only their decode times
/// move, never after their presentation (the writer keeps each at or before its presentation and after the one before).
public struct DecodeGrid: Sendable, Equatable, Codable {
    /// One frame, in the stream's ticks.
    public var frameTicks: Int64
    /// How far decoding runs ahead of presentation: the copied keyframe's own reorder delay.
    public var delay: Int64

    /// The grid for a single smart range of a constant-rate stream (`frameTicks`: `constantFrameTicks`); nil for a
    /// range re-encoded whole, or a variable rate.
    static func make(frameTicks: Int64?, smart: SmartCutPlan) -> DecodeGrid? {
        guard !smart.reencodesWhole, let frameTicks, frameTicks > 0 else { return nil }
        let delay = smart.firstCopied.pts.minus(smart.firstCopied.dts)
        guard delay >= 0 else { return nil }
        return DecodeGrid(frameTicks: frameTicks, delay: delay)
    }

    /// Every range of a smart cut or join on one grid, with one delay (the largest copied keyframe's): each range's
    /// k-th packet decodes at its output start + k frames − delay, and a range's start is the frames before it (whole
    /// frames), so the grids join into one. A range re-encoded whole (its frames in order) takes the same grid. Only at
    /// a constant rate, where every copying range has a grid.
    static func apply(_ ranges: inout [RangePlan], frameTicks: Int64?) {
        guard ranges.allSatisfy({ $0.smart != nil }) else { return }
        let copying = ranges.compactMap(\.smart).filter { !$0.reencodesWhole }
        let grids = copying.map { make(frameTicks: frameTicks, smart: $0) }
        guard !grids.isEmpty, grids.allSatisfy({ $0 != nil }), let delay = grids.compactMap({ $0?.delay }).max(), let frameTicks else { return }
        for index in ranges.indices { ranges[index].video?.decodeGrid = DecodeGrid(frameTicks: frameTicks, delay: delay) }
    }

    /// One frame in ticks where the stream's average rate equals its base rate and a frame is a whole number of ticks
    /// (FFmpeg derives both from the whole stream: MP4's sample table, Matroska's DefaultDuration); nil otherwise.
    static func constantFrameTicks(rate: AVRational, base: AVRational, timeBase: AVRational) -> Int64? {
        guard rate.num > 0, rate.den > 0, timeBase.num > 0, timeBase.den > 0, av_cmp_q(rate, base) == 0 else { return nil }
        let ticks = Int64(timeBase.den).times(Int64(rate.den)), per = Int64(timeBase.num).times(Int64(rate.num))
        guard per > 0, ticks % per == 0, ticks / per > 0 else { return nil }
        return ticks / per
    }

    /// The decode time of the output's `index`-th packet, shown at `pts`, after one decoded at `previous` (output ticks).
    func decodeTime(index: Int, start: Int64, pts: Int64, previous: Int64?) -> Int64 {
        var dts = start.plus(Int64(index).times(frameTicks)).minus(delay)
        dts = min(dts, pts)
        if let previous { dts = max(dts, previous.plus(1)) }
        return dts
    }
}
