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

    // In a plan, a flag is written only when set: every range names two packets.
    private enum CodingKeys: String, CodingKey { case pts, dts, duration, isKeyframe, isClean, isSplicePoint }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pts = try container.decode(Int64.self, forKey: .pts)
        dts = try container.decode(Int64.self, forKey: .dts)
        duration = try container.decode(Int64.self, forKey: .duration)
        isKeyframe = try container.decodeIfPresent(Bool.self, forKey: .isKeyframe) ?? false
        isClean = try container.decodeIfPresent(Bool.self, forKey: .isClean) ?? false
        isSplicePoint = try container.decodeIfPresent(Bool.self, forKey: .isSplicePoint) ?? false
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pts, forKey: .pts)
        try container.encode(dts, forKey: .dts)
        try container.encode(duration, forKey: .duration)
        if isKeyframe { try container.encode(true, forKey: .isKeyframe) }
        if isClean { try container.encode(true, forKey: .isClean) }
        if isSplicePoint { try container.encode(true, forKey: .isSplicePoint) }
    }
}
