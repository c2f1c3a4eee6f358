import CAV

/// Reads what the planner needs from an opened input: its streams, what the output's muxer can hold,
/// and the video packets around each edge of the range — a GOP or two at each end, never the middle
/// (MP4's index holds decode times only, so presentation order needs the packets themselves).
struct CutSurvey {
    let input: InputFile
    let path: String
    /// The smart trials this source's ranges have run (a join asks each range's).
    let trials: SmartTrialMemo

    func facts(_ spec: CutSpec, outputName: String) throws(MediaError) -> CutFacts {
        guard let muxer = OutputFormat(fileName: outputName), EditOutput.containers.contains(muxer.name) else {
            throw MediaError(.unsupportedContainer, path: path, operation: "av_guess_format",
                             reason: "cuts are written as \(EditOutput.extensions.map { "." + $0 }.joined(separator: ", ")), not \(outputName)")
        }
        let origin = input.originMicro
        // A damaged header can claim a start time near Int64's limits: refuse rather than overflow.
        guard let startOffset = Micro.from(seconds: spec.startSeconds), let endOffset = Micro.from(seconds: spec.endSeconds),
              case let start = origin.addingReportingOverflow(startOffset), !start.overflow,
              case let end = origin.addingReportingOverflow(endOffset), !end.overflow, end.partialValue < Int64.max / 4,
              start.partialValue > Int64.min / 4 else {
            throw MediaError(.notMedia, path: path, operation: "plan cut",
                             reason: "the file claims a start time (\(origin) µs) too large to cut from")
        }
        var container = ContainerFacts(formatName: muxer.name, editLists: muxer.supportsEditLists,
                                       storesDecodeTimesOnly: muxer.storesDecodeTimesOnly)
        container.holdsChapters = muxer.holdsChapters
        let videoIndex = VideoStreamChoice.best(in: input)
        var facts = CutFacts(path: path, requestedMode: spec.mode, startMicro: start.partialValue, endMicro: end.partialValue,
                             originMicro: origin, container: container, streams: streams(muxer: muxer, video: videoIndex, joins: spec.joinsRanges),
                             video: nil, threads: spec.settings.threads, crf: spec.settings.crf, preset: spec.settings.preset, faststart: spec.settings.faststart)
        facts.sampleEntry = spec.settings.sampleEntry
        facts.chapterPolicy = spec.settings.chapters
        facts.joinsRanges = spec.joinsRanges
        facts.chapters = Chapters.read(input)
        facts.startTimecode = StartTimecode.read(input, video: videoIndex)
        if muxer.supportsEditLists, FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.hasPrefix("mov,") == true {
            facts.movieMetadata = MovieMetadata.read(path: path)
        }
        if let videoIndex, let stream = input.stream(videoIndex) {
            facts.video = try video(stream, index: videoIndex, spec: spec, muxer: muxer, startMicro: start.partialValue,
                                    endMicro: end.partialValue)
        }
        return facts
    }

    /// Text subtitle codecs libavcodec decodes to its ASS form and encodes from it.
    static let textSubtitles: Set<AVCodecID> = [AV_CODEC_ID_SUBRIP, AV_CODEC_ID_ASS, AV_CODEC_ID_SSA, AV_CODEC_ID_WEBVTT, AV_CODEC_ID_MOV_TEXT,
                                                AV_CODEC_ID_TEXT]

