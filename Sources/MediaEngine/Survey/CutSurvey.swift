import CAV

/// Reads what the planner needs from an opened input: its streams, what the output's muxer can hold,
/// and the video packets around each edge of the range — a GOP or two at each end, never the middle
/// (MP4's index holds decode times only, so presentation order needs the packets themselves).
struct CutSurvey {
    let input: InputFile
    let path: String
    /// The smart trials this source's ranges have run (a join asks each range's).
    let trials: SmartTrialMemo

    /// `joins`: the range is one of a join's (its audio into MP4/MOV may be re-encoded at the seams).
    func facts(_ spec: CutSpec, outputName: String, joins: Bool = false) throws(MediaError) -> CutFacts {
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
                             originMicro: origin, container: container, streams: streams(muxer: muxer, video: videoIndex, joins: joins),
                             video: nil, threads: spec.settings.threads, crf: spec.settings.crf, preset: spec.settings.preset, faststart: spec.settings.faststart)
        facts.exactCRF = spec.settings.exactCRF
        facts.sampleEntry = spec.settings.sampleEntry
        facts.chapterPolicy = spec.settings.chapters
        facts.chapters = Chapters.read(input)
        facts.startTimecode = StartTimecode.read(input, video: videoIndex)
        if muxer.supportsEditLists, FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.hasPrefix("mov,") == true {
            facts.movieMetadata = MovieMetadata.read(path: path)
        }
        if let videoIndex, let stream = input.stream(videoIndex) {
            facts.video = try video(stream, index: videoIndex, spec: spec, muxer: muxer, startMicro: start.partialValue,
                                    endMicro: end.partialValue, joins: joins)
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
                       startMicro: Int64, endMicro: Int64, joins: Bool) throws(MediaError) -> VideoFacts {
        guard let parameters = stream.pointee.codecpar?.pointee else {
            throw MediaError(.notMedia, path: path, operation: "codecpar", reason: "the video stream has no parameters")
        }
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
        let encoding = reencoding(parameters, stream: stream, muxer: muxer, mode: spec.mode)
        var facts = VideoFacts(index: index, timeBase: Rational(Int(timeBase.num), Int(timeBase.den)),
                          codec: Probe.codecName(parameters.codec_id), width: Int(parameters.width), height: Int(parameters.height),
                          orientation: encoding.orientation,
                          decoderAvailable: avcodec_find_decoder(parameters.codec_id) != nil,
                          startTicks: startTicks, endTicks: endTicks,
                          fineTimeBase: Rational(Int(fine.num), Int(fine.den)),
                          startPackets: start.packets, endPackets: end.packets,
                          endReachesEndOfStream: end.reachesEndOfStream, sourceShownUntil: end.hiddenFrom,
                          smartRefusal: smart ? SmartEncoding.refusal(parameters, output: muxer) : nil, exactEncoder: encoding.exactEncoder,
                          pixelFormatConversion: encoding.conversion)
        facts.exactPicture = encoding.picture
        if encoding.picture.hdrParameters.isEmpty, [encoding.exactEncoder, encoding.smartEncoder].contains("libx265"),
           spec.mode == .exact || smart, HDRMetadata.mayBeHDR(parameters) {
            // HDR10 stated only in the bitstream (SEI: x265's own files, cameras, broadcast TS) reaches the encoder
            // from the keyframe's decoded picture, or re-encoded frames would lose it silently.
            let picture = StageTimes.measure("source picture") { EdgeReadBack.sourcePicture(input, streamIndex: index, keyframe: edge.keyframe) }
            facts.exactPicture?.hdrParameters = picture.map(HDRMetadata.x265Parameters) ?? []
        }
        facts.beginning = beginning
        facts.fineTicksAreSlots = slots
        facts.packedFrames = PackedFrames.detect(input, streamIndex: index)
        facts.decodeDelayFrames = Int(max(0, min(16, parameters.video_delay)))
        facts.startsUnclean = start.startsUnclean
        facts.dolbyVision = DolbyVisionConfiguration.of(stream)
        facts.perceptualQuantizer = parameters.color_trc == AVCOL_TRC_SMPTE2084
        facts.constantFrameTicks = DecodeGrid.constantFrameTicks(rate: stream.pointee.avg_frame_rate, base: stream.pointee.r_frame_rate,
                                                                 timeBase: stream.pointee.time_base)
        if smart, facts.smartRefusal == nil, encoding.picture.bakedOrientation != nil {
            facts.smartRefusal = .orientation(container: muxer.name, degrees: encoding.orientation.rotationDegrees)
        }
        // A single range whose packets rule a smart cut out falls back whatever the encoder: no trial of it, so the
        // fallback costs what --mode exact does.
        if smart, !joins, facts.smartRefusal == nil { facts.trialSkippedFor = RangePlanner.fallbackWithoutTrial(facts) }
        let trying = smart && facts.smartRefusal == nil && facts.trialSkippedFor == nil
        if trying, SmartEncoding.splicesFrames(parameters.codec_id) {
            framesTrial(&facts, parameters: parameters, stream: stream, spec: spec, keyframe: edge.keyframe, index: index)
        }
        if muxer.supportsEditLists || (trying && ParameterSetCarriage(muxer: muxer.name) != nil) {
            let window = Window(reader: reader, keyframe: edge.keyframe, last: end.packets.last)
            try parameterSets(&facts, parameters: parameters, stream: stream, spec: spec, muxer: muxer,
                              smartEncoder: trying ? encoding.smartEncoder : nil, window: window)
        }
        return facts
    }

