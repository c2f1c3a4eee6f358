/// A video packet as the cut planner sees it: times in ticks of the video stream's time base, on the
/// source's own timestamps, in decode order.
public struct VideoPacket: Sendable, Equatable, Codable, CustomStringConvertible {
    public var pts: Int64
    public var dts: Int64
    public var duration: Int64
    public var isKeyframe: Bool
    /// A keyframe that is a clean start (`CleanStart`): nothing decoded after it refers to anything before
    /// it, except its leading pictures. Every cut starts decoding at one.
    public var isClean: Bool
    /// A clean start that also begins a new coded video sequence (`CleanStart.isSplicePoint`): where a smart
    /// cut's copied frames may follow re-encoded ones.
    public var isSplicePoint: Bool

    /// `isClean` defaults to the keyframe flag (codecs whose flags are taken as they are), `isSplicePoint`
    /// to `isClean`.
    public init(pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool, isClean: Bool? = nil, isSplicePoint: Bool? = nil) {
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.isClean = isClean ?? isKeyframe
        self.isSplicePoint = isSplicePoint ?? isClean ?? isKeyframe
    }

    /// The same packet: its presentation time and keyframe flag identify a packet within a stream (decode
    /// times may be missing and filled in differently by whoever read them).
    func isSame(as other: VideoPacket) -> Bool {
        pts == other.pts && isKeyframe == other.isKeyframe
    }

    public var description: String { "\(isKeyframe ? "K" : "")\(isClean ? "*" : "")\(pts)/\(dts)" }
}
