/// Decides one range from what was read around its edges, in named steps: what a truncated input allows, the
/// refusals of the mode, the edges (`RangeEdges`), smart's split or why not, the mode's timing (`ModeTiming`), the
/// x264 SEI the first copied frame carries, the companion window and the range's sample entry. Pure: a function of
/// `CutFacts`, so `--dry-run` and the real run get the same plan, and tests build the facts by hand. What is alike
/// in every range (streams, encoder, chapters, …) is the edit's to decide (`EditPlanner`), once.
enum RangePlanner {
    /// Flagged keyframes that are not clean starts a cut may pass over silently (two groups of pictures).
    static let uncleanKeyframesAllowed = 2

    /// `joins`: the range is one of several joined into one output (a smart range with nothing to copy is then
    /// re-encoded whole by the edges' encoder, so the rest of the join stays smart).
    static func plan(_ facts: CutFacts, joins: Bool = false) throws(MediaError) -> RangeDraft {
        var notices = try truncation(facts)
        guard let video = facts.video else { return audioOnly(facts, notices: notices) }
        try VideoRefusals.check(video, facts: facts, mode: facts.requestedMode)
        if !video.orientation.isUpright, !facts.container.editLists { notices.append(.turnedUpright(container: facts.container.formatName)) }
        let edges = try RangeEdges.make(video, facts: facts)
        notices += edges.notices(video, facts: facts)
        var mode = facts.requestedMode
        var (smart, fallback) = mode == .smart ? smartSplit(video, edges: edges, joins: joins) : (nil, nil)
        if !joins, let plain = smart, let through = lastGroupCopied(video, plain, edges: edges, facts: facts) { smart = through }
        if let fallback {
            mode = .exact
            notices.append(.smartFallback(fallback))
        }
        var cut = ModeTiming.cut(mode, video: video, edges: edges, smart: smart, facts: facts, notices: &notices)
        if edges.start.leadingPictures > 0, mode != .exact {
            notices.append(.leadingFramesLeftOut(count: edges.start.leadingPictures))
        }
        if let build = carriesEncoderInfo(video, mode: mode, keyframe: edges.start.keyframe, smart: smart) {
            cut.carriesEncoderInfo = true
            notices.append(.encoderInfoCarried(build: build))
        }
        if let notice = dolbyVisionNotice(video, mode: mode, container: facts.container) { notices.append(notice) }
        let entry = SampleEntryPlan.forRange(video, mode: mode, cut: cut, smart: smart, facts: facts)
        if let notice = entry?.1 { notices.append(notice) }
        let range = RangePlan(label: nil, startMicro: facts.startMicro, endMicro: facts.endMicro, outputStartMicro: 0, durationMicro: 0,
                              companions: companions(video, cut: cut),
                              video: cut, smart: smart)
        return RangeDraft(range: range, mode: mode, smartFallback: fallback, sampleEntry: entry?.0,
                          smartHeader: smart == nil ? nil : video.smartHeader, notices: notices)
    }

    /// A truncated input: a range that starts where nothing can be read would write an empty file, refused naming
    /// why; otherwise a note on what the range loses, or that it lies before the damage.
    static func truncation(_ facts: CutFacts) throws(MediaError) -> [CutNotice] {
        guard let readable = facts.readableEnd else { return [] }
        let seconds = Micro.seconds(readable.micro.minus(facts.originMicro))
        if facts.startMicro >= readable.micro {
            throw MediaError(.invalidRange, path: facts.path, operation: "range",
                             reason: "the range starts at \(Words.seconds(Micro.seconds(facts.startMicro.minus(facts.originMicro)))), past what can be read: the file is truncated (\(readable.why)) and about \(Words.seconds(seconds)) of it can be read")
        }
        return [facts.endMicro > readable.micro
            ? .pastReadableEnd(endSeconds: Micro.seconds(facts.endMicro.minus(facts.originMicro)), readableSeconds: seconds, why: readable.why)
            : .truncatedAfterRange(readableSeconds: seconds)]
    }

    /// Without video the range is its audio, copied from `start` to `end` (exact and smart have nothing to re-encode).
    static func audioOnly(_ facts: CutFacts, notices: [CutNotice]) -> RangeDraft {
        var notices = notices
        var mode = facts.requestedMode
        if mode == .exact || mode == .smart {
            mode = .copy
            notices.append(.audioOnly)
        }
        let window = CompanionWindow(startMicro: facts.startMicro, endMicro: facts.endMicro, zeroMicro: facts.startMicro)
        let range = RangePlan(label: nil, startMicro: facts.startMicro, endMicro: facts.endMicro, outputStartMicro: 0, durationMicro: 0,
                              companions: window, video: nil, smart: nil)
        return RangeDraft(range: range, mode: mode, smartFallback: nil, sampleEntry: nil, smartHeader: nil, notices: notices)
    }