    /// What re-encoding the video would take: the encoder (a smart cut that falls back uses its own family where the
    /// output holds it: VP8 goes into no MP4; MPEG-2 falls back to what an exact cut uses, libx264, not to the edges'
    /// bit-rate-bound mpeg2video), the pixel format it takes, the picture turned upright where the output cannot
    /// carry the display matrix.
    private func reencoding(_ parameters: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, muxer: OutputFormat, mode: CutMode)
        -> (smartEncoder: String?, exactEncoder: String, orientation: Orientation, conversion: (from: String, to: String)?, picture: ExactPicture) {
        var ignored: [MediaWarning] = []
        let smartEncoder = mode == .smart ? SmartEncoding.encoder(for: parameters.codec_id) : nil
        let exactEncoder = smartEncoder.flatMap { name in
            Encoder.codecID(name).flatMap { muxer.canHold($0) && name != "mpeg2video" ? name : nil }
        } ?? EncoderChoice.encoder(for: parameters.codec_id, output: muxer)
        let sourceFormat = AVPixelFormat(rawValue: parameters.format)
        let orientation = Probe.readOrientation(stream, warnings: &ignored)
        let bakes = !orientation.isUpright && !muxer.carriesDisplayMatrix
        let targetFormat = EncoderChoice.pixelFormat(for: exactEncoder, source: sourceFormat, turnsSideways: bakes && orientation.swapsDimensions)
        func name(_ format: AVPixelFormat) -> String { FFmpegText.string(av_get_pix_fmt_name(format)) ?? "?" }
        let conversion = (mode == .exact || mode == .smart) && sourceFormat != targetFormat ? (name(sourceFormat), name(targetFormat)) : nil
        let picture = ExactPicture(pixelFormat: FFmpegText.string(av_get_pix_fmt_name(targetFormat)) ?? "",
                                   tagsLimitedRange: EncoderChoice.isFullRangeFormat(sourceFormat) && !EncoderChoice.isFullRangeFormat(targetFormat),
                                   bakedOrientation: bakes ? orientation : nil, hdrParameters: HDRMetadata.x265Parameters(stream),
                                   sourcePixelFormat: FFmpegText.string(av_get_pix_fmt_name(sourceFormat)) ?? "")
        return (smartEncoder, exactEncoder, orientation, conversion, picture)
    }

    /// Where a range's parameter sets are read: from its keyframe through its last packet.
    private struct Window {
        let reader: PacketReader
        let keyframe: VideoPacket
        let last: VideoPacket?
    }

