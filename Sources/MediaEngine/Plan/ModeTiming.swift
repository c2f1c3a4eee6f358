/// A range's video timing in its mode, from its edges: where reading starts, which frame is first shown and
/// where, where the output stops presenting, the edit's length in MP4/MOV, and the notes each mode owes. Pure.
enum ModeTiming {
    static func cut(_ mode: CutMode, video: VideoFacts, edges: RangeEdges, smart: SmartCutPlan?, facts: CutFacts,
                    notices: inout [CutNotice]) -> VideoCut {
        let start = edges.start, end = edges.end
        var cut = VideoCut(keyframe: start.keyframe, frameAtStart: start.frameAtStart, firstShown: start.frameAtStart,
                           lastNeeded: end.lastWantedPacket, lastWanted: end.lastWanted, lastWantedEnd: end.idealEnd,
                           presentedEnd: end.idealEnd, shift: start.frameAtStart, outputZero: start.frameAtStart, editDuration: nil,
                           exact: nil, startTicks: video.startTicks, endTicks: edges.endTicks)
        let timeline = Timeline(video: video, facts: facts)
        switch mode {
        case .copy where facts.container.editLists && !start.startsLate:
            notices += hiddenLeadIn(&cut, edges: edges, timeline: timeline)
        case .copy, .keyframe:
            notices += shownLeadIn(&cut, mode: mode, edges: edges, video: video, facts: facts, timeline: timeline)
        case .exact:
            notices += exact(&cut, edges: edges, video: video, facts: facts)
        case .smart:
            notices += smartTiming(&cut, smart: smart, edges: edges, timeline: timeline)
        }
        return cut
    }

    /// Source ticks of the video as seconds on vtrim's timeline, for notes.
    struct Timeline {
        let video: VideoFacts
        let facts: CutFacts
        func seconds(_ ticks: Int64) -> Double { Micro.seconds(video.micro(ticks).minus(facts.originMicro)) }
        var requestedStartSeconds: Double { Micro.seconds(facts.startMicro.minus(facts.originMicro)) }
    }

    /// A copy into MP4/MOV: the edit list hides the lead-in from the keyframe, and ends at the last frame's end.
    static func hiddenLeadIn(_ cut: inout VideoCut, edges: RangeEdges, timeline: Timeline) -> [CutNotice] {
        let start = edges.start
        cut.editDuration = edges.end.idealEnd.minus(start.frameAtStart)
        cut.writtenEnd = edges.end.contiguousEnd
        guard start.frameAtStart != start.keyframe.pts else { return [] }
        return [.leadInHidden(keyframeSeconds: timeline.seconds(start.keyframe.pts),
                              leadInSeconds: timeline.seconds(start.frameAtStart) - timeline.seconds(start.keyframe.pts),
                              firstFrameSeconds: timeline.seconds(start.frameAtStart))]
    }

    /// Keyframe mode, or a copy where no edit list hides the lead-in: the keyframe is the first frame shown.
    static func shownLeadIn(_ cut: inout VideoCut, mode: CutMode, edges: RangeEdges, video: VideoFacts, facts: CutFacts,
                            timeline: Timeline) -> [CutNotice] {
        let start = edges.start, end = edges.end, container = facts.container
        var notices: [CutNotice] = []
        cut.firstShown = start.keyframe.pts
        if start.keyframe.pts < video.startTicks {
            notices.append(.startsAtKeyframe(keyframeSeconds: timeline.seconds(start.keyframe.pts), requestedSeconds: timeline.requestedStartSeconds,
                                             container: mode == .copy ? container.formatName : nil))
        }
        if container.editLists {
            // MP4 takes negative decode times (the B-frame delay) in its usual edit list.
            cut.shift = start.keyframe.pts
            cut.outputZero = start.keyframe.pts
            cut.editDuration = end.idealEnd.minus(start.keyframe.pts)
            cut.writtenEnd = end.contiguousEnd
            return notices
        }
        // Matroska/WebM store presentation times only: the keyframe is shown at 0 (its B-frame delay would otherwise
        // open the file with a gap players fill with nothing). Elsewhere (MPEG-TS) decode times must not go below 0,
        // so the first frame is shown after that delay.
        let presentationTimesOnly = container.formatName == "matroska" || container.formatName == "webm"
        cut.shift = presentationTimesOnly ? start.keyframe.pts : start.keyframe.dts
        cut.outputZero = cut.shift
        cut.lastNeeded = end.contiguousLast
        cut.presentedEnd = end.contiguousEnd
        if end.framesPastEnd > 0 {
            notices.append(.framesPastEnd(count: end.framesPastEnd, untilSeconds: timeline.seconds(end.contiguousEnd),
                                          container: container.formatName))
        }
        return notices
    }

    /// An exact cut: the whole span of the range's frames (DESIGN.md's ideal cut), from the start of the frame at `start`
    /// to the end of the last frame that begins before `end`, every frame for its own source duration (no sliver at
    /// either end). Timed on the encoder's finer grid, on which every source tick is whole.
    static func exact(_ cut: inout VideoCut, edges: RangeEdges, video: VideoFacts, facts: CutFacts) -> [CutNotice] {
        let start = edges.start
        func fine(_ ticks: Int64) -> Int64 { Rescale.ticks(ticks, from: video.timeBase, to: video.fineTimeBase) }
        // The frame's own end, unless the source's edit list or a truncation stops it earlier.
        var spanEnd = edges.end.idealEnd
        if let shownUntil = video.sourceShownUntil { spanEnd = min(spanEnd, shownUntil) }
        if edges.stopsShort { spanEnd = min(spanEnd, edges.endTicks) }
        let zero = fine(start.frameAtStart)
        cut.exact = ExactTiming(zero: zero, shift: zero, end: fine(spanEnd),
                                fillsLastSlot: video.fineTicksAreSlots && facts.container.storesDecodeTimesOnly)
        cut.outputZero = start.frameAtStart
        cut.shift = cut.outputZero
        cut.presentedEnd = spanEnd
        if facts.container.editLists { cut.editDuration = fine(spanEnd).minus(zero) }
        guard let conversion = video.pixelFormatConversion else { return [] }
        return [.pixelFormatConverted(from: conversion.from, to: conversion.to, encoder: video.exactEncoder)]
    }

    /// A smart cut: its re-encoded parts named; it presents the whole span of its frames, to the last one's end.
    static func smartTiming(_ cut: inout VideoCut, smart: SmartCutPlan?, edges: RangeEdges, timeline: Timeline) -> [CutNotice] {
        var notices: [CutNotice] = []
        if let smart {
            if smart.hasHead { notices.append(.headReencoded(frames: smart.headFrames, untilSeconds: timeline.seconds(smart.firstCopied.pts))) }
            if smart.reencodesWhole {
                notices.append(.rangeReencoded(frames: smart.tailFrames, fromSeconds: timeline.seconds(smart.frameAtStart)))
            } else if let tail = smart.tailStart {
                notices.append(.tailReencoded(frames: smart.tailFrames, fromSeconds: timeline.seconds(tail)))
            }
            cut.presentedEnd = smart.end
        }
        cut.editDuration = cut.presentedEnd.minus(edges.start.frameAtStart)
        return notices
    }
}
