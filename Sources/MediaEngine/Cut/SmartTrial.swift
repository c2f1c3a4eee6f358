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
            encoder = try Encoder(name: match.encoder, settings: SegmentEncoder.settings(source: source, stream: stream, options: options,
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

    func answer(_ question: Question, trial: () -> Result<SmartTrial.Sets?, SmartFallback>) -> Result<SmartTrial.Sets?, SmartFallback> {
        if let known = answers.first(where: { $0.question == question }) { return known.answer }
        let answer = trial()
        answers.append((question, answer))
        return answer
    }
}