    private func streams(muxer: OutputFormat, video: Int?, joins: Bool) -> [StreamFacts] {
        (0..<input.streamCount).compactMap { index in
            guard let stream = input.stream(index), let parameters = stream.pointee.codecpar?.pointee else { return nil }
            let kind: StreamFacts.Kind
            switch parameters.codec_type {
            case AVMEDIA_TYPE_VIDEO: kind = .video
            case AVMEDIA_TYPE_AUDIO: kind = .audio
            case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
            case AVMEDIA_TYPE_DATA: kind = .data
            default: kind = .other
            }
            var facts = StreamFacts(index: index, kind: kind, codec: Probe.codecName(parameters.codec_id),
                                    tag: Probe.fourCC(parameters.codec_tag),
                                    isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                                    containerCanHold: muxer.canHold(parameters.codec_id)
                                        // FFmpeg 5.1 writes subtitles into MPEG-TS and AVI as opaque data no player reads.
                                        && !(kind == .subtitle && (muxer.name == "mpegts" || muxer.storesDecodeTimesOnly)),
                                    isAMRNarrowband: parameters.codec_id == AV_CODEC_ID_AMR_NB)
            if kind == .audio, joins, muxer.supportsEditLists { facts.exactAudioEncoder = AudioReencoder.encoderThatOpens(for: stream) }
            facts.isChapterTrack = kind == .data && (facts.tag == "text" || facts.tag == "tx3g") && input.format.pointee.nb_chapters > 0
            if kind == .subtitle, !facts.containerCanHold, Self.textSubtitles.contains(parameters.codec_id),
               muxer.name != "mpegts", !muxer.storesDecodeTimesOnly {
                let target: (String, AVCodecID) = muxer.supportsEditLists ? ("mov_text", AV_CODEC_ID_MOV_TEXT)
                    : muxer.name == "webm" ? ("webvtt", AV_CODEC_ID_WEBVTT) : ("srt", AV_CODEC_ID_SUBRIP)
                if muxer.canHold(target.1), avcodec_find_encoder_by_name(target.0) != nil, avcodec_find_decoder(parameters.codec_id) != nil {
                    facts.convertsTo = target.0
                }
            }
            return facts
        }
    }

