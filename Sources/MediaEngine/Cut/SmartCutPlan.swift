/// A smart cut: re-encode only the partial groups of pictures at the edges, copy the rest bit for bit.
/// Pure: times are ticks of the video stream, on the source's timestamps.
///
///     frame at start ── head (re-encoded) ── K1 ═══ copied, packets as they are ═══ K2 ── tail (re-encoded) ── end
///
/// K1 is the first clean random-access point at or after the frame shown at `start`, K2 the last one
/// before `end` (or exactly at `end`, then there is no tail). Clean: nothing decoded after it refers to
/// anything before it — an IDR (or BLA), or an HEVC CRA without leading pictures.
public struct SmartCutPlan: Sendable, Equatable {
    /// The frame shown at `start`: the first frame of the output.
    public var frameAtStart: Int64
    /// Where copying starts (K1). Its leading pictures (shown before it, decoded after it) are not
    /// copied: the head covers their time.
    public var firstCopied: CutPlan.VideoPacket
    /// Copying stops before this packet in decode order (K2).
    public var copyEnd: CutPlan.VideoPacket
    /// The tail covers frames shown from here (K2, or its first leading picture) to `end`; nil when `end`
    /// falls exactly on K2 and K2 has no leading pictures.
    public var tailStart: Int64?
    /// Where the tail's decoder starts: K2, or the random-access point before it when K2's leading
    /// pictures refer to the group before (they must be decoded from there).
    public var tailDecodeFrom: CutPlan.VideoPacket
    public var end: Int64
    /// `end` is at or past the end of the stream: everything from K1 on is copied, no tail.
    public var copiesToEnd = false

    public var hasHead: Bool { frameAtStart < firstCopied.pts }
    public var hasTail: Bool { tailStart != nil }

    public enum Fallback: Error, Equatable, CustomStringConvertible {
        /// No clean random-access point lies inside the range: everything is re-encoded.
        case noCleanKeyframe
        /// Only one clean random-access point inside the range: nothing between two of them to copy.
        case nothingToCopy

        public var description: String {
            switch self {
            case .noCleanKeyframe:
                return "no clean random-access point (IDR, or CRA for HEVC) lies inside the range, so all of it is re-encoded"
            case .nothingToCopy:
                return "the range holds fewer than two clean random-access points, so there is no whole group of pictures to copy; all of it is re-encoded"
            }
        }
    }

    /// - Parameters:
    ///   - packets: video packets in decode order from a keyframe at or before `start` to past `end`.
    ///   - clean: for each packet, whether it is a clean random-access point by its NAL type (IDR, BLA,
    ///     HEVC CRA): nothing decoded after it refers to anything before it, except its leading pictures.
    ///   - reachesEndOfStream: the packets run to the end of the stream.
    public static func make(packets: [CutPlan.VideoPacket], clean: [Bool], start: Int64, end: Int64,
                            reachesEndOfStream: Bool = false) -> Result<SmartCutPlan, Fallback> {
        guard let frameAtStart = packets.map(\.pts).filter({ $0 <= start }).max() ?? packets.map(\.pts).min() else {
            return .failure(.noCleanKeyframe)
        }
        let points = packets.indices.filter { packets[$0].isKeyframe && clean[$0] }
        // Where each random-access point's group starts being shown: its first leading picture, or itself.
        func shownFrom(_ index: Int) -> Int64 {
            var earliest = packets[index].pts
            var next = index + 1
            while next < packets.count, !packets[next].isKeyframe {
                earliest = min(earliest, packets[next].pts)
                next += 1
            }
            return earliest
        }
        guard let first = points.first(where: { packets[$0].pts >= frameAtStart && packets[$0].pts < end }) else {
            return .failure(.noCleanKeyframe)
        }
        // The whole rest of the stream is wanted: copy it to the end, no tail.
        if reachesEndOfStream, packets.allSatisfy({ $0.pts < end }), let last = packets.last {
            var plan = SmartCutPlan(frameAtStart: frameAtStart, firstCopied: packets[first], copyEnd: last, tailStart: nil,
                                    tailDecodeFrom: last, end: end)
            plan.copiesToEnd = true
            return .success(plan)
        }
        let later = points.filter { packets[$0].pts > packets[first].pts && shownFrom($0) <= end }
        guard let last = later.last else { return .failure(.nothingToCopy) }
        let tailShown = shownFrom(last)
        let hasTail = tailShown < end
        // Leading pictures refer to the group before: decode the tail from the point before K2.
        let decodeFrom = tailShown < packets[last].pts ? (points.last(where: { $0 < last && $0 >= first }) ?? first) : last
        return .success(SmartCutPlan(frameAtStart: frameAtStart, firstCopied: packets[first], copyEnd: packets[last],
                                     tailStart: hasTail ? tailShown : nil, tailDecodeFrom: packets[decodeFrom], end: end))
    }
}
