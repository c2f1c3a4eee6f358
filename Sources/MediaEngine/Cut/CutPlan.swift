/// How a cut starts, decided from the video packets before any byte is written. Pure: all times are
/// ticks of the video stream's time base, on the source's own timestamps.
public struct CutPlan: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Stream copy; in MP4/MOV an edit list hides the lead-in so playback starts at `start`.
        case copy
        /// Stream copy from the keyframe; the lead-in frames are shown (no pre-roll hidden).
        case keyframe
        /// Decode and re-encode the video: first frame = the frame at `start`, last = the one before `end`.
        case exact
        /// Frame-exact like `exact`, but only the partial groups of pictures at the edges are re-encoded;
        /// the rest is copied bit for bit (H.264/HEVC into MP4/MOV; otherwise `exact`, with a warning).
        case smart
    }

    public struct VideoPacket: Sendable, Equatable {
        public var pts: Int64
        public var dts: Int64
        public var duration: Int64
        public var isKeyframe: Bool

        public init(pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool) {
            self.pts = pts
            self.dts = dts
            self.duration = duration
            self.isKeyframe = isKeyframe
        }
    }

    /// The keyframe the output's video starts from.
    public var keyframe: VideoPacket
    /// Ticks subtracted from every timestamp (converted per stream): the output's 0.
    public var shift: Int64
    /// Where presentation starts on the source timeline (ticks): `start` when an edit list hides the
    /// lead-in, the frame at `start` for an exact cut, else the keyframe.
    public var presentedStart: Int64
    /// Whether the keyframe lies after `start` (no keyframe at or before it).
    public var startsAfterRequest: Bool

    /// - Parameters:
    ///   - packets: video packets in decode order, covering every packet whose dts ≤ `start`
    ///     (and, when no keyframe precedes `start`, up to the first keyframe after it).
    ///   - editLists: whether the output container can hide a lead-in (MP4/MOV).
    /// - Returns: nil when the packets hold no keyframe at all.
    public static func make(packets: [VideoPacket], start: Int64, mode: Mode, editLists: Bool) -> CutPlan? {
        let keyframes = packets.filter(\.isKeyframe)
        var startsAfter = false
        let chosen: VideoPacket
        if let before = keyframes.last(where: { $0.pts <= start }) {
            chosen = before
        } else if let after = keyframes.first(where: { $0.pts > start }) {
            chosen = after
            startsAfter = true
        } else {
            return nil
        }
        let frameAtStart = packets.filter { $0.pts <= start && $0.pts >= chosen.pts }.map(\.pts).max() ?? chosen.pts
        switch mode {
        case .copy where editLists && !startsAfter:
            // Timestamps become relative to the frame shown at `start`: the lead-in is negative and the
            // muxer's edit list hides it. Starting the edit on that frame's own time (not mid-frame) makes
            // every player, FFmpeg-based ones included, show it first.
            return CutPlan(keyframe: chosen, shift: frameAtStart, presentedStart: frameAtStart, startsAfterRequest: false)
        case .smart:
            // Copied frames keep their own times and durations, so the output starts on the frame at
            // `start` (re-encoded or copied), like a copy cut's edit list.
            let first = startsAfter ? chosen.pts : frameAtStart
            return CutPlan(keyframe: chosen, shift: first, presentedStart: first, startsAfterRequest: startsAfter)
        case .exact:
            let first = startsAfter ? chosen.pts : frameAtStart
            return CutPlan(keyframe: chosen, shift: startsAfter ? chosen.pts : start, presentedStart: first,
                           startsAfterRequest: startsAfter)
        case .keyframe, .copy:
            // No pre-roll to hide: the keyframe is the first frame shown. MP4 takes negative decode times
            // (B-frame delay) in its usual edit list; other containers get non-negative ones.
            return CutPlan(keyframe: chosen, shift: editLists ? chosen.pts : chosen.dts, presentedStart: chosen.pts,
                           startsAfterRequest: startsAfter)
        }
    }

    /// Seconds of lead-in decoded but not shown (copy with an edit list, exact).
    public func preRollTicks() -> Int64 { max(0, presentedStart - keyframe.pts) }
}

/// Where a stream copy stops: every frame shown before `end`, and the frames they reference, and nothing
/// else. Packets shown at or after `end` are held back; a later packet (in decode order) shown before
/// `end` releases them (they precede it, so they may be its references). Once a packet is decoded at or
/// after `end`, no later one can be shown before it; the held ones that fill a gap before the last frame
/// kept (B-frames) are written, the rest dropped. A cut ending on a GOP boundary so ends exactly there.
/// Shared by the writer (items are packets) and the dry run (items are the packets' times).
struct CopyTail<Item> {
    let end: Int64
    private var held: [(packet: CutPlan.VideoPacket, item: Item)] = []
    private(set) var latestEnd = Int64.min
    private(set) var latestPts = Int64.min
    private(set) var kept = 0

    init(end: Int64) {
        self.end = end
    }

    /// The items to write now, in order; nil when the video is complete (nothing more to offer).
    mutating func offer(_ packet: CutPlan.VideoPacket, _ item: Item) -> [Item]? {
        if kept > 0, packet.dts >= end { return nil }
        if packet.pts >= end {
            held.append((packet, item))
            return []
        }
        let released = held + [(packet, item)]
        held = []
        released.forEach { keep($0.packet) }
        return released.map(\.item)
    }

    /// At the end: the held items that fill a gap before the last frame kept.
    mutating func finish() -> [Item] {
        let fill = held.filter { $0.packet.pts < latestPts }
        held = []
        fill.forEach { keep($0.packet) }
        return fill.map(\.item)
    }

    private mutating func keep(_ packet: CutPlan.VideoPacket) {
        latestEnd = max(latestEnd, packet.pts + max(0, packet.duration))
        latestPts = max(latestPts, packet.pts)
        kept += 1
    }
}