    /// H.264/HEVC into MP4/MOV (and smart cuts into Matroska and MPEG-TS): the range's parameter sets, and for a smart
    /// cut what its edges must match and the one trial of their encoder — run while a demuxer of its own reads the
    /// range's sets on another thread (the trial's set ids chosen from the record's sets, checked against the whole
    /// range's once read).
    private func parameterSets(_ facts: inout VideoFacts, parameters: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>,
                               spec: CutSpec, muxer: OutputFormat, smartEncoder: String?, window: Window) throws(MediaError) {
        let carriage = ParameterSetCarriage(muxer: muxer.name)
        let record = SourceRecord(parameters)
        let origin = input.originMicro
        let match = smartMatch(&facts, parameters: parameters, stream: stream, carriage: carriage, smartEncoder: smartEncoder)
        func read() throws(MediaError) -> SourceParameterSets? {
            try window.reader.parameterSets(record, mode: spec.mode, from: window.keyframe, through: window.last, origin: origin)
        }
        var early: (sets: SourceParameterSets, trial: Result<SmartTrial.Sets?, SmartFallback>)?
        if let match, let recordSets = record.codec.flatMap({ SourceParameterSets.read(extradata: record.extradata, codec: $0, tag: record.tag) }) {
            let scan = ParameterSetScan(path: path, index: facts.index, streamID: stream.pointee.id, codecID: parameters.codec_id.rawValue,
                                        record: record, mode: spec.mode, from: window.keyframe, through: window.last, origin: origin)
            early = (recordSets, trial(match, parameters: parameters, stream: stream, spec: spec, sets: recordSets,
                                       carriage: carriage, keyframe: window.keyframe, index: facts.index))
            if let scanned = StageTimes.measure("waiting for the parameter sets", { scan.value() }) {
                facts.parameterSets = scanned
            } else {
                facts.parameterSets = try read()
            }
        } else {
            facts.parameterSets = try StageTimes.measure("parameter sets") { () throws(MediaError) in try read() }
        }
        // A smart cut needs every set placed in its record (or put back in band): unreadable ones refuse it.
        if spec.mode == .smart, facts.smartRefusal == nil, facts.parameterSets == nil, !SmartEncoding.splicesFrames(parameters.codec_id) {
            facts.smartRefusal = .configurationRecord
        }
        guard let match, facts.smartRefusal == nil, let sets = facts.parameterSets else { return }
        facts.smartMatch = match
        // The early trial holds where the whole range leaves the same ids free (it always does unless a set inside the
        // range takes the one chosen).
        let result = early.flatMap { $0.sets.freeEncoderIds == sets.freeEncoderIds ? $0.trial : nil }
            ?? trial(match, parameters: parameters, stream: stream, spec: spec, sets: sets, carriage: carriage, keyframe: window.keyframe,
                     index: facts.index)
        switch result {
        case let .success(trial): facts.smartTrial = trial
        case let .failure(refusal): facts.smartRefusal = refusal
        }
    }

    /// What an H.264/HEVC smart cut's edges must match in the source, or nil (with the refusal in `facts`) when x264
    /// would have to declare a reorder depth it cannot (Matroska, which stores no decode times, needs the source's).
    private func smartMatch(_ facts: inout VideoFacts, parameters: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>,
                            carriage: ParameterSetCarriage?, smartEncoder: String?) -> SmartEncoding.Match? {
        guard let smartEncoder, facts.smartRefusal == nil, !SmartEncoding.splicesFrames(parameters.codec_id) else { return nil }
        var made = SmartEncoding.Match(encoder: smartEncoder, source: parameters, stream: stream)
        if smartEncoder == "libx265", made.hdrParameters.isEmpty { made.hdrParameters = facts.exactPicture?.hdrParameters ?? [] }
        if carriage == .codecPrivate, smartEncoder == "libx264" { made.declaredReorder = facts.decodeDelayFrames }
        guard made.declaredReorder <= 2 else {
            facts.smartMatch = made
            facts.smartRefusal = .reorderDepth(frames: made.declaredReorder, encoder: smartEncoder)
            return nil
        }
        return made
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