    /// Smart's split of the range (head, copied groups, tail), or why it falls back to exact. A join's range with no
    /// whole group to copy is re-encoded whole with the edges' encoder. Planned to the span's end (the last wanted frame's
    /// end), so a clean start there ends the copy with no tail.
    static func smartSplit(_ video: VideoFacts, edges: RangeEdges, joins: Bool) -> (SmartCutPlan?, SmartFallback?) {
        if let refusal = video.smartRefusal ?? video.trialSkippedFor { return (nil, refusal) }
        switch SmartCutPlan.make(start: video.startPackets, end: video.endPackets, frameAtStart: edges.start.frameAtStart,
                                 end: edges.end.idealEnd, reachesEndOfStream: video.endReachesEndOfStream) {
        case let .success(made):
            return (made, nil)
        case let .failure(reason) where joins && (reason == .nothingToCopy || reason == .noCleanKeyframe):
            return (SmartCutPlan.whole(keyframe: edges.start.keyframe, frameAtStart: edges.start.frameAtStart,
                                       end: edges.end.idealEnd, packets: video.startPackets + video.endPackets), nil)
        case let .failure(reason):
            return (nil, reason)
        }
    }

    /// A single range whose last group needs nothing decoded after the end copies it too, with no tail to re-encode —
    /// where that keeps the sample entry the plain split gets (a parameter set changing in the last group stays in the
    /// re-encoded tail, so the entry stays out of band). Not MPEG-2, whose copied groups are closed and renumbered at
    /// the head only; not a join's ranges, whose seams are planned on their tails.
    static func lastGroupCopied(_ video: VideoFacts, _ plain: SmartCutPlan, edges: RangeEdges, facts: CutFacts) -> SmartCutPlan? {
        guard plain.hasTail, !plain.reencodesWhole, video.codec != "mpeg2video",
              case let .success(through) = SmartCutPlan.make(start: video.startPackets, end: video.endPackets, frameAtStart: edges.start.frameAtStart,
                                                             end: edges.end.idealEnd, reachesEndOfStream: video.endReachesEndOfStream,
                                                             copiesLastGroup: true), through.copiesThrough else { return nil }
        if let sets = video.parameterSets, let carriage = facts.container.parameterSetCarriage {
            func entry(_ smart: SmartCutPlan) -> (SampleEntryPlan, CutNotice?) {
                SampleEntryPlan.choose(sets: sets.restricted(startDts: smart.firstCopied.dts, endDts: smart.copiesThrough ? smart.copyEnd.dts.plus(1) : smart.copyEnd.dts),
                                       mode: .smart, requested: facts.sampleEntry, trial: video.smartTrial, carriage: carriage)
            }
            guard entry(through) == entry(plain) else { return nil }
        }
        return through
    }

    /// Re-encoded frames that are not the source's pictures carry none of Dolby Vision's metadata, and MPEG-TS and AVI
    /// cannot say a stream is Dolby Vision: the output is then its HDR10/HLG/SDR base layer, said so.
    static func dolbyVisionNotice(_ video: VideoFacts, mode: CutMode, container: ContainerFacts) -> CutNotice? {
        guard let vision = video.dolbyVision else { return nil }
        let compatible = vision.compatibility != 0 && !vision.enhancementLayerPresent
        if !vision.isKept(mode: mode, codec: video.codec, reencodesAlike: video.reencodesAlike(mode)) {
            return .dolbyVisionDropped(profile: vision.name, smart: mode == .smart, compatible: compatible)
        }
        guard container.signalsDolbyVision else {
            return .dolbyVisionDropped(profile: vision.name, smart: mode == .smart, compatible: compatible, unsignalledIn: container.formatName)
        }
        return nil
    }

