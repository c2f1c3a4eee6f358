/// A smart cut: re-encode only the partial groups of pictures at the edges, copy the rest bit for bit.
/// Pure: times are ticks of the video stream, on the source's timestamps.
///
///     frame at start ── head (re-encoded) ── K1 ═══ copied, packets as they are ═══ K2 ── tail (re-encoded) ── end
///
/// K1 is the first clean random-access point at or after the frame shown at `start`, K2 the last one
/// before `end` (or exactly at `end`, then there is no tail). Clean: nothing decoded after it refers to
/// anything before it — an IDR (or BLA), or an HEVC CRA, whose leading pictures go to the head or tail.
public struct SmartCutPlan: Sendable, Equatable, Codable {
    /// The frame shown at `start`: the first frame of the output.
    public var frameAtStart: Int64
    /// Where copying starts (K1). Its leading pictures (shown before it, decoded after it) are not
    /// copied: the head covers their time.
    public var firstCopied: VideoPacket
    /// K1's leading pictures, left out of the copy (the head, or the part before `start`, covers their time): an
    /// MPEG-2 writer marks K1's GOP closed and renumbers its pictures for them.
    public var leadingDropped = 0
    /// Copying stops before this packet in decode order (K2).
    public var copyEnd: VideoPacket
    /// The tail covers frames shown from here (K2, or its first leading picture) to `end`; nil when `end`
    /// falls exactly on K2 and K2 has no leading pictures.
    public var tailStart: Int64?
    /// Where the tail's decoder starts: K2, or the random-access point before it when K2's leading
    /// pictures refer to the group before (they must be decoded from there).
    public var tailDecodeFrom: VideoPacket
    public var end: Int64
    /// `end` is at or past the end of the stream: everything from K1 on is copied, no tail.
    public var copiesToEnd = false
    /// Every packet from the range's last clean start up to the last frame shown before `end` (decode order) is shown
    /// before `end`: nothing after `end` is needed, so K1 through `copyEnd` (included) is copied, no tail.
    public var copiesThrough = false
    /// Copied through: the last frame shown (its time), which lasts until `end` — the span — whatever its packet says.
    public var copyLastShown: Int64?
    /// Frames re-encoded in the head and in the tail.
    public var headFrames = 0
    public var tailFrames = 0
    /// Where a join's seam needs them (`SeamDecodeTimes`): the last head frame's time, the last tail frame's
    /// time, and — where K2 has leading pictures (the end window then holds the point before K2, so every window gives
    /// the same) — the decode time of the packet copied last (the one before K2 in decode order).
    public var headLastShown: Int64?
    public var tailLastShown: Int64?
    public var lastCopiedDecode: Int64?
    /// A join's range with no whole group of pictures to copy: all of it is re-encoded like a tail (from the
    /// frame at `start`, decoded from the range's keyframe), nothing copied.
    public var reencodesWhole = false

    public var hasHead: Bool { frameAtStart < firstCopied.pts }
    public var hasTail: Bool { tailStart != nil }

    /// - Parameters:
    ///   - start: packets (decode order) from the cut's keyframe until the first clean point from the frame
    ///     at `start` on and its leading pictures are read (or `end` is passed).
    ///   - endPackets: packets (decode order) from a clean point before the last one shown before `end`, to
    ///     past `end`; the same list as `start` when one read covers the whole range.
    ///   - reachesEndOfStream: `endPackets` run to the end of the stream.
    /// `copiesLastGroup`: where the last group needs nothing decoded after `end`, copy it too rather than re-encode a tail.
    public static func make(start: [VideoPacket], end endPackets: [VideoPacket], frameAtStart: Int64, end: Int64,
                            reachesEndOfStream: Bool, copiesLastGroup: Bool = false) -> Result<SmartCutPlan, SmartFallback> {
        func isPoint(_ packet: VideoPacket) -> Bool { packet.isKeyframe && packet.isSplicePoint }
        guard let first = (start + endPackets).first(where: { isPoint($0) && $0.pts >= frameAtStart && $0.pts < end }) else {
            return .failure(.noCleanKeyframe)
        }
        let headFrames = start.filter { $0.pts >= frameAtStart && $0.pts < first.pts }.count
        let headLast = start.filter { $0.pts >= frameAtStart && $0.pts < first.pts }.map(\.pts).max()
        let found = start.contains { $0.isSame(as: first) } ? start : endPackets
        let leading = found.firstIndex { $0.isSame(as: first) }.map { index in
            found[(index + 1)...].prefix { !$0.isKeyframe }.filter { $0.pts < first.pts }.count
        } ?? 0
        // The whole rest of the stream is wanted: copy it to the end, no tail.
        if reachesEndOfStream, endPackets.allSatisfy({ $0.pts < end }), let last = endPackets.last {
            return .success(SmartCutPlan(frameAtStart: frameAtStart, firstCopied: first, leadingDropped: leading, copyEnd: last, tailStart: nil,
                                         tailDecodeFrom: last, end: end, copiesToEnd: true, headFrames: headFrames, headLastShown: headLast))
        }
        let points = endPackets.indices.filter { isPoint(endPackets[$0]) }
        let later = points.filter { endPackets[$0].pts > first.pts && shownFrom($0, in: endPackets) <= end }
        guard let last = later.last else { return copyThrough(first: first, in: endPackets, end: end, leading: leading, frameAtStart: frameAtStart,
                                                               headFrames: headFrames, headLast: headLast) }
        let tailShown = shownFrom(last, in: endPackets)
        let hasTail = tailShown < end
        // The last group needs nothing decoded after the end: copied through, no tail.
        if copiesLastGroup, hasTail, case let .success(through) = copyThrough(first: first, checkingFrom: endPackets[last], in: endPackets, end: end, leading: leading,
                                                              frameAtStart: frameAtStart, headFrames: headFrames, headLast: headLast) {
            return .success(through)
        }
        // Leading pictures refer to the group before: decode the tail from the point before K2.
        var decodeFrom = endPackets[last]
        if tailShown < endPackets[last].pts {
            decodeFrom = points.last(where: { $0 < last && endPackets[$0].pts >= first.pts }).map { endPackets[$0] } ?? first
        }
        let tailShownTimes = hasTail ? endPackets.filter { $0.pts >= tailShown && $0.pts < end }.map(\.pts) : []
        return .success(SmartCutPlan(frameAtStart: frameAtStart, firstCopied: first, leadingDropped: leading, copyEnd: endPackets[last],
                                     tailStart: hasTail ? tailShown : nil, tailDecodeFrom: decodeFrom, end: end,
                                     headFrames: headFrames, tailFrames: tailShownTimes.count, headLastShown: headLast,
                                     tailLastShown: tailShownTimes.max(),
                                     lastCopiedDecode: tailShown < endPackets[last].pts && last > 0 ? endPackets[last - 1].dts : nil))
    }