    private func video(_ stream: UnsafeMutablePointer<AVStream>, index: Int, spec: CutSpec, muxer: OutputFormat,
                       startMicro: Int64, endMicro: Int64) throws(MediaError) -> VideoFacts {
        guard let parameters = stream.pointee.codecpar?.pointee else {
            throw MediaError(.notMedia, path: path, operation: "codecpar", reason: "the video stream has no parameters")
        }
        var ignored: [MediaWarning] = []
        let timeBase = stream.pointee.time_base
        let startTicks = StreamTime.startTicks(startMicro, timeBase)
        let endTicks = StreamTime.endTicks(endMicro, timeBase)
        // AVI into AVI: the source's own frame slots, so every frame keeps its slot and gaps stay gaps (AVI
        // keeps no times: a finer grid is written as empty slots, and a sparse source's last frame could not
        // be held until the end). Elsewhere a grid fine enough for exact edits.
        let slots = muxer.storesDecodeTimesOnly && FFmpegText.string(input.format.pointee.iformat?.pointee.name) == "avi"
            && timeBase.num > 0 && timeBase.den > 0
        let fine = slots ? timeBase
            : AVRational(num: 1, den: Int32(clamping: MovieHeaderPatch.trackTimescale(Rational(Int(timeBase.num), Int(timeBase.den)))))
        // Read first: it starts from the file's beginning, the edge windows below seek on their own.
        let beginning = StreamBeginning.read(input, streamIndex: index)
        let reader = PacketReader(input: input, index: index, stream: stream, path: path)
        let smart = spec.mode == .smart
        let start = try StageTimes.measure("start window") { () throws(MediaError) in try reader.startWindow(start: startTicks, end: endTicks, smart: smart) }
        guard let edge = start.edge else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "no keyframe found in the video to start from")
        }
        let end = try StageTimes.measure("end window") { () throws(MediaError) in
            try reader.endWindow(end: endTicks, keyframe: edge.keyframe, frameAtStart: edge.frameAtStart, start: start, smart: smart)
        }

        // What re-encoding would take: the encoder (a smart cut that falls back uses its own family where the output
        // holds it: VP8 goes into no MP4; MPEG-2 falls back to what an exact cut uses, libx264, not to the edges'
        // bit-rate-bound mpeg2video), the pixel format it takes, the picture turned upright where the output cannot
        // carry the display matrix.
        let smartEncoder = smart ? SmartEncoding.encoder(for: parameters.codec_id) : nil
        let exactEncoder = smartEncoder.flatMap { name in
            Encoder.codecID(name).flatMap { muxer.canHold($0) && name != "mpeg2video" ? name : nil }
        } ?? EncoderChoice.encoder(for: parameters.codec_id, output: muxer)
        let sourceFormat = AVPixelFormat(rawValue: parameters.format)
        let orientation = Probe.readOrientation(stream, warnings: &ignored)
        let bakes = !orientation.isUpright && !muxer.carriesDisplayMatrix
        let targetFormat = EncoderChoice.pixelFormat(for: exactEncoder, source: sourceFormat, turnsSideways: bakes && orientation.swapsDimensions)
        var conversion: (from: String, to: String)?
        if spec.mode == .exact || spec.mode == .smart, sourceFormat != targetFormat {
            conversion = (FFmpegText.string(av_get_pix_fmt_name(sourceFormat)) ?? "?", FFmpegText.string(av_get_pix_fmt_name(targetFormat)) ?? "?")
        }
        var facts = VideoFacts(index: index, timeBase: Rational(Int(timeBase.num), Int(timeBase.den)),
                          codec: Probe.codecName(parameters.codec_id), width: Int(parameters.width), height: Int(parameters.height),
                          orientation: orientation,
                          decoderAvailable: avcodec_find_decoder(parameters.codec_id) != nil,
                          startTicks: startTicks, endTicks: endTicks,
                          fine: (Rational(Int(fine.num), Int(fine.den)), StreamTime.startTicks(startMicro, fine), StreamTime.endTicks(endMicro, fine)),
                          startPackets: start.packets, endPackets: end.packets,
                          endReachesEndOfStream: end.reachesEndOfStream, sourceShownUntil: end.hiddenFrom,
                          smartRefusal: smart ? SmartEncoding.refusal(parameters, output: muxer) : nil, exactEncoder: exactEncoder,
                          pixelFormatConversion: conversion)
        facts.exactPicture = ExactPicture(pixelFormat: FFmpegText.string(av_get_pix_fmt_name(targetFormat)) ?? "",
                                          tagsLimitedRange: EncoderChoice.isFullRangeFormat(sourceFormat) && !EncoderChoice.isFullRangeFormat(targetFormat),
                                          bakedOrientation: bakes ? orientation : nil,
                                          hdrParameters: HDRMetadata.x265Parameters(stream),
                                          sourcePixelFormat: FFmpegText.string(av_get_pix_fmt_name(sourceFormat)) ?? "")
        facts.beginning = beginning
        facts.fineTicksAreSlots = slots
        facts.packedFrames = PackedFrames.detect(input, streamIndex: index)
        facts.decodeDelayFrames = Int(max(0, min(16, parameters.video_delay)))
        facts.startsUnclean = start.startsUnclean
        facts.hasDolbyVision = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, nil) != nil
        if smart, facts.smartRefusal == nil, bakes {
            facts.smartRefusal = .orientation(container: muxer.name, degrees: orientation.rotationDegrees)
        }
        if smart, facts.smartRefusal == nil, SmartEncoding.splicesFrames(parameters.codec_id) {
            framesTrial(&facts, parameters: parameters, stream: stream, spec: spec, keyframe: edge.keyframe, index: index)
        }
        let carriage = ParameterSetCarriage(muxer: muxer.name)
        if muxer.supportsEditLists || (smart && carriage != nil) {
            let record = SourceRecord(parameters)
            let origin = input.originMicro
            var match: SmartEncoding.Match?
            if let smartEncoder, facts.smartRefusal == nil, !SmartEncoding.splicesFrames(parameters.codec_id) {
                var made = SmartEncoding.Match(encoder: smartEncoder, source: parameters, stream: stream)
                if carriage == .codecPrivate, smartEncoder == "libx264" { made.declaredReorder = facts.decodeDelayFrames }
                if made.declaredReorder > 2 {
                    facts.smartMatch = made
                    facts.smartRefusal = .reorderDepth(frames: made.declaredReorder, encoder: smartEncoder)
                } else {
                    match = made
                }
            }
            // A smart cut's trial runs while a demuxer of its own reads the range's sets on another thread (the
            // trial's set ids chosen from the record's sets, checked against the whole range's once read).
            var early: (sets: SourceParameterSets, trial: Result<SmartTrial.Sets?, SmartFallback>)?
            if let match, let recordSets = record.codec.flatMap({ SourceParameterSets.read(extradata: record.extradata, codec: $0, tag: record.tag) }) {
                let scan = ParameterSetScan(path: path, index: index, streamID: stream.pointee.id, codecID: parameters.codec_id.rawValue,
                                            record: record, mode: spec.mode, from: edge.keyframe, through: end.packets.last, origin: origin)
                early = (recordSets, trial(match, parameters: parameters, stream: stream, spec: spec, sets: recordSets,
                                           carriage: carriage, keyframe: edge.keyframe, index: index))
                if let scanned = StageTimes.measure("waiting for the parameter sets", { scan.value() }) {
                    facts.parameterSets = scanned
                } else {
                    facts.parameterSets = try reader.parameterSets(record, mode: spec.mode, from: edge.keyframe, through: end.packets.last,
                                                                   origin: origin)
                }
            } else {
                facts.parameterSets = try StageTimes.measure("parameter sets") { () throws(MediaError) in
                    try reader.parameterSets(record, mode: spec.mode, from: edge.keyframe, through: end.packets.last, origin: origin)
                }
            }
            // A smart cut needs every set placed in its record (or put back in band): unreadable ones refuse it.
            if smart, facts.smartRefusal == nil, facts.parameterSets == nil, !SmartEncoding.splicesFrames(parameters.codec_id) { facts.smartRefusal = .configurationRecord }
            if let match, facts.smartRefusal == nil, let sets = facts.parameterSets {
                facts.smartMatch = match
                // The early trial holds where the whole range leaves the same ids free (it always does unless a
                // set inside the range takes the one chosen).
                let result = early.flatMap { $0.sets.freeEncoderIds == sets.freeEncoderIds ? $0.trial : nil }
                    ?? trial(match, parameters: parameters, stream: stream, spec: spec, sets: sets, carriage: carriage,
                             keyframe: edge.keyframe, index: index)
                switch result {
                case let .success(trial): facts.smartTrial = trial
                case let .failure(refusal): facts.smartRefusal = refusal
                }
            }
        }
        return facts
    }

    /// A frame-spliced codec's edges: the source keyframe's stream header, and the first encoder that writes it
    /// (`FrameSpliceTrial`), or why none can. A VP8/VP9 stream with an alpha channel (Matroska's BlockAdditional,
    /// which the copied frames keep and the edges would not) falls back.
    private func framesTrial(_ facts: inout VideoFacts, parameters: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, spec: CutSpec,
                             keyframe: VideoPacket, index: Int) {
        if let alpha = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0), FFmpegText.string(alpha.pointee.value) == "1" {
            facts.smartRefusal = .alpha
            return
        }
        // An AV1 keyframe may leave its sequence header to the stored configuration (av1C's configOBUs); MPEG-2's
        // is its sequence header (Matroska, MP4).
        let stored = parameters.codec_id == AV_CODEC_ID_AV1 && parameters.extradataBytes.first == 0x81 ? Array(parameters.extradataBytes.dropFirst(4))
            : parameters.codec_id == AV_CODEC_ID_MPEG2VIDEO ? parameters.extradataBytes : nil
        guard let source = StageTimes.measure("source picture", { EdgeReadBack.sourceKeyframe(input, streamIndex: index, keyframe: keyframe) }),
              let header = StreamHeader.read(codec: parameters.codec_id, keyframe: source.sample)
                ?? stored.flatMap({ StreamHeader.read(codec: parameters.codec_id, keyframe: $0) }) else {
            facts.smartRefusal = .parameterMismatch(field: "stream header", source: "unreadable", edge: "–")
            return
        }
        let question = SmartTrialMemo.FrameQuestion(header: header, settings: spec.settings, picture: source.decoded)
        let answer = trials.answer(question) {
            StageTimes.measure("trial encoder") {
                FrameSpliceTrial.run(candidates: SmartEncoding.candidates(for: parameters.codec_id), source: parameters, stream: stream,
                                     settings: spec.settings, header: header, picture: source.decoded)
            }
        }
        switch answer {
        case let .success(match):
            facts.smartMatch = match
            facts.smartHeader = header
        case let .failure(refusal):
            facts.smartRefusal = refusal
        }
    }

    /// The smart encoder's one trial (`SmartTrial`), against the source's own picture as a decoder reports it
    /// (what the trial's edge frame must match).
    private func trial(_ match: SmartEncoding.Match, parameters: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, spec: CutSpec,
                       sets: SourceParameterSets, carriage: ParameterSetCarriage?, keyframe: VideoPacket,
                       index: Int) -> Result<SmartTrial.Sets?, SmartFallback> {
        let picture = StageTimes.measure("source picture") { EdgeReadBack.sourcePicture(input, streamIndex: index, keyframe: keyframe) }
        let carriage = carriage ?? .sampleEntry
        let question = SmartTrialMemo.Question(match: match, settings: spec.settings, carriage: carriage,
                                               ids: SmartTrial.encoderIds(settings: spec.settings, carriage: carriage, sets: sets), picture: picture)
        return trials.answer(question) {
            StageTimes.measure("trial encoder") {
                SmartTrial.run(match, source: parameters, stream: stream, settings: spec.settings, sets: sets, carriage: carriage, picture: picture)
            }
        }
    }
}

