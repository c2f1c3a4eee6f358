/// How to cut, whatever the range: the settings a cut request carries and its plan is made with.
public struct CutSettings: Sendable, Equatable, Codable {
    public var mode: CutPlan.Mode
    /// Re-encoding: encoder quality (CRF) and speed preset (x264 names).
    public var crf: Int
    public var preset: String
    public var threads: ThreadBudget
    /// MP4/MOV: put the index before the media (for playback while downloading).
    public var faststart: Bool
    /// H.264/HEVC into MP4/MOV: parameter sets in the sample entry (avc1/hvc1) or in the samples (avc3/hev1).
    public var sampleEntry: SampleEntryPlan.Placement
    /// What happens to the source's chapters.
    public var chapters: ChapterPolicy = .keep
    /// Joins: how the audio meets at the seams (exact joins re-encode it whatever this says).
    public var audioSeams: AudioSeams = .nearest

    public init(mode: CutPlan.Mode, crf: Int = 20, preset: String = "veryfast", threads: ThreadBudget = .share(cores: 1, jobs: 1),
                faststart: Bool = false, sampleEntry: SampleEntryPlan.Placement = .outOfBand) {
        self.mode = mode
        self.crf = crf
        self.preset = preset
        self.threads = threads
        self.faststart = faststart
        self.sampleEntry = sampleEntry
    }
}

/// What to cut: a range on the source's presentation timeline (seconds, 0 = container start), and how.
public struct CutSpec: Sendable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var settings: CutSettings
    /// One range of a join.
    public var joinsRanges = false

    public init(startSeconds: Double, endSeconds: Double, settings: CutSettings) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.settings = settings
    }

    var mode: CutPlan.Mode { settings.mode }
}

/// What the writer found while running: run-time notes and warnings (damaged frames, an early end).
public struct CutRun: Sendable {
    public var notices: [CutNotice]
    /// How much later than written the muxer put everything (a format without negative times, shifting
    /// an exact cut's first decode times to 0): measured times minus this are the times written.
    public var muxerShiftSeconds: Double = 0
    /// The first video frame's presentation time as written (before the muxer), on the output's timeline.
    public var writtenVideoStartSeconds: Double?
    /// A join: each seam's audio offset against the video (seconds; positive: audio later), one per range after the first.
    public var audioSeamOffsetsSeconds: [Double] = []
}

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
        var plans = try planRanges(specs, outputName: outputName, exactBecause: nil)
        switch try EditPlanner.plan(plans, labels: labels, chapterPolicy: first.settings.chapters, audioSeams: first.settings.audioSeams,
                                    path: info.path) {
        case let .plan(plan):
            return plan
        case let .replanExact(why):
            plans = try planRanges(specs, outputName: outputName, exactBecause: why)
            guard case let .plan(plan) = try EditPlanner.plan(plans, labels: labels, chapterPolicy: first.settings.chapters,
                                                              audioSeams: first.settings.audioSeams, path: info.path) else {
                throw MediaError(.decodeFailed, path: info.path, operation: "plan join", reason: "the exact join could not be planned")
            }
            return plan
        }
    }

    /// Each range's own plan; `exactBecause`: smart was asked but cannot join, so every range is planned exactly.
    private func planRanges(_ specs: [CutSpec], outputName: String, exactBecause why: SmartFallback?) throws(MediaError) -> [CutPlan] {
        var plans: [CutPlan] = []
        for (number, original) in specs.enumerated() {
            var spec = original
            spec.joinsRanges = specs.count > 1
            if why != nil { spec.settings.mode = .exact }
            var plan = try planRange(spec, outputName: outputName)
            if let previous = plans.last { plan = try following(previous, plan, spec: spec, number: number + 1, outputName: outputName) }
            if let why {
                plan.requestedMode = .smart
                plan.smartFallback = why
                plan.notices.removeAll { if case .smartFallback = $0 { return true } else { return false } }
                plan.notices.insert(.smartFallback(why), at: 0)
            }
            plans.append(plan)
        }
        return plans
    }

    /// Range `number` as planned, or — where its first frame is one the range before already shows (touching
    /// ranges: `0..3` then `3..6` of 29.97 fps both hold the frame at 2.97) — planned again from the first frame
    /// the range before did not show. Its requested range and label stay as given.
    private func following(_ previous: CutPlan, _ plan: CutPlan, spec: CutSpec, number: Int, outputName: String) throws(MediaError) -> CutPlan {
        guard let before = previous.video, let video = plan.video, video.frameAtStart <= before.lastWanted else { return plan }
        // The next frame's time rounded up to the µs, so the frame at it is that frame and not the one before.
        var startMicro = Int64(0).minus(Rescale.ticks(Int64(0).minus(before.lastWantedEnd), from: before.timeBase, to: Rational(1, 1_000_000),
                                                      roundingDown: true))
        for _ in 0..<2 {
            var moved = spec
            moved.startSeconds = previous.seconds(micro: startMicro)
            guard moved.startSeconds < spec.endSeconds else { break }
            let replanned = try planRange(moved, outputName: outputName)
            if let shown = replanned.video, shown.frameAtStart > before.lastWanted { return replanned }
            startMicro = startMicro.plus(1)
        }
        throw MediaError(.invalidRange, path: info.path, operation: "ranges",
                         reason: "range \(number) shows no frame that range \(number - 1) does not already show")
    }

    /// One range's plan (`CutPlanner`), from the packets around its edges.
    private func planRange(_ spec: CutSpec, outputName: String) throws(MediaError) -> CutPlan {
        try StageTimes.measure("plan") { () throws(MediaError) -> CutPlan in
            var facts = try CutSurvey(input: input, path: info.path, trials: trials).facts(spec, outputName: outputName)
            if let why = info.shortfall, let readable = Micro.from(seconds: info.readableDurationSeconds) {
                facts.readableEnd = (input.originMicro.plus(readable), why)
            }
            return try CutPlanner.plan(facts)
        }
    }
}