    /// The copy runs from K1 through the last packet shown before `end`, where every packet from the last clean start
    /// (`checkingFrom`: K1 itself when it is the only one, else K2) to it (decode order) is shown before `end` too — so the
    /// frames shown before `end` need nothing decoded after it, and none after `end` is written: the range's last group
    /// is copied, not re-encoded. Read from the packets' times, never assumed from the codec.
    static func copyThrough(first: VideoPacket, checkingFrom last: VideoPacket? = nil, in packets: [VideoPacket], end: Int64, leading: Int,
                            frameAtStart: Int64, headFrames: Int, headLast: Int64?) -> Result<SmartCutPlan, SmartFallback> {
        let checked = last ?? first
        guard let from = packets.firstIndex(where: { $0.isSame(as: checked) }),
              let through = packets.indices.last(where: { $0 > from && packets[$0].pts < end }),
              through + 1 < packets.count, packets[from...through].allSatisfy({ $0.pts < end }) else {
            return .failure(.nothingToCopy)
        }
        var plan = SmartCutPlan(frameAtStart: frameAtStart, firstCopied: first, leadingDropped: leading, copyEnd: packets[through],
                                tailStart: nil, tailDecodeFrom: first, end: end, copiesThrough: true,
                                headFrames: headFrames, headLastShown: headLast)
        plan.copyLastShown = packets[from...through].map(\.pts).max()
        return .success(plan)
    }

    /// A join's range re-encoded whole with the edges' encoder (it holds no whole group of pictures to copy),
    /// so the rest of the join stays smart: decoded from `keyframe`, frames shown from `frameAtStart` to `end`.
    public static func whole(keyframe: VideoPacket, frameAtStart: Int64, end: Int64, packets: [VideoPacket]) -> SmartCutPlan {
        let shown = Set(packets.map(\.pts).filter { $0 >= frameAtStart && $0 < end })
        return SmartCutPlan(frameAtStart: frameAtStart, firstCopied: keyframe, copyEnd: keyframe, tailStart: frameAtStart,
                            tailDecodeFrom: keyframe, end: end, tailFrames: max(1, shown.count), tailLastShown: shown.max(), reencodesWhole: true)
    }

    /// Where a random-access point's group starts being shown: its first leading picture, or itself.
    static func shownFrom(_ index: Int, in packets: [VideoPacket]) -> Int64 {
        var earliest = packets[index].pts
        var next = index + 1
        while next < packets.count, !packets[next].isKeyframe {
            earliest = min(earliest, packets[next].pts)
            next += 1
        }
        return earliest
    }

    /// Whether `packets` (decode order, read backwards from `end` in steps) hold enough for the tail: two
    /// clean points shown before `end`, so K2's leading pictures can be decoded from the one before it — or
    /// one without leading pictures (an IDR: the tail decodes from it), one seek fewer, where the container
    /// gave decode times (a reader derives them for Matroska, unreliably for the packets just after a seek,
    /// and a join's seams are planned on K2's).
    static func endWindowSuffices(_ packets: [VideoPacket], end: Int64, decodeTimesDerived: Bool) -> Bool {
        let points = packets.indices.filter { packets[$0].isKeyframe && packets[$0].isSplicePoint && packets[$0].pts < end }
        guard let last = points.last else { return false }
        return points.count >= 2 || (!decodeTimesDerived && shownFrom(last, in: packets) == packets[last].pts)
    }
}