    /// Why a single range cannot be cut smartly whatever the edges' encoder, from its packets alone: no clean start
    /// inside it, or nothing whole to copy — reasons a shorter end (a truncated input) cannot undo. The survey then runs no
    /// trial of the encoder. nil where the split needs the trial to decide.
    static func fallbackWithoutTrial(_ video: VideoFacts) -> SmartFallback? {
        guard let start = StartEdge.make(packets: video.startPackets, start: video.startTicks) else { return nil }
        let endTicks = min(video.endTicks, video.sourceShownUntil ?? .max)
        guard start.frameAtStart < endTicks,
              let end = EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks, reachesEndOfStream: video.endReachesEndOfStream)
                ?? EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks, reachesEndOfStream: true) else { return nil }
        switch SmartCutPlan.make(start: video.startPackets, end: video.endPackets, frameAtStart: start.frameAtStart, end: end.idealEnd,
                                 reachesEndOfStream: video.endReachesEndOfStream) {
        case .failure(let reason) where reason == .noCleanKeyframe || reason == .nothingToCopy: return reason
        default: return nil
        }
    }

    /// The x264 build whose version SEI the first copied access unit carries, if it must: copied frames from an old
    /// x264 decode right only with it, and only the source's first access unit has it (after a re-encoded head,
    /// whose encoder names its own build, always).
    static func carriesEncoderInfo(_ video: VideoFacts, mode: CutMode, keyframe: VideoPacket, smart: SmartCutPlan?) -> Int? {
        guard video.beginning.mustCarry, let build = video.beginning.x264Build else { return nil }
        let firstCopied: VideoPacket? = mode == .copy || mode == .keyframe ? keyframe : mode == .smart ? smart?.firstCopied : nil
        guard let firstCopied, smart?.hasHead == true || firstCopied.dts != video.beginning.firstDecodeTicks else { return nil }
        return build
    }

    /// Audio and subtitles follow the video actually shown: with an edit list from the packet that spans the first
    /// frame (the edit hides the rest of it); otherwise from the first packet at or after it. Every mode's window is
    /// its video's span, so sound stays with its picture.
    static func companions(_ video: VideoFacts, cut: VideoCut) -> CompanionWindow {
        CompanionWindow(startMicro: video.micro(cut.firstShown), endMicro: video.micro(cut.presentedEnd),
                        zeroMicro: video.micro(cut.outputZero))
    }
}

/// One range as `RangePlanner` decides it, before the edit puts it on the output: its own timing (`range`, not yet
/// placed) and what it asks of the output, which `EditPlanner` reconciles across the ranges and decides once.
struct RangeDraft: Sendable, Equatable {
    var range: RangePlan
    var mode: CutMode
    var smartFallback: SmartFallback?
    /// The sample entry the range's own parameter sets call for (a join's must all be one).
    var sampleEntry: SampleEntryPlan?
    /// A smart range of a frame-spliced codec: the stream header its keyframe states (a join's must all be one).
    var smartHeader: StreamHeader?
    var notices: [CutNotice]
}

/// What the mode asks of the container and the decoder; refusals are errors, before anything else is decided.
enum VideoRefusals {
    static func check(_ video: VideoFacts, facts: CutFacts, mode: CutMode) throws(MediaError) {
        let reencodes = mode == .exact || mode == .smart
        let container = facts.container
        if reencodes, video.width * video.height > Limits.maximumPixels {
            throw MediaError(.tooLarge, path: facts.path, operation: "picture size",
                             reason: "its picture is \(video.width)x\(video.height), larger than vtrim decodes (\(Limits.maximumSideText))",
                             remedy: .copyMode)
        }
        if reencodes, !video.decoderAvailable {
            throw MediaError(.unsupportedCodec, path: facts.path, operation: "avcodec_find_decoder",
                             reason: "this FFmpeg cannot decode the video (\(video.codec)), so it cannot be cut exactly", remedy: .copyMode)
        }
        let held = facts.streams.first { $0.index == video.index }?.containerCanHold ?? false
        if mode != .exact, !held {
            throw MediaError(.unsupportedCodec, path: facts.path, operation: "avformat_query_codec",
                             reason: "\(container.formatName) cannot hold \(video.codec) video\(mode == .smart ? "" : " without re-encoding")",
                             remedy: .keepContainerOrExact)
        }
        // Packed B-frames copied into MP4/MOV would play broken everywhere but FFmpeg (whose decoder unpacks them):
        // refused, with the containers that hold them and the mode that re-encodes them.
        if video.packedFrames, container.editLists, !reencodes {
            throw MediaError(.unsupportedContainer, path: facts.path, operation: "packed B-frames",
                             reason: "the MPEG-4 video packs B-frames two to a packet (DivX/Xvid), which \(container.formatName) players cannot show in a stream copy",
                             remedy: .keepContainerOrExact)
        }
        if !video.orientation.isUpright, !container.editLists, !reencodes {
            throw MediaError(.unsupportedContainer, path: facts.path, operation: "orientation",
                             reason: "\(container.formatName) cannot carry the video's orientation (rotated \(video.orientation.rotationDegrees)°\(video.orientation.mirrored ? ", mirrored" : "")) in a stream copy",
                             remedy: .keepContainerOrExact)
        }
    }
}
