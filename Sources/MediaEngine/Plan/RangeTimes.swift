/// What a range of a plan shows, in seconds on the source's presentation timeline (0 = the container's start):
/// what reports say of it, read off the plan (`EditPlan.times(of:)`).
public struct RangeTimes: Sendable, Equatable {
    /// Where the range's first frame and its end lie on the source's timeline.
    public var presentedStartSeconds: Double
    public var presentedEndSeconds: Double
    /// The keyframe reading starts from, and how much is decoded before the first frame shown.
    public var keyframeSeconds: Double?
    public var preRollSeconds: Double
    /// An output time of this range (before a join moves it) plus this is the source time.
    public var sourceOffsetSeconds: Double
    /// A smart range's parts.
    public var smart: SmartCutSummary?
}

extension EditPlan {
    /// `range`'s times on the source's timeline.
    public func times(of range: RangePlan) -> RangeTimes {
        let seconds = output.seconds(micro:)
        guard let cut = range.video, let video = output.video else {
            return RangeTimes(presentedStartSeconds: seconds(range.startMicro), presentedEndSeconds: seconds(range.endMicro),
                              keyframeSeconds: nil, preRollSeconds: 0, sourceOffsetSeconds: seconds(range.companions.zeroSourceMicro),
                              smart: nil)
        }
        let start = seconds(video.micro(cut.firstShown))
        var end = seconds(video.micro(cut.presentedEnd))
        if let exact = cut.exact, let grid = video.exactTimeBase {
            end = seconds(Rescale.ticks(exact.end, from: grid, to: Rational(1, 1_000_000)))
        }
        let keyframe = seconds(video.micro(cut.keyframe.pts))
        return RangeTimes(presentedStartSeconds: start, presentedEndSeconds: end, keyframeSeconds: keyframe,
                          preRollSeconds: output.mode == .keyframe ? 0 : max(0, start - keyframe),
                          sourceOffsetSeconds: Micro.seconds(range.companions.zeroSourceMicro.minus(output.originMicro)),
                          smart: smartSummary(range, cut: cut, video: video))
    }

    private func smartSummary(_ range: RangePlan, cut: VideoCut, video: OutputVideo) -> SmartCutSummary? {
        guard let smart = range.smart else { return nil }
        let end = output.seconds(micro: range.endMicro)
        func time(_ ticks: Int64) -> Double { min(output.seconds(micro: video.micro(ticks)), end) }
        func span(_ from: Double, _ to: Double) -> ClosedRange<Double> { min(from, to)...max(from, to) }
        let copiedUntil = smart.tailStart ?? (smart.copiesToEnd || smart.copiesThrough ? cut.presentedEnd : smart.copyEnd.pts)
        return SmartCutSummary(
            headSeconds: smart.hasHead ? span(time(smart.frameAtStart), time(smart.firstCopied.pts)) : nil,
            copiedSeconds: span(time(smart.firstCopied.pts), time(copiedUntil)),
            tailSeconds: smart.tailStart.map { span(time($0), time(smart.end)) },
            sampleEntry: output.sampleEntry?.type)
    }
}
