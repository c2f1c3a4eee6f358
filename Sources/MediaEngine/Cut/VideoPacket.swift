/// A video packet as the cut planner sees it: times in ticks of the video stream's time base, on the
/// source's own timestamps, in decode order.
public struct VideoPacket: Sendable, Equatable, CustomStringConvertible {
    public var pts: Int64
    public var dts: Int64
    public var duration: Int64
    public var isKeyframe: Bool
    /// A clean random-access point by its NAL type (IDR/BLA, HEVC CRA): nothing decoded after it refers
    /// to anything before it, except its leading pictures. Only smart cuts need to know.
    public var isClean: Bool

    public init(pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool, isClean: Bool = false) {
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.isClean = isClean
    }

    /// The same packet: its presentation time and keyframe flag identify a packet within a stream (decode
    /// times may be missing and filled in differently by whoever read them).
    func isSame(as other: VideoPacket) -> Bool {
        pts == other.pts && isKeyframe == other.isKeyframe
    }

    public var description: String { "\(isKeyframe ? "K" : "")\(isClean ? "*" : "")\(pts)/\(dts)" }
}
