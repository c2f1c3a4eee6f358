/// What a smart cut re-encodes and copies, in seconds on the source's timeline (for reports).
public struct SmartCutSummary: Sendable, Equatable {
    public var headSeconds: ClosedRange<Double>?
    public var copiedSeconds: ClosedRange<Double>
    public var tailSeconds: ClosedRange<Double>?
    /// avc1/hvc1/avc3/hev1 (Matroska and MPEG-TS: the record's kind); nil for VP8, VP9 and AV1, which have none.
    public var sampleEntry: String?
}