/// Reads one video stream's packets (timing and keyframe kind only) in decode order.
struct PacketReader {
    let input: InputFile
    let index: Int
    let stream: UnsafeMutablePointer<AVStream>
    let path: String

    struct Window {
        var packets: [VideoPacket]
        var reachesEndOfStream: Bool
        /// The first packet the source's edit list hides after the range's keyframe (pts), if any.
        var hiddenFrom: Int64?
        /// No clean start lies at or before the start: the window's flagged keyframes count as starts.
        var startsUnclean = false
        /// Start windows: the edge found in them (the window begins at its keyframe).
        var edge: StartEdge?
        /// Some packets came without a decode time (Matroska): the reader derived theirs, unreliably for the
        /// first packets after a seek.
        var decodeTimesDerived = false
    }

    private var second: Int64 { stream.secondTicks }

    /// Packets from the clean start shown at or before `start` (or, with none, the first one after it) until
    /// `StartEdge.isSettled`. Files without a precise index make the demuxer land late: it backs off, then
    /// reads from the beginning. A stream with no clean start at or before `start` at all (a capture that
    /// begins mid-broadcast) starts at the flagged keyframe before it (`startsUnclean`) rather than late.
    func startWindow(start: Int64, end: Int64, smart: Bool) throws(MediaError) -> Window {
        if let window = try startWindow(start: start, end: end, smart: smart, acceptingUnclean: false) { return window }
        if var window = try startWindow(start: start, end: end, smart: smart, acceptingUnclean: true) {
            window.startsUnclean = true
            return window
        }
        return Window(packets: [], reachesEndOfStream: true, hiddenFrom: nil)
    }

