/// Decides a cut from what was read around its edges: the mode that runs, where reading starts, what is
/// written and shown, which streams are kept, and every plan-time note and warning. Pure: a function of
/// `CutFacts`, so `--dry-run` and the real run get the same plan, and tests build the facts by hand.
enum CutPlanner {
    /// Flagged keyframes that are not clean starts a cut may pass over silently (two groups of pictures).
    static let uncleanKeyframesAllowed = 2

    public static func plan(_ facts: CutFacts) throws(MediaError) -> CutPlan {
        var plan = try planCut(facts)
        // Phone and camera metadata the muxer cannot write is copied into MP4/MOV outputs.
        if facts.container.editLists { plan.movieMetadata = facts.movieMetadata }
        planChapters(&plan, facts: facts)
        planTimecode(&plan, facts: facts)
        return plan
    }

    /// The timecode of the first kept frame: the source's start timecode (at the movie's 0) counted on to it.
    private static func planTimecode(_ plan: inout CutPlan, facts: CutFacts) {
        guard let source = facts.startTimecode, facts.container.keepsTimecode else { return }
        guard let text = source.advanced(bySeconds: plan.presentedStartSeconds) else { return }
        plan.timecode = text
        plan.notices.append(.timecodeStarts(text))
    }

    /// The output's chapters: the source's clipped to the part the output shows (from output 0 to its end),
    /// one for the whole range (`ranges`), or none; a container that cannot hold them gets a note.
    private static func planChapters(_ plan: inout CutPlan, facts: CutFacts) {
        let windowStart = plan.companionsZeroSourceMicro, windowEnd = plan.companionsEndMicro
        let chapters: [Chapter]
        switch facts.chapterPolicy {
        case .none: chapters = []
        case .keep: chapters = Chapters.clip(facts.chapters, windowStartMicro: windowStart, windowEndMicro: windowEnd, outputStartMicro: 0)
        case .ranges: chapters = windowEnd > windowStart ? [Chapter(startMicro: 0, endMicro: windowEnd.minus(windowStart), title: "Part 1")] : []
        }
        guard !chapters.isEmpty else { return }
        if facts.container.holdsChapters {
            plan.chapters = chapters
        } else {
            plan.notices.append(.chaptersLeftOut(count: chapters.count, container: facts.container.formatName))
        }
    }

    private static func planCut(_ facts: CutFacts) throws(MediaError) -> CutPlan {
        var mode = facts.requestedMode
        var notices: [CutNotice] = []
        let path = facts.path
        let container = facts.container
        if let readable = facts.readableEnd {
            let seconds = Micro.seconds(readable.micro.minus(facts.originMicro))
            // A range that starts where nothing can be read would write an empty file: refused, naming why.
            if facts.startMicro >= readable.micro {
                throw MediaError(.invalidRange, path: path, operation: "range",
                                 reason: "the range starts at \(Words.seconds(Micro.seconds(facts.startMicro.minus(facts.originMicro)))), past what can be read: the file is truncated (\(readable.why)) and about \(Words.seconds(seconds)) of it can be read")
            }
            notices.append(facts.endMicro > readable.micro
                ? .pastReadableEnd(endSeconds: Micro.seconds(facts.endMicro.minus(facts.originMicro)), readableSeconds: seconds, why: readable.why)
                : .truncatedAfterRange(readableSeconds: seconds))
        }

        // Streams: the main video, audio the container holds, subtitles it holds; the rest with a reason.
        var streams: [KeptStream] = []
        for stream in facts.streams {
            switch stream.kind {
            case .video where stream.index == facts.video?.index:
                streams.append(KeptStream(index: stream.index, kind: .video, codec: stream.codec, splitsAudioFrames: false))
            case .video:
                notices.append(.streamLeftOut(index: stream.index, reason: stream.isAttachedPicture ? .coverArt : .secondVideo,
                                              codec: stream.codec, tag: nil))
            case .audio where stream.containerCanHold:
                let split = stream.isAMRNarrowband && container.editLists
                var kept = KeptStream(index: stream.index, kind: .audio, codec: stream.codec, splitsAudioFrames: split)
                kept.exactAudioEncoder = stream.exactAudioEncoder
                streams.append(kept)
                if split { notices.append(.audioPacketsSplit(codec: stream.codec)) }
            case .audio:
                notices.append(.streamDropped(index: stream.index, codec: stream.codec, container: container.formatName))
            case .subtitle where stream.containerCanHold:
                streams.append(KeptStream(index: stream.index, kind: .subtitle, codec: stream.codec, splitsAudioFrames: false))
            case .subtitle where stream.convertsTo != nil:
                var kept = KeptStream(index: stream.index, kind: .subtitle, codec: stream.codec, splitsAudioFrames: false)
                kept.convertsTo = stream.convertsTo
                streams.append(kept)
                notices.append(.subtitlesConverted(index: stream.index, from: stream.codec, to: stream.convertsTo ?? ""))
            case .subtitle:
                notices.append(.streamLeftOut(index: stream.index, reason: .subtitlesUnsupported, codec: stream.codec, tag: nil))
            case .data where stream.isChapterTrack && container.holdsChapters && facts.chapterPolicy != .none:
                break  // Its chapters are the file's: written as the output's own chapters (`planChapters`).
            case .data where stream.tag == "tmcd" && facts.startTimecode != nil && container.keepsTimecode:
                break  // Its start is the file's timecode: written afresh from the first kept frame (`planTimecode`).
            case .data where stream.tag == "gpmd" && container.editLists:
                // GoPro telemetry: its samples in the range, retimed like cues (FFmpeg's MP4/MOV muxer writes gpmd).
                streams.append(KeptStream(index: stream.index, kind: .data, codec: stream.codec, splitsAudioFrames: false))
                notices.append(.telemetryKept(index: stream.index))
            case .data:
                notices.append(.streamLeftOut(index: stream.index, reason: stream.isChapterTrack ? .chapterTrack : .dataTrack,
                                              codec: stream.codec, tag: stream.tag))
            case .other:
                notices.append(.streamLeftOut(index: stream.index, reason: .otherTrack, codec: stream.codec, tag: stream.tag))
            }
        }
        guard streams.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError(.noVideo, path: path, operation: "streams",
                             reason: "has no video or audio stream to cut" + (streams.isEmpty ? "" : " (subtitles alone cannot be cut)"))
        }

