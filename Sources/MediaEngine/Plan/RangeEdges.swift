/// Where a range starts and ends in its video's packets (`StartEdge`, `EndEdge`): the end moved in where the
/// source's own edit list hides frames or a truncated input stops inside the range. Pure.
struct RangeEdges: Sendable, Equatable {
    var start: StartEdge
    var end: EndEdge
    /// The requested end in the stream's ticks, moved in as above.
    var endTicks: Int64
    /// The input's readable data stops inside the range: the cut ends where it does.
    var stopsShort: Bool

    static func make(_ video: VideoFacts, facts: CutFacts) throws(MediaError) -> RangeEdges {
        guard let start = StartEdge.make(packets: video.startPackets, start: video.startTicks) else {
            throw MediaError(.decodeFailed, path: facts.path, operation: "plan", reason: "no keyframe found in the video to start from")
        }
        // Frames the source's own edit list hides are not shown, so the cut ends before them.
        var endTicks = min(video.endTicks, video.sourceShownUntil ?? .max)
        // A truncated input whose data stops inside the range: the cut ends where the readable data does
        // (no incomplete last frame, no last frame held on to the requested end as if the rest were there).
        let stopsShort = facts.readableEnd.map { facts.endMicro > $0.micro } ?? false
        if stopsShort, let readable = facts.readableEnd {
            endTicks = min(endTicks, Rescale.ticks(readable.micro, from: Rational(1, 1_000_000), to: video.timeBase, roundingDown: true))
        }
        if start.frameAtStart >= endTicks {
            let seconds = Micro.seconds(video.micro(start.keyframe.pts).minus(facts.originMicro))
            throw MediaError(.invalidRange, path: facts.path, operation: "plan",
                             reason: "no video starts in \(Words.seconds(Micro.seconds(facts.startMicro.minus(facts.originMicro))))–\(Words.seconds(Micro.seconds(facts.endMicro.minus(facts.originMicro)))): the first keyframe from there is at \(Words.seconds(seconds))")
        }
        guard let end = EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks,
                                     reachesEndOfStream: video.endReachesEndOfStream)
            ?? EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks, reachesEndOfStream: true) else {
            throw MediaError(.decodeFailed, path: facts.path, operation: "plan", reason: "no frame of the range could be read")
        }
        return RangeEdges(start: start, end: end, endTicks: endTicks, stopsShort: stopsShort)
    }

    /// What the start says: the video starts later than asked, no clean start lies before it, or a clean start lies
    /// far back past unclean keyframes.
    func notices(_ video: VideoFacts, facts: CutFacts) -> [CutNotice] {
        func seconds(_ ticks: Int64) -> Double { Micro.seconds(video.micro(ticks).minus(facts.originMicro)) }
        var notices: [CutNotice] = []
        if start.startsLate {
            notices.append(.startsLate(keyframeSeconds: seconds(start.keyframe.pts),
                                       requestedSeconds: Micro.seconds(facts.startMicro.minus(facts.originMicro))))
        }
        if video.startsUnclean {
            notices.append(.uncleanStart(keyframeSeconds: seconds(start.keyframe.pts)))
        }
        if let unclean = start.latestUnclean, start.uncleanKeyframesPassed > RangePlanner.uncleanKeyframesAllowed {
            notices.append(.cleanStartFar(uncleanSeconds: seconds(unclean.pts), cleanSeconds: seconds(start.keyframe.pts),
                                          keyframesPassed: start.uncleanKeyframesPassed))
        }
        return notices
    }
}