    /// Nil when no clean start lies at or before `start` but a flagged keyframe does.
    private func startWindow(start: Int64, end: Int64, smart: Bool, acceptingUnclean: Bool) throws(MediaError) -> Window? {
        var backoff: Int64 = 0
        for attempt in 0..<5 {
            let fromBeginning = attempt == 4
            let target: Int64? = fromBeginning ? nil : start.minus(backoff)
            backoff = backoff == 0 ? second.times(2) : backoff.plus(backoff.plus(backoff))
            var sawKeyframeBefore = false, sawUncleanBefore = false, sawClean = false
            let window = try read(from: target, acceptingUnclean: acceptingUnclean) { packets, latest in
                if latest.isKeyframe, latest.isClean { sawClean = true }
                if latest.isKeyframe, latest.pts <= start {
                    if latest.isClean { sawKeyframeBefore = true } else { sawUncleanBefore = true }
                }
                if !sawKeyframeBefore {
                    // Landed past the start: back off. From the beginning with no keyframe at or before the
                    // start, the first keyframe after it starts the cut.
                    if !fromBeginning { return latest.dts > start ? .giveUp : .more }
                    if latest.dts <= start || !sawClean { return .more }
                } else if latest.dts <= start {
                    return .more
                }
                // A smart cut waits for a clean point further on: look every so often, not at every packet.
                if smart, !latest.isKeyframe, latest.dts < end, packets.count % 64 != 0 { return .more }
                return StartEdge.isSettled(packets, start: start, end: end, smart: smart) ? .done : .more
            }
            if fromBeginning, !sawKeyframeBefore, sawUncleanBefore, !acceptingUnclean { return nil }
            guard var window, sawClean, sawKeyframeBefore || fromBeginning else { continue }
            if let edge = StartEdge.make(packets: window.packets, start: start),
               let position = window.packets.firstIndex(where: { $0.isSame(as: edge.keyframe) }) {
                window.packets.removeFirst(position)
                window.edge = edge
            }
            return window
        }
        return acceptingUnclean ? nil : Window(packets: [], reachesEndOfStream: true, hiddenFrom: nil)
    }

