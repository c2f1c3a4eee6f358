/// Where a cut starts, from the video packets around `start` (decode order). Pure.
///
/// The keyframe is the last clean start (`CleanStart`) shown at or before `start` (else the first after it);
/// the frame at `start` is the last frame from the keyframe on whose presentation time is ≤ `start`
/// (DESIGN.md). Keyframes the demuxer flags that are not clean starts are passed over.
struct StartEdge: Sendable, Equatable {
    public var keyframe: VideoPacket
    /// Flagged keyframes after `keyframe` shown at or before `start` that are not clean starts (decoding
    /// from them shows broken pictures), and the latest of them.
    public var uncleanKeyframesPassed = 0
    public var latestUnclean: VideoPacket?
    /// The frame shown at `start` (pts); the keyframe's when it lies after `start`.
    public var frameAtStart: Int64
    /// The frame shown after it (pts), when known: the first frame's own duration ends there.
    public var nextFrame: Int64?
    /// No keyframe at or before `start`: the video starts later than asked.
    public var startsLate: Bool
    /// Packets after the keyframe (decode order) that are shown before it: an open GOP's leading pictures.
    public var leadingPictures: Int

    /// - Parameter packets: decode order, from a point at or before the keyframe.
    public static func make(packets: [VideoPacket], start: Int64) -> StartEdge? {
        let keyframes = packets.indices.filter { packets[$0].isKeyframe && packets[$0].isClean }
        var startsLate = false
        guard let chosen = keyframes.last(where: { packets[$0].pts <= start })
            ?? keyframes.first(where: { packets[$0].pts > start }).map({ index -> Int in startsLate = true; return index })
        else { return nil }
        let keyframe = packets[chosen]
        let following = packets[chosen...]
        let frameAtStart = startsLate ? keyframe.pts
            : following.lazy.map(\.pts).filter { $0 >= keyframe.pts && $0 <= start }.max() ?? keyframe.pts
        let nextFrame = following.lazy.map(\.pts).filter { $0 > frameAtStart }.min()
        var leading = 0
        for packet in packets[(chosen + 1)...] {
            if packet.isKeyframe { break }
            if packet.pts < keyframe.pts { leading += 1 }
        }
        let unclean = packets[chosen...].filter { $0.isKeyframe && !$0.isClean && $0.pts > keyframe.pts && $0.pts <= start }
        return StartEdge(keyframe: keyframe, uncleanKeyframesPassed: unclean.count, latestUnclean: unclean.max { $0.pts < $1.pts },
                         frameAtStart: frameAtStart, nextFrame: nextFrame, startsLate: startsLate, leadingPictures: leading)
    }

    /// Whether `packets` (decode order) settle the start: a keyframe at or before `start` (or the first
    /// after it), every frame shown at or before `start` seen (a later packet decodes after `start`, and
    /// pts ≥ dts), the frame after it known, and — for a smart cut — the first clean keyframe shown from
    /// the frame at `start` on, with its leading pictures, or the range's end passed.
    public static func isSettled(_ packets: [VideoPacket], start: Int64, end: Int64, smart: Bool) -> Bool {
        guard let last = packets.last, let edge = make(packets: packets, start: start) else { return false }
        guard last.dts > start || edge.startsLate else { return false }
        if let next = edge.nextFrame {
            if last.dts < next { return false }
        } else {
            return false
        }
        guard smart else { return true }
        if last.dts >= end { return true }
        guard let clean = packets.first(where: { $0.isSplicePoint && $0.isKeyframe && $0.pts >= edge.frameAtStart && $0.pts < end }) else {
            return false
        }
        return last.dts >= clean.pts
    }
}

/// Where a cut ends, from the video packets around `end` (decode order, from a keyframe shown before
/// `end`). Pure. The wanted frames are those shown from the frame at `start` up to, not including, `end`.
struct EndEdge: Sendable, Equatable {
    /// The last packet in decode order that is a wanted frame: every wanted frame and its references are
    /// decoded by then.
    public var lastWantedPacket: VideoPacket
    /// The last wanted frame (pts).
    public var lastWanted: Int64
    /// Where the last wanted frame's source duration ends: the next frame's pts, or its own duration at
    /// the end of the stream.
    public var idealEnd: Int64
    /// Without edit lists every written frame is shown, so the written packets run on until what is shown
    /// has no gap: the last packet written and the end of the last frame shown.
    public var contiguousLast: VideoPacket
    public var contiguousEnd: Int64
    /// Frames shown at or after `end` among those written contiguously.
    public var framesPastEnd: Int

    /// - Parameters:
    ///   - packets: decode order, from a keyframe shown before `end` (at or after the cut's keyframe).
    ///   - firstWanted: the frame at `start` (pts).
    ///   - reachesEndOfStream: nothing follows the last packet.
    /// - Returns: nil while the packets do not yet settle the end (more must be read).
    public static func make(packets: [VideoPacket], firstWanted: Int64, end: Int64, reachesEndOfStream: Bool) -> EndEdge? {
        guard let last = packets.last else { return nil }
        // No later packet can be wanted once one decodes at or after `end` (pts ≥ dts).
        guard reachesEndOfStream || last.dts >= end else { return nil }
        func isWanted(_ packet: VideoPacket) -> Bool { packet.pts >= firstWanted && packet.pts < end }
        guard let wantedIndex = packets.lastIndex(where: isWanted) else { return nil }
        let lastWanted = packets.filter(isWanted).map(\.pts).max() ?? packets[wantedIndex].pts
        guard let idealEnd = frameEnd(after: lastWanted, in: packets, reachesEndOfStream: reachesEndOfStream) else { return nil }

        // Contiguous: take the decode-order prefix through every frame shown before the latest frame taken.
        var through = wantedIndex
        while true {
            let shownUntil = packets[...through].map(\.pts).max() ?? lastWanted
            guard let further = packets.indices.last(where: { $0 > through && packets[$0].pts < shownUntil }) else {
                // Every frame shown before `shownUntil` is read once a packet decodes at or after it.
                guard reachesEndOfStream || last.dts >= shownUntil else { return nil }
                guard let contiguousEnd = frameEnd(after: shownUntil, in: packets, reachesEndOfStream: reachesEndOfStream) else {
                    return nil
                }
                let pastEnd = packets[...through].filter { $0.pts >= end }.count
                return EndEdge(lastWantedPacket: packets[wantedIndex], lastWanted: lastWanted, idealEnd: idealEnd,
                               contiguousLast: packets[through], contiguousEnd: contiguousEnd, framesPastEnd: pastEnd)
            }
            through = further
        }
    }

    /// The end of the frame shown at `pts`: the next frame's start once it is surely read (a packet decodes
    /// at or after it), else — at the end of the stream — the frame's own duration.
    static func frameEnd(after pts: Int64, in packets: [VideoPacket], reachesEndOfStream: Bool) -> Int64? {
        if let next = packets.lazy.map(\.pts).filter({ $0 > pts }).min(), let last = packets.last,
           last.dts >= next || reachesEndOfStream {
            return next
        }
        guard reachesEndOfStream else { return nil }
        let own = packets.last(where: { $0.pts == pts })?.duration ?? 0
        if own > 0 { return pts.plus(own) }
        // No duration stored: as long as the frame before it.
        let earlier = packets.lazy.map(\.pts).filter { $0 < pts }.max()
        return pts.plus(earlier.map { pts.minus($0) } ?? 1)
    }
}
