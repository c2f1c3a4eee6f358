/// One range of an edit, and only its own timing: the requested range, its video cut (smart split or exact timing
/// included), the window its audio and subtitles are kept from, and where it begins on the output and for how long.
/// Everything alike in every range is the output's (`OutputPlan`).
public struct RangePlan: Sendable, Equatable, Codable {
    public var label: String?
    /// The requested range on the container's µs timeline (origin included).
    public var startMicro: Int64
    public var endMicro: Int64
    /// Where the range begins on the output's timeline and how long it shows there (µs).
    public var outputStartMicro: Int64
    public var durationMicro: Int64
    public var companions: CompanionWindow
    /// The video's cut, in the source stream's ticks (`OutputVideo.timeBase`); nil without video.
    public var video: VideoCut?
    /// A smart range: what is re-encoded and what copied.
    public var smart: SmartCutPlan?
}

/// Where a range's audio and subtitles come from and where they land: kept from `startMicro` to `endMicro`
/// (container µs); the source time `zeroSourceMicro` lands at `zeroOutputMicro` on the output's timeline.
public struct CompanionWindow: Sendable, Equatable, Codable {
    public var startMicro: Int64
    public var endMicro: Int64
    public var zeroSourceMicro: Int64
    /// 0 for a single cut; where the range's own zero lands in a join.
    public var zeroOutputMicro: Int64 = 0

    /// Audio and subtitles follow the video actually shown: from its first frame shown (with an edit list, the packet
    /// that spans it), until it stops presenting; the output's zero is `zeroMicro`.
    init(startMicro: Int64, endMicro: Int64, zeroMicro: Int64) {
        self.startMicro = startMicro
        self.endMicro = endMicro
        zeroSourceMicro = zeroMicro
    }
}
