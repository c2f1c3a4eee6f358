/// `vtrim cut` on one file: opened and probed once, planned from the packets around the edges (a value:
/// what `--dry-run` prints, and what `EditOutput.write` executes — in this process or another). Not for use
/// across threads.
public final class CutSource {
    public let info: MediaInfo
    let input: InputFile
    private let trials = SmartTrialMemo()

    public init(path: String) throws(MediaError) {
        let started = ContinuousClock.now
        defer { StageTimes.add("probe", seconds: started.duration(to: .now).seconds) }
        let size = try InputCheck.regularFile(path)
        input = try InputFile(path: path)
        info = try Probe.inspect(input, sizeBytes: size)
    }

    /// The plan of an edit of this file: `specs` (ranges in time order, not overlapping; one for a cut) written one
    /// after another into one output, the muxer chosen from `outputName` (the final name, by its extension). Range k
    /// starts with the first frame range k−1 did not show. Smart joins need every range smart and sharing one sample
    /// entry; otherwise every range is planned exactly (`smart_fallback`) — with everything else, the audio's
    /// handling included, decided as for any exact edit.
    public func plan(_ specs: [CutSpec], labels: [String?] = [], outputName: String) throws(MediaError) -> EditPlan {
        guard let first = specs.first else {
            throw MediaError(.invalidRange, path: info.path, operation: "ranges", reason: "no range to keep")
        }
        var (drafts, edit) = try planRanges(specs, outputName: outputName, exact: false)
        edit.labels = labels
        edit.audioSeams = first.settings.audioSeams
        switch try EditPlanner.plan(drafts, edit: edit) {
        case let .plan(plan):
            return plan
        case let .replanExact(why):
            (drafts, edit) = try planRanges(specs, outputName: outputName, exact: true)
            edit.labels = labels
            edit.audioSeams = first.settings.audioSeams
            edit.replannedBecause = why
            guard case let .plan(plan) = try EditPlanner.plan(drafts, edit: edit) else {
                throw MediaError(.decodeFailed, path: info.path, operation: "plan join", reason: "the exact join could not be planned")
            }
            return plan
        }
    }

    /// Each range's draft and what the edit is planned from (the first range's survey, the streams kept); `exact`:
    /// smart was asked but cannot join, so every range is planned exactly.
    private func planRanges(_ specs: [CutSpec], outputName: String, exact: Bool) throws(MediaError) -> ([RangeDraft], EditPlanner.Edit) {
        var drafts: [RangeDraft] = []
        var edit: EditPlanner.Edit?
        let joins = specs.count > 1
        for (number, original) in specs.enumerated() {
            var spec = original
            if exact { spec.settings.mode = .exact }
            var (facts, draft) = try planRange(spec, outputName: outputName, joins: joins)
            if edit == nil {
                let selection = try StreamSelection.choose(facts)
                edit = EditPlanner.Edit(source: facts, streams: selection.streams, streamNotices: selection.notices)
            }
            if let previous = drafts.last {
                draft = try following(previous, draft, spec: spec, facts: facts, number: number + 1, outputName: outputName, joins: joins)
            }
            drafts.append(draft)
        }
        guard let edit else { throw MediaError(.invalidRange, path: info.path, operation: "ranges", reason: "no range to keep") }
        return (drafts, edit)
    }

    /// Range `number` as planned, or — where its first frame is one the range before already shows (touching
    /// ranges: `0..3` then `3..6` of 29.97 fps both hold the frame at 2.97) — planned again from the first frame
    /// the range before did not show. Its requested range and label stay as given.
    private func following(_ previous: RangeDraft, _ draft: RangeDraft, spec: CutSpec, facts: CutFacts, number: Int, outputName: String,
                           joins: Bool) throws(MediaError) -> RangeDraft {
        guard let before = previous.range.video, let video = draft.range.video, let stream = facts.video,
              video.frameAtStart <= before.lastWanted else { return draft }
        // The next frame's time rounded up to the µs, so the frame at it is that frame and not the one before.
        var startMicro = Int64(0).minus(Rescale.ticks(Int64(0).minus(before.lastWantedEnd), from: stream.timeBase, to: Rational(1, 1_000_000),
                                                      roundingDown: true))
        for _ in 0..<2 {
            var moved = spec
            moved.startSeconds = Micro.seconds(startMicro.minus(facts.originMicro))
            guard moved.startSeconds < spec.endSeconds else { break }
            let replanned = try planRange(moved, outputName: outputName, joins: joins).draft
            if let shown = replanned.range.video, shown.frameAtStart > before.lastWanted { return replanned }
            startMicro = startMicro.plus(1)
        }
        throw MediaError(.invalidRange, path: info.path, operation: "ranges",
                         reason: "range \(number) shows no frame that range \(number - 1) does not already show")
    }

    /// One range's draft (`RangePlanner`), from the packets around its edges (`CutSurvey`) and how much of a truncated
    /// input is readable; and the facts it was made from.
    private func planRange(_ spec: CutSpec, outputName: String, joins: Bool) throws(MediaError) -> (facts: CutFacts, draft: RangeDraft) {
        try StageTimes.measure("plan") { () throws(MediaError) -> (facts: CutFacts, draft: RangeDraft) in
            var facts = try CutSurvey(input: input, path: info.path, trials: trials).facts(spec, outputName: outputName, joins: joins)
            if let why = info.shortfall, let readable = Micro.from(seconds: info.readableDurationSeconds) {
                facts.readableEnd = (input.originMicro.plus(readable), why)
            }
            return (facts, try RangePlanner.plan(facts, joins: joins))
        }
    }
}

extension CutSource {
    /// The plan of a cut of sound into its own container (`SoundContainer`, by the output's extension): `ranges` in the
    /// container's seconds, in time order; several are joined.
    public func planSound(_ ranges: [(start: Double, end: Double)], outputName: String) throws(MediaError) -> SoundPlan {
        guard let container = SoundContainer(fileName: outputName) else {
            throw MediaError(.unsupportedContainer, path: info.path, operation: "plan sound", reason: "\(outputName) is not a sound container")
        }
        return try StageTimes.measure("plan") { () throws(MediaError) -> SoundPlan in
            // A truncated input: its edges are read where it can be read (the planner refuses or shortens the range).
            let readable = info.shortfall.map { ($0, info.readableDurationSeconds) }
            let (facts, samples) = try SoundSurvey(input: input, path: info.path).facts(outputName: outputName, container: container,
                                                                                       rangesSeconds: ranges, readable: readable)
            return try SoundPlanner.plan(facts, ranges: samples, path: info.path)
        }
    }
}
