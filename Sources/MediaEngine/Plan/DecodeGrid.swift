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

    /// The grid for a single smart range from a constant-rate source (the frames read around both edges one step
    /// apart, within a tick); nil for other ranges, and for sources whose frame steps vary.
    static func make(frames: [[VideoPacket]], smart: SmartCutPlan) -> DecodeGrid? {
        guard !smart.reencodesWhole else { return nil }
        var steps: [Int64] = []
        for packets in frames {
            // A window read in decode order holds every frame shown up to its last decode time; later ones may be
            // missing (their gaps are no step of the source's).
            guard let readUntil = packets.last?.dts else { continue }
            let times = packets.map(\.pts).filter { $0 <= readUntil }.sorted()
            steps += zip(times.dropFirst(), times).map { $0.minus($1) }
        }
        guard steps.count >= 2, let shortest = steps.min(), let longest = steps.max(), shortest > 0, longest.minus(shortest) <= 1 else {
            return nil
        }
        let delay = smart.firstCopied.pts.minus(smart.firstCopied.dts)
        guard delay >= 0 else { return nil }
        return DecodeGrid(frameTicks: shortest, delay: delay)
    }

    /// The decode time of the output's `index`-th packet, shown at `pts`, after one decoded at `previous` (output ticks).
    func decodeTime(index: Int, start: Int64, pts: Int64, previous: Int64?) -> Int64 {
        var dts = start.plus(Int64(index).times(frameTicks)).minus(delay)
        dts = min(dts, pts)
        if let previous { dts = max(dts, previous.plus(1)) }
        return dts
    }
}