    /// Packets from a keyframe shown before `end` (at or after the cut's keyframe) until `EndEdge.make`
    /// settles; for a smart cut from far enough back to hold two clean points. One read from the cut's
    /// keyframe when the range is short.
    func endWindow(end: Int64, keyframe: VideoPacket, frameAtStart: Int64, start: Window, smart: Bool) throws(MediaError) -> Window {
        func settled(_ packets: [VideoPacket], _ reachesEnd: Bool) -> Bool {
            EndEdge.make(packets: packets, firstWanted: frameAtStart, end: end, reachesEndOfStream: reachesEnd) != nil
        }
        if settled(start.packets, start.reachesEndOfStream) { return start }
        var target = end.minus(1)
        var backoff: Int64 = 0
        for _ in 0..<6 {
            let seekTarget = target.minus(backoff)
            guard seekTarget > keyframe.pts else { break }
            enum Landing { case none, usable, beforeCut, pastEnd }
            var landing = Landing.none
            var anchor = 0
            let window = try read(from: seekTarget) { packets, latest in
                if landing == .none {
                    guard latest.isKeyframe else { return .more }
                    if latest.dts <= keyframe.dts { landing = .beforeCut; return .giveUp }
                    if latest.pts >= end { landing = .pastEnd; return .giveUp }
                    landing = .usable
                    anchor = packets.count - 1
                }
                // Nothing settles before a packet decodes at or after the end (cheap to check each time).
                guard latest.dts >= end else { return .more }
                return settled(Array(packets[anchor...]), false) ? .done : .more
            }
            if landing == .pastEnd {
                // An imprecise index landed after the end: back off.
                backoff = backoff == 0 ? second.times(2) : backoff.plus(backoff.plus(backoff))
                continue
            }
            guard let window, landing == .usable else { break }
            let packets = Array(window.packets.drop(while: { !$0.isKeyframe }))
            if smart, !SmartCutPlan.endWindowSuffices(packets, end: end, decodeTimesDerived: window.decodeTimesDerived) {
                // K2's leading pictures are decoded from the clean point before it: read from further back.
                target = (packets.first?.pts ?? target).minus(1)
                continue
            }
            return Window(packets: packets, reachesEndOfStream: window.reachesEndOfStream, hiddenFrom: window.hiddenFrom)
        }
        // The whole range in one read, from the cut's keyframe (seeking further back where the index is imprecise).
        for target in stream.seekLadder(toReach: keyframe.pts) {
            if let window = try read(from: target, startingAt: keyframe, verdict: { packets, latest in
                latest.dts >= end && settled(packets, false) ? .done : .more
            }) {
                return window
            }
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe the cut starts from to read the range")
    }

    /// The stream's parameter sets: its record's and those inside the samples from `keyframe` through `last`
    /// — a read of the range's packets, without decoding — for smart cuts, and for copies of a source whose
    /// samples may carry sets of their own (Annex B, or a sample entry other than avc1/hvc1; an avc1/hvc1
    /// copy drops in-band duplicates of its record's sets as it writes, see `CopyVideoWriter`). Nil for
    /// other codecs.
    func parameterSets(_ record: SourceRecord, mode: CutPlan.Mode, from keyframe: VideoPacket, through last: VideoPacket?,
                       origin: Int64) throws(MediaError) -> SourceParameterSets? {
        guard let codec = record.codec, let sets = SourceParameterSets.read(extradata: record.extradata, codec: codec, tag: record.tag) else {
            return nil
        }
        let tag = record.tag
        guard mode != .exact, mode == .smart || sets.isAnnexB || !["avc1", "hvc1"].contains(tag ?? "") else { return sets }
        let timeBase = stream.pointee.time_base
        for target in stream.seekLadder(toReach: keyframe.pts) {
            var scan = sets
            let window = try read(from: target, startingAt: keyframe, verdict: { _, _ in .more }, inspecting: { packet in
                let micro = av_rescale_q(packet.timing.pts, timeBase, AVRational(num: 1, den: 1_000_000))
                packet.withData { bytes in
                    for range in NALUnits.unitRanges(bytes, lengthSize: scan.lengthSize) ?? []
                        where NALUnits.isParameterSet(type: NALUnits.type(ofUnitStartingWith: bytes[range.lowerBound], codec: codec), codec: codec) {
                        if let set = ParameterSet.parse(ArraySlice(bytes[range]), codec: codec) {
                            scan.scanned(set, dts: packet.dts == CAV_NOPTS_VALUE ? packet.timing.pts : packet.dts,
                                         seconds: Micro.seconds(micro.minus(origin)))
                        }
                    }
                }
                return !(last.map { packet.timing.isSame(as: $0) } ?? false)
            })
            if window != nil {
                scan.scanned = true
                return scan
            }
        }
        return sets
    }

    enum Verdict { case more, done, giveUp }

    /// Reads video packets from a seek to `target` (nil: the beginning), from the first keyframe on (or
    /// from `startingAt`, a keyframe that must come up), asking `verdict` after each. Nil when it gave up
    /// or the seek failed.
    private func read(from target: Int64?, startingAt first: VideoPacket? = nil, acceptingUnclean: Bool = false,
                      verdict: (_ packets: [VideoPacket], _ latest: VideoPacket) -> Verdict,
                      inspecting: ((Packet) -> Bool)? = nil) throws(MediaError) -> Window? {
        do {
            if let target {
                try input.seek(streamIndex: index, timestamp: target)
            } else {
                try input.seekToStart()
            }
        } catch {
            if target != nil { return nil }
        }
        let clean = CleanStart(stream: stream)
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        var packets: [VideoPacket] = []
        var hiddenFrom: Int64?
        var latestShown: Int64?
        var reachedFirst = false
        var decodeTimesDerived = false
        while true {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch {
                // Data that cannot be read is where this read ends; the writer will meet it too and say so.
                return Window(packets: packets, reachesEndOfStream: true, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            }
            if result == .endOfFile {
                return Window(packets: packets, reachesEndOfStream: true, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            }
            guard packet.streamIndex == index else { continue }
            var timing = packet.timing
            guard timing.pts != CAV_NOPTS_VALUE else { continue }
            // A missing decode time (Matroska's first blocks) is no later than the one before it: the edge
            // rules, which wait for decode times to pass a point, then wait rather than stop early.
            if packet.dts == CAV_NOPTS_VALUE {
                decodeTimesDerived = true
                if let previous = packets.last { timing.dts = min(timing.pts, previous.dts) }
            }
            if !reachedFirst, let first {
                guard timing.isSame(as: first) else {
                    if timing.dts > first.dts { return nil }
                    continue
                }
            }
            reachedFirst = true
            if timing.isKeyframe {
                timing.isClean = acceptingUnclean || clean.isClean(packet)
                timing.isSplicePoint = clean.isSplicePoint(packet)
            }
            // The source's edit list ends before its last frames: those after a shown frame are hidden.
            if packet.isDiscarded {
                if let shown = latestShown, timing.pts > shown { hiddenFrom = min(hiddenFrom ?? .max, timing.pts) }
            } else {
                latestShown = max(latestShown ?? .min, timing.pts)
            }
            if let inspecting {
                if !inspecting(packet) { return Window(packets: [], reachesEndOfStream: false, hiddenFrom: nil) }
                continue
            }
            packets.append(timing)
            switch verdict(packets, timing) {
            case .more: continue
            case .done: return Window(packets: packets, reachesEndOfStream: false, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            case .giveUp: return nil
            }
        }
    }

}
