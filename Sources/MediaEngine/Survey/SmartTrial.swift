import CAV

/// A smart cut's one trial of its encoder, made while planning (nothing is written yet): whether it opens
/// with the source's profile and level at its size and rate (x264 and x265 refuse a level the source
/// mislabels), whether one frame it encodes decodes as the source's do (`EdgeReadBack`), and — where the parameter sets go into the sample entry — the sets it writes, renumbered into
/// ids no source set uses, for the record. The head and tail encoders must write exactly these (the writer
/// checks, set by set), so a plan made in one process is written the same in another.
enum SmartTrial {
    typealias Sets = (ids: HEVCRenumbering.Ids, sets: [ParameterSet])

    /// The ids the encoder's sets take. Ids free among all the source's sets are free in any part of them: the
    /// planner's range too. In an Annex B stream (MPEG-TS) the encoder's sets stay in band, under ids of their own too.
    static func encoderIds(settings: CutSettings, carriage: ParameterSetCarriage, sets: SourceParameterSets) -> HEVCRenumbering.Ids? {
        settings.sampleEntry == .outOfBand || carriage == .annexB ? sets.freeEncoderIds : nil
    }

    /// The ids and the encoder's sets (nil in band: asked for, or no id left free), or why not smart.
    static func run(_ match: SmartEncoding.Match, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>,
                    settings: CutSettings, sets: SourceParameterSets, carriage: ParameterSetCarriage,
                    picture: EdgeReadBack.Decoded?) -> Result<Sets?, SmartFallback> {
        let ids = encoderIds(settings: settings, carriage: carriage, sets: sets)
        var options = SmartEncoding.options(match, crf: settings.crf, preset: settings.preset, threads: settings.threads.encoder,
                                            spsId: match.encoder == "libx264" ? ids?.sps : nil)
        // x265 logs a refusal on its own; here it becomes the fallback's reason instead.
        options["x265-params"] = options["x265-params"]?.replacingOccurrences(of: "log-level=error", with: "log-level=none")
        let encoder: Encoder
        do {
            encoder = try Encoder(name: match.encoder, settings: SegmentEncoder.settings(encoder: match.encoder, source: source, stream: stream, options: options,
                                                                                         threads: settings.threads.encoder, globalHeader: true))
        } catch {
            return .failure(.encoderRefused(encoder: match.encoder, detail: error.text))
        }
        // The edges must decode as the copied frames do (depth, chroma, colour, HDR10 metadata).
        if let picture, let mismatch = StageTimes.measure("trial read-back", { EdgeReadBack.mismatch(encoder: encoder, source: picture) }) {
            return .failure(mismatch)
        }
        guard let ids else { return .success(nil) }
        guard let encoderSets = EncoderUnitRewriter.encoderSets(extradata: encoder.codecContext.pointee.extradataBytes,
                                                                codec: sets.codec, ids: ids) else {
            return .failure(.configurationRecord)
        }
        return .success((ids, encoderSets))
    }
}

/// A frame-spliced codec's trial (VP8, VP9, AV1): each candidate encoder in turn, set to write the source's stream
/// header (`StreamHeader.encoderOptions`), encodes one black frame; the first whose frame decodes as the source's
/// picture does (`EdgeReadBack`) and whose header equals the source keyframe's — AV1's sequence header byte for
/// byte, VP9's profile, depth, colour space, range and subsampling — makes the edges. None: the last one's reason.
enum FrameSpliceTrial {
    static func run(candidates: [String], source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, settings: CutSettings,
                    header: StreamHeader, picture: EdgeReadBack.Decoded?) -> Result<SmartEncoding.Match, SmartFallback> {
        var reason = SmartFallback.codec(Probe.codecName(source.codec_id))
        // libsvtav1 takes 4:2:0 only; libaom-av1 4:2:2 and 4:4:4 too.
        for name in candidates where Encoder.pixelFormats(name).contains(AVPixelFormat(rawValue: source.format)) {
            var match = SmartEncoding.Match(encoder: name, profile: nil, level: 0, lossless: false, hdrParameters: [])
            match.headerOptions = header.encoderOptions(name)
            if name == "libsvtav1", let picture {
                // HDR10: SVT-AV1 writes the source keyframe's mastering display and light levels as metadata OBUs.
                let hdr = [picture.svtMastering.map { "mastering-display=\($0)" }, picture.lightValues.map { "content-light=\($0)" }].compactMap { $0 }
                if !hdr.isEmpty { match.headerOptions["svtav1-params"] = ([match.headerOptions["svtav1-params"]].compactMap { $0 } + hdr).joined(separator: ":") }
            }
            let options = SmartEncoding.options(match, crf: settings.crf, preset: settings.preset, threads: settings.threads.encoder)
            let encoder: Encoder
            do {
                encoder = try Encoder(name: name, settings: SegmentEncoder.settings(encoder: name, source: source, stream: stream, options: options,
                                                                                    threads: settings.threads.encoder))
            } catch {
                reason = .encoderRefused(encoder: name, detail: error.text)
                continue
            }
            let made: (decoded: EdgeReadBack.Decoded?, firstPacket: [UInt8]?)
            do {
                made = try StageTimes.measure("trial read-back") { try EdgeReadBack.readBack(encoder) }
            } catch {
                reason = .encoderRefused(encoder: name, detail: (error as? AVFailure)?.text ?? "\(error)")
                continue
            }
            if let picture {
                guard let decoded = made.decoded else {
                    reason = .parameterMismatch(field: "picture", source: "a frame", edge: "none")
                    continue
                }
                if let mismatch = EdgeReadBack.compare(decoded, source: picture) {
                    reason = mismatch
                    continue
                }
            }
            if let mismatch = header.mismatch(edge: made.firstPacket.flatMap { StreamHeader.read(codec: source.codec_id, keyframe: $0) }) {
                reason = mismatch
                continue
            }
            return .success(match)
        }
        return .failure(reason)
    }
}

/// A join's ranges share one stream, so their trials ask the same question: the source's match and the settings,
/// the ids the range's sets leave free and the source picture the edge frame is compared with. Asked again, the
/// answer is the first trial's (an encoder opened at 1080p and one frame encoded and decoded, per range, was most
/// of a smart join's planning). Used on the planner's thread only.
final class SmartTrialMemo {
    struct Question: Equatable {
        var match: SmartEncoding.Match
        var settings: CutSettings
        var carriage: ParameterSetCarriage
        var ids: HEVCRenumbering.Ids?
        var picture: EdgeReadBack.Decoded?
    }

    private var answers: [(question: Question, answer: Result<SmartTrial.Sets?, SmartFallback>)] = []

    /// Frame-spliced codecs: the same header, picture and settings give the same encoder.
    struct FrameQuestion: Equatable {
        var header: StreamHeader
        var settings: CutSettings
        var picture: EdgeReadBack.Decoded?
    }

    private var frameAnswers: [(question: FrameQuestion, answer: Result<SmartEncoding.Match, SmartFallback>)] = []

    func answer(_ question: FrameQuestion, trial: () -> Result<SmartEncoding.Match, SmartFallback>) -> Result<SmartEncoding.Match, SmartFallback> {
        if let known = frameAnswers.first(where: { $0.question == question }) { return known.answer }
        let answer = trial()
        frameAnswers.append((question, answer))
        return answer
    }

    func answer(_ question: Question, trial: () -> Result<SmartTrial.Sets?, SmartFallback>) -> Result<SmartTrial.Sets?, SmartFallback> {
        if let known = answers.first(where: { $0.question == question }) { return known.answer }
        let answer = trial()
        answers.append((question, answer))
        return answer
    }
}