        guard let video = facts.video else {
            if mode == .exact || mode == .smart {
                mode = .copy
                notices.append(.audioOnly)
            }
            return CutPlan(requestedMode: facts.requestedMode, mode: mode, video: nil, smart: nil, smartFallback: nil, sampleEntry: nil,
                           streams: streams, notices: notices, container: container, encoder: nil, threads: facts.threads,
                           crf: facts.crf, preset: facts.preset, faststart: facts.faststart, startMicro: facts.startMicro,
                           endMicro: facts.endMicro, originMicro: facts.originMicro,
                           companionsStartMicro: facts.startMicro, companionsEndMicro: facts.endMicro,
                           companionsZeroSourceMicro: facts.startMicro)
        }

        try checkVideo(video, facts: facts, mode: mode)
        // Packed B-frames copied into MP4/MOV would play broken everywhere but FFmpeg (whose decoder unpacks
        // them): refused, with the containers that hold them and the mode that re-encodes them.
        if video.packedFrames, container.editLists, mode == .copy || mode == .keyframe {
            throw MediaError(.unsupportedContainer, path: path, operation: "packed B-frames",
                             reason: "the MPEG-4 video packs B-frames two to a packet (DivX/Xvid), which \(container.formatName) players cannot show in a stream copy",
                             remedy: .keepContainerOrExact)
        }
        if !video.orientation.isUpright, !container.editLists {
            guard mode == .exact || mode == .smart else {
                throw MediaError(.unsupportedContainer, path: path, operation: "orientation",
                                 reason: "\(container.formatName) cannot carry the video's orientation (rotated \(video.orientation.rotationDegrees)°\(video.orientation.mirrored ? ", mirrored" : "")) in a stream copy",
                                 remedy: .keepContainerOrExact)
            }
            notices.append(.turnedUpright(container: container.formatName))
        }

