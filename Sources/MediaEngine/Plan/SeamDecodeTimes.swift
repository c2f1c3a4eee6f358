/// The decode delays of a smart join's re-encoded parts, so that decode times rise packet by packet across the
/// whole output. The writers stamp a head's frames `pts − head delay`, a tail's (or a range re-encoded whole)
/// `pts − tail delay`, and copy the source's packets with their own decode times, all moved onto the output.
///
/// By default a head decodes its K1's reorder delay early, as K1 does, and a tail followed by another range decodes
/// the first copied keyframe's delay early, as the next range's parts do — which keeps H.264 and closed-GOP joins in
/// order. Where an open GOP's leading pictures sit on both sides of a seam (MPEG-2, HEVC CRAs: the tail re-encodes
/// K2's leading pictures, the next head K1's) that leaves no room: the tail then decodes just after the last copied
/// packet and the next head as early as keeps its first frame after the tail's last, its last before K1 — decode
/// times run faster than the frame rate around the seam, never backwards. Pure: decided while planning, from the
/// range plans placed on the output (their `outputStart`).
enum SeamDecodeTimes {
    struct Delays: Equatable {
        /// nil: K1's own reorder delay.
        var head: Int64?
        var tail: Int64
    }

    static let problem = "a range's end falls among the leading pictures of an open GOP, whose re-encoded frames cannot decode in order after the copied ones"

    /// Each range's delays, or nil when no choice keeps decode times rising (the join is then made exactly).
    static func delays(_ cuts: [RangePlan]) -> [Delays]? {
        let defaultTail = cuts.lazy.compactMap { cut in cut.smart.flatMap { $0.reencodesWhole ? nil : cut.video?.copiedKeyframeDelay($0) } }.first ?? 0
        var chosen: [Delays] = []
        // The decode time (output ticks) of the last packet written so far.
        var last: Int64?
        for (index, cut) in cuts.enumerated() {
            guard let video = cut.video, let smart = cut.smart else { return nil }
            let shift = video.packetShift
            // Copied packets decode `lead` earlier than their own times (one delay for the whole join).
            let lead = video.copiedDecodeLead
            let isLast = index == cuts.count - 1
            if smart.reencodesWhole {
                guard let first = smart.tailStart, let lastShown = smart.tailLastShown else { return nil }
                let room = last.map { first.minus(shift).minus($0).minus(1) } ?? Int64.max
                let delay = min(max(0, defaultTail), room)
                guard delay >= 0 else { return nil }
                chosen.append(Delays(head: nil, tail: delay))
                last = lastShown.minus(shift).minus(delay)
                continue
            }
            let keyframeDecode = smart.firstCopied.dts.minus(lead).minus(shift)
            var head: Int64?
            if smart.hasHead, let headLast = smart.headLastShown {
                guard let delay = headDelay(smart, video: video, headLast: headLast, after: last) else { return nil }
                head = delay == video.copiedKeyframeDelay(smart) ? nil : delay
            } else if let last, keyframeDecode <= last {
                return nil
            }
            guard !smart.copiesToEnd, !smart.copiesThrough else {
                chosen.append(Delays(head: head, tail: 0))
                // Copied to the stream's end (its last packet in decode order); a range after it (the end again) follows that.
                last = smart.copyEnd.dts.minus(lead).minus(shift)
                continue
            }
            // Every copied packet decodes before K2; where K2 has leading pictures, exactly when the one before it does.
            let copied = (smart.lastCopiedDecode ?? smart.copyEnd.dts.minus(1)).minus(lead).minus(shift)
            guard let tailStart = smart.tailStart, let tailLast = smart.tailLastShown else {
                chosen.append(Delays(head: head, tail: 0))
                last = copied
                continue
            }
            let room = tailStart.minus(shift).minus(copied).minus(1)
            guard room >= 0 else { return nil }
            // The copied frames' own delay, so decode times keep one step across the seam (one `stts` run: a constant
            // rate stays constant); where the next range cannot follow that, as early as it may go (most room for it).
            var tail = min(max(0, defaultTail), room)
            if !isLast, !canFollow(cuts[index + 1], after: tailLast.minus(shift).minus(tail)) { tail = room }
            chosen.append(Delays(head: head, tail: tail))
            last = tailLast.minus(shift).minus(tail)
        }
        return chosen
    }

    /// The head's delay: K1's where it keeps the head's first frame after `last` and its last before K1, else the
    /// middle of what does; nil when nothing does.
    private static func headDelay(_ smart: SmartCutPlan, video: VideoCut, headLast: Int64, after last: Int64?) -> Int64? {
        let shift = video.packetShift
        // The head's first frame is shown at the range's start on the output (`StartFrameHold`).
        let firstShown = video.outputStart.value
        let lastShown = max(firstShown, headLast.minus(shift))
        let low = lastShown.minus(smart.firstCopied.dts.minus(video.copiedDecodeLead).minus(shift))  // delay > low: the last decodes before K1
        let high = last.map { firstShown.minus($0) } ?? Int64.max  // delay < high: the first decodes after `last`
        let keyframeDelay = video.copiedKeyframeDelay(smart)
        // A delay under 0 would decode a frame after it is shown; SmartEdge clamps K1's own at 0 too.
        if keyframeDelay >= 0, keyframeDelay > low, keyframeDelay < high { return keyframeDelay }
        let floor = max(low.plus(1), 0)
        guard high > floor else { return nil }
        return high == Int64.max ? floor : max(floor, low.plus(high.minus(low) / 2))
    }

    /// Whether the range `cut` can start after a packet decoded at `last` (output ticks).
    private static func canFollow(_ cut: RangePlan, after last: Int64) -> Bool {
        guard let video = cut.video, let smart = cut.smart else { return false }
        let shift = video.packetShift
        if smart.reencodesWhole { return (smart.tailStart ?? 0).minus(shift).minus(last).minus(1) >= 0 }
        if smart.hasHead, let headLast = smart.headLastShown { return headDelay(smart, video: video, headLast: headLast, after: last) != nil }
        return smart.firstCopied.dts.minus(video.copiedDecodeLead).minus(shift) > last
    }
}