        // The start, from the packets around it.
        guard let start = StartEdge.make(packets: video.startPackets, start: video.startTicks) else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "no keyframe found in the video to start from")
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
            throw MediaError(.invalidRange, path: path, operation: "plan",
                             reason: "no video starts in \(Words.seconds(Micro.seconds(facts.startMicro.minus(facts.originMicro))))–\(Words.seconds(Micro.seconds(facts.endMicro.minus(facts.originMicro)))): the first keyframe from there is at \(Words.seconds(seconds))")
        }
        guard let end = EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks,
                                     reachesEndOfStream: video.endReachesEndOfStream)
            ?? EndEdge.make(packets: video.endPackets, firstWanted: start.frameAtStart, end: endTicks, reachesEndOfStream: true) else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "no frame of the range could be read")
        }
        func seconds(_ ticks: Int64) -> Double { Micro.seconds(video.micro(ticks).minus(facts.originMicro)) }
        let requestedStartSeconds = Micro.seconds(facts.startMicro.minus(facts.originMicro))
        if start.startsLate {
            notices.append(.startsLate(keyframeSeconds: seconds(start.keyframe.pts), requestedSeconds: requestedStartSeconds))
        }
        if video.startsUnclean {
            notices.append(.uncleanStart(keyframeSeconds: seconds(start.keyframe.pts)))
        }
        if let unclean = start.latestUnclean, start.uncleanKeyframesPassed > Self.uncleanKeyframesAllowed {
            notices.append(.cleanStartFar(uncleanSeconds: seconds(unclean.pts), cleanSeconds: seconds(start.keyframe.pts),
                                          keyframesPassed: start.uncleanKeyframesPassed))
        }

        // Smart, or why not.
        var smart: SmartCutPlan?
        var fallback: SmartFallback?
        if mode == .smart {
            if let refusal = video.smartRefusal {
                fallback = refusal
            } else {
                switch SmartCutPlan.make(start: video.startPackets, end: video.endPackets, frameAtStart: start.frameAtStart,
                                         end: endTicks, reachesEndOfStream: video.endReachesEndOfStream) {
                case let .success(made): smart = made
                case let .failure(reason) where facts.joinsRanges && (reason == .nothingToCopy || reason == .noCleanKeyframe):
                    // One range of a join: re-encoded whole with the edges' encoder; the others stay smart.
                    // Up to `end`, or the last frame's end where the stream ends first.
                    smart = SmartCutPlan.whole(keyframe: start.keyframe, frameAtStart: start.frameAtStart, end: min(endTicks, end.idealEnd),
                                               packets: video.startPackets + video.endPackets)
                case let .failure(reason): fallback = reason
                }
            }
            if let fallback {
                mode = .exact
                notices.append(.smartFallback(fallback))
            }
        }

        var cut = VideoCut(streamIndex: video.index, timeBase: video.timeBase, codec: video.codec, keyframe: start.keyframe,
                           frameAtStart: start.frameAtStart, firstShown: start.frameAtStart, lastNeeded: end.lastWantedPacket,
                           lastWanted: end.lastWanted, lastWantedEnd: end.idealEnd, presentedEnd: end.idealEnd, shift: start.frameAtStart,
                           outputZero: start.frameAtStart, editDuration: nil, editTimeBase: video.timeBase, exact: nil,
                           startTicks: video.startTicks, endTicks: endTicks, leadingLeftOut: start.leadingPictures,
                           sourceHasBFrames: video.endPackets.contains { $0.pts != $0.dts })
        var encoder: String?
        switch mode {
        case .copy where container.editLists && !start.startsLate:
            if start.frameAtStart != start.keyframe.pts {
                notices.append(.leadInHidden(keyframeSeconds: seconds(start.keyframe.pts),
                                             leadInSeconds: seconds(start.frameAtStart) - seconds(start.keyframe.pts),
                                             firstFrameSeconds: seconds(start.frameAtStart)))
            }
            cut.editDuration = end.idealEnd.minus(start.frameAtStart)
            cut.writtenEnd = end.contiguousEnd
        case .copy, .keyframe:
            // The lead-in is shown: the keyframe is the first frame.
            cut.firstShown = start.keyframe.pts
            if start.keyframe.pts < video.startTicks {
                notices.append(.startsAtKeyframe(keyframeSeconds: seconds(start.keyframe.pts), requestedSeconds: requestedStartSeconds,
                                                 container: mode == .copy ? container.formatName : nil))
            }
            if container.editLists {
                // MP4 takes negative decode times (the B-frame delay) in its usual edit list.
                cut.shift = start.keyframe.pts
                cut.outputZero = start.keyframe.pts
                cut.editDuration = end.idealEnd.minus(start.keyframe.pts)
                cut.writtenEnd = end.contiguousEnd
            } else {
                // Matroska/WebM store presentation times only: the keyframe is shown at 0 (its B-frame delay
                // would otherwise open the file with a gap players fill with nothing). Elsewhere (MPEG-TS)
                // decode times must not go below 0, so the first frame is shown after that delay.
                let presentationTimesOnly = container.formatName == "matroska" || container.formatName == "webm"
                cut.shift = presentationTimesOnly ? start.keyframe.pts : start.keyframe.dts
                cut.outputZero = cut.shift
                cut.lastNeeded = end.contiguousLast
                cut.presentedEnd = end.contiguousEnd
                if end.framesPastEnd > 0 {
                    notices.append(.framesPastEnd(count: end.framesPastEnd, untilSeconds: seconds(end.contiguousEnd),
                                                  container: container.formatName))
                }
            }
        case .exact:
            encoder = video.exactEncoder
            if let conversion = video.pixelFormatConversion {
                notices.append(.pixelFormatConverted(from: conversion.from, to: conversion.to, encoder: video.exactEncoder))
            }
            // The first frame is the frame at `start`, from output time 0. When `start` falls late in it, the
            // frame is still shown whole rather than as a sliver: up to half of the last frame's time before
            // `end` is taken for it, and the frames between keep their own durations. The output lasts end − start.
            // On the encoder's finer grid, so a coarse source time base does not round the range.
            func fine(_ ticks: Int64) -> Int64 { Rescale.ticks(ticks, from: video.timeBase, to: video.fineTimeBase) }
            var fineEnd = video.sourceShownUntil.map { min(video.fineEndTicks, fine($0)) } ?? video.fineEndTicks
            if stopsShort { fineEnd = min(fineEnd, fine(endTicks)) }
            let zero = start.startsLate ? fine(start.frameAtStart) : video.fineStartTicks
            let gap = max(0, zero.minus(fine(start.frameAtStart)))
            let lastSlack = max(0, fineEnd.minus(fine(end.lastWanted)))
            let whole = min(gap, lastSlack / 2)
            cut.exact = ExactTiming(timeBase: video.fineTimeBase, zero: zero, shift: zero.minus(whole), end: fineEnd,
                                    fillsLastSlot: video.fineTicksAreSlots && container.storesDecodeTimesOnly)
            cut.outputZero = start.startsLate ? start.frameAtStart : video.startTicks
            cut.shift = cut.outputZero
            cut.presentedEnd = endTicks
            if container.editLists {
                cut.editDuration = fineEnd.minus(zero)
                cut.editTimeBase = video.fineTimeBase
            }
        case .smart:
            // The edges' encoder (MPEG-2's mpeg2video, where an exact cut would use libx264).
            encoder = video.smartMatch?.encoder ?? video.exactEncoder
            if let smart {
                if smart.hasHead { notices.append(.headReencoded(frames: smart.headFrames, untilSeconds: seconds(smart.firstCopied.pts))) }
                if smart.reencodesWhole {
                    notices.append(.rangeReencoded(frames: smart.tailFrames, fromSeconds: seconds(smart.frameAtStart)))
                } else if let tail = smart.tailStart {
                    notices.append(.tailReencoded(frames: smart.tailFrames, fromSeconds: seconds(tail)))
                }
                // Copied to the stream's end, or re-encoded whole up to it: until the last frame's end.
                cut.presentedEnd = smart.copiesToEnd ? end.idealEnd : smart.reencodesWhole ? smart.end : endTicks
            }
            cut.editDuration = cut.presentedEnd.minus(start.frameAtStart)
        }
        if start.leadingPictures > 0, mode != .exact {
            notices.append(.leadingFramesLeftOut(count: start.leadingPictures))
        }
        // Copied frames from an old x264 decode right only with its version SEI, which only the source's
        // first access unit has: carried to the first copied one (after a re-encoded head, whose encoder
        // names its own build, always).
        cut.beginning = video.beginning
        cut.packedFrames = video.packedFrames
        cut.decodeDelayFrames = video.decodeDelayFrames
        if video.beginning.mustCarry, let build = video.beginning.x264Build {
            let firstCopied: VideoPacket? = mode == .copy || mode == .keyframe ? start.keyframe : mode == .smart ? smart?.firstCopied : nil
            if let firstCopied, smart?.hasHead == true || firstCopied.dts != video.beginning.firstDecodeTicks {
                cut.carriesEncoderInfo = true
                notices.append(.encoderInfoCarried(build: build))
            }
        }

        // Audio and subtitles follow the video actually shown: with an edit list from the packet that spans
        // the first frame (the edit hides the rest of it); otherwise from the first packet at or after it.
        let exactFromStart = mode == .exact && !start.startsLate
        let companionsStart = exactFromStart ? facts.startMicro : video.micro(cut.firstShown)
        let companionsShift = exactFromStart ? facts.startMicro : video.micro(cut.outputZero)
        if container.editLists, video.hasDolbyVision { notices.append(.dolbyVisionDropped(smart: mode == .smart)) }
        // H.264/HEVC into MP4/MOV, and smart cuts into Matroska and MPEG-TS: where the parameter sets go.
        var sampleEntry: SampleEntryPlan?
        if let carriage = container.parameterSetCarriage, container.editLists || mode == .smart {
            let choice = mode == .exact ? SampleEntryPlan.exact(encoder: encoder, requested: facts.sampleEntry)
                : video.parameterSets.map { sets in
                    // The sets the copied samples see: from the first copied to the last (smart: K1 up to K2).
                    let range = smart.map { sets.restricted(startDts: $0.firstCopied.dts, endDts: $0.copiesToEnd ? nil : $0.copyEnd.dts) }
                        ?? sets.restricted(startDts: cut.keyframe.dts, endDts: cut.lastNeeded.dts.plus(1))
                    return SampleEntryPlan.choose(sets: range, mode: mode, requested: facts.sampleEntry, trial: video.smartTrial,
                                                  carriage: carriage)
                }
            sampleEntry = choice?.0
            if let notice = choice?.1 { notices.append(notice) }
        }
        cut.reencoding = reencoding(mode: mode, video: video, facts: facts, smart: smart, sampleEntry: sampleEntry)
        var plan = CutPlan(requestedMode: facts.requestedMode, mode: mode, video: cut, smart: smart, smartFallback: fallback,
                       sampleEntry: sampleEntry, streams: streams, notices: notices, container: container, encoder: encoder, threads: facts.threads,
                       crf: facts.crf, preset: facts.preset, faststart: facts.faststart, startMicro: facts.startMicro,
                       endMicro: facts.endMicro, originMicro: facts.originMicro, companionsStartMicro: companionsStart,
                       companionsEndMicro: video.micro(cut.presentedEnd), companionsZeroSourceMicro: companionsShift)
        if smart != nil {
            plan.streamConfiguration = video.smartHeader?.configuration
            plan.edgeHeader = video.smartHeader?.units
        }
        return plan
    }

    /// How the re-encoded frames are made: the exact cut's encoder with its options on the picture the
    /// survey read, or a smart cut's edges matching the source — each edge with half the threads when the
    /// head and the tail are encoded at once — with x264's own set id where the sets go into the record.
    private static func reencoding(mode: CutPlan.Mode, video: VideoFacts, facts: CutFacts, smart: SmartCutPlan?,
                                   sampleEntry: SampleEntryPlan?) -> Reencoding? {
        guard let picture = video.exactPicture else { return nil }
        switch mode {
        case .exact:
            let encoder = video.exactEncoder
            var options = EncoderChoice.withHDRMetadata(EncoderChoice.options(for: encoder, crf: facts.crf, preset: facts.preset,
                                                                              threads: facts.threads.encoder),
                                                        encoder: encoder, hdr: picture.hdrParameters)
            // AVI keeps frames in decode order, one per slot: no B-frames, whose reordered decode times
            // would make the muxer shift the file by the gap before the first of them.
            if facts.container.storesDecodeTimesOnly { options["bf"] = "0" }
            return Reencoding(encoder: encoder, options: options, threads: facts.threads.encoder, pixelFormat: picture.pixelFormat,
                              tagsLimitedRange: picture.tagsLimitedRange, bakedOrientation: picture.bakedOrientation)
        case .smart:
            guard let match = video.smartMatch, let smart else { return nil }
            let parts = (smart.hasHead ? 1 : 0) + (smart.hasTail ? 1 : 0)
            let threads = max(1, facts.threads.encoder / max(1, parts))
            let ids = sampleEntry?.encoderIds
            let options = SmartEncoding.options(match, crf: facts.crf, preset: facts.preset, threads: threads,
                                                spsId: match.encoder == "libx264" ? ids?.sps : nil,
                                                edgeFrames: max(smart.headFrames, smart.tailFrames))
            return Reencoding(encoder: match.encoder, options: options, threads: threads, pixelFormat: picture.sourcePixelFormat,
                              tagsLimitedRange: false, bakedOrientation: nil)
        case .copy, .keyframe:
            return nil
        }
    }

    /// What the container and the decoder must do for the requested mode; refusals are errors.
    private static func checkVideo(_ video: VideoFacts, facts: CutFacts, mode: CutPlan.Mode) throws(MediaError) {
        let reencodes = mode == .exact || mode == .smart
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
                             reason: "\(facts.container.formatName) cannot hold \(video.codec) video\(mode == .smart ? "" : " without re-encoding")",
                             remedy: .keepContainerOrExact)
        }
    }
}
