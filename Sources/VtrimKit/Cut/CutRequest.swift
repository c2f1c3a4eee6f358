import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore
import WorkerProtocol

public typealias CutMode = MediaEngine.CutMode
public typealias CutSettings = MediaEngine.CutSettings
public typealias ThreadBudget = MediaEngine.ThreadBudget
public typealias ParameterSetPlacement = SampleEntryPlan.Placement
public typealias ChapterPolicy = MediaEngine.ChapterPolicy
public typealias AudioSeams = MediaEngine.AudioSeams
/// The benchmarks' stage clock (`VTRIM_STAGE_TIMES`).
public typealias StageTimes = MediaEngine.StageTimes

/// One segment to cut: from the command line (`--start/--end|--length`) or a row of a cut list.
public struct CutSegment: Sendable, Equatable {
    public var start: TimeSpec
    public var end: TimeSpec?
    public var lengthSeconds: Double?
    public var label: String?
    /// How the user gave the range (`--keep 2..3.5`, `r.csv range 3`), for messages about it; nil for
    /// `--start/--end`, which messages name by those flags.
    public var source: String?

    public init(start: TimeSpec, end: TimeSpec?, lengthSeconds: Double?, label: String? = nil, source: String? = nil) {
        self.start = start
        self.end = end
        self.lengthSeconds = lengthSeconds
        self.label = label
        self.source = source
    }
}

/// `vtrim cut` options: the same segments on every input.
public struct CutRequest: Sendable {
    public var segments: [CutSegment]
    /// The segments come from `--list` (one output each, named per row).
    public var fromList: Bool
    /// The mode and encoder quality asked for; nil: each edit's default (`EditDefaults`: a join is smart where its
    /// video and output allow, a cut a copy; the quality the mode's).
    public var mode: CutMode?
    public var crf: Int?
    /// How each segment is cut besides (preset, threads, faststart, sample entry, chapters, audio seams); its mode and
    /// quality are each edit's (`settings(mode:)`).
    public var settings: CutSettings
    public var minDurationSeconds: Double?
    public var maxDurationSeconds: Double?
    public var clamp: Bool
    public var output: OutputNamer
    public var overwrite: Bool
    public var skipExisting: Bool
    public var dryRun: Bool
    public var strict: Bool
    /// Ranges joined into one output per input (`--keep`, `--remove`, `--list … --join`); nil: one output per segment.
    public var join: JoinRanges?
    /// `--propose KINDS`: each input's join keeps the ranges a proposal finds in it (`join` is then replaced per input).
    public var propose: ProposeRequest?
    /// `--propose` with `--join` (one output); without it each proposed range becomes an output of its own, as a cut
    /// list's rows do (`split(by:)`).
    public var proposalJoins = true
    /// A split proposal's notes and warnings (said with its first output) and each range's scene score, where a scene
    /// cut opens it.
    var splitNotes: [MediaWarning] = []
    var splitWarnings: [MediaWarning] = []
    var splitSceneScores: [Double?] = []
    /// `--propose` without `--join`.
    var splitsProposal: Bool { propose != nil && !proposalJoins }
    /// `--export-list`: the ranges this run keeps, written as a cut list (one input only).
    public var export: ListExport?
    /// What reading `--list` found worth a warning (an EDL read from 0 rather than its clip's timecode): every
    /// input's report carries it, and `--strict` refuses on it.
    public var listWarnings: [String] = []
    /// How URL inputs are read.
    public var remote = RemoteRequest()

    var listWarningItems: [MediaWarning] { listWarnings.map { MediaWarning(code: "list_origin", message: $0) } }

    /// The settings of an edit made in `mode`: the quality asked for, or the mode's.
    func settings(mode: CutMode) -> CutSettings {
        var made = settings
        made.mode = mode
        made.crf = crf ?? EditDefaults.crf(for: mode)
        made.exactCRF = crf ?? EditDefaults.crf(for: .exact)
        return made
    }

    public init(segments: [CutSegment], fromList: Bool = false, mode: CutMode?, crf: Int?, preset: String,
                minDurationSeconds: Double?, maxDurationSeconds: Double?, clamp: Bool, output: OutputNamer,
                overwrite: Bool, skipExisting: Bool = false, dryRun: Bool, strict: Bool,
                threads: ThreadBudget = .share(cores: 1, jobs: 1), faststart: Bool = false,
                sampleEntry: SampleEntryPlan.Placement = .outOfBand, chapters: ChapterPolicy = .keep) {
        self.mode = mode
        self.crf = crf
        settings = CutSettings(mode: mode ?? .copy, crf: crf ?? EditDefaults.crf(for: mode ?? .copy), preset: preset, threads: threads,
                               faststart: faststart, sampleEntry: sampleEntry, exactCRF: crf ?? EditDefaults.crf(for: .exact))
        settings.chapters = chapters
        self.segments = segments
        self.fromList = fromList
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.clamp = clamp
        self.output = output
        self.overwrite = overwrite
        self.skipExisting = skipExisting
        self.dryRun = dryRun
        self.strict = strict
    }

    /// How many outputs each input gets: one for a join or a range, one per row of a cut list (or proposed range).
    public var outputCount: Int { join != nil ? 1 : segments.count }

    /// Each proposed range to an output of its own, named as a cut list's rows (`{stem}.{index}.cut.{ext}`, which
    /// folder walks leave out as vtrim's outputs).
    mutating func split(by proposal: JoinRanges, sceneScores: [Double?]) {
        segments = proposal.ranges
        fromList = true
        splitNotes = proposal.notes
        splitWarnings = proposal.warnings
        splitSceneScores = sceneScores
    }

    /// The outputs an input is known to claim before it is read (for the collision check across inputs): a split
    /// proposal's ranges are found later, so its first output's name stands for them all.
    public func claimedOutputPaths(for item: InputItem, index: Int) -> [String] {
        guard splitsProposal else {
            return (0..<outputCount).map { outputPath(for: item, index: index, segment: $0) }
        }
        var first = self
        first.segments = [CutSegment(start: .seconds(0), end: nil, lengthSeconds: nil)]
        first.fromList = true
        return [first.outputPath(for: item, index: index, segment: 0)]
    }

    /// What output `output` of a file of `duration` seconds holds: its ranges resolved against the file, their
    /// labels (a join's chapters may be named by them) and the report's shape.
    func edit(output: Int, durationSeconds duration: Double, path: String) throws(MediaError) -> (ranges: [CutRange], labels: [String?], shape: EditShape) {
        if let join {
            let ranges = try join.resolve(request: self, durationSeconds: duration, path: path)
            return (ranges, join.removes ? ranges.map { _ in nil } : join.ranges.map(\.label), .join)
        }
        guard let segment = segments[safe: output] else {
            throw MediaError(.invalidRange, path: path, operation: "ranges", reason: "no range \(output + 1) to cut")
        }
        var range = try CutRange.resolve(segment, request: self, durationSeconds: duration, path: path)
        if output == 0 {
            range.notes += splitNotes
            range.warnings += splitWarnings
        }
        return ([range], [], .cut)
    }

    /// The ranges a run keeps in a file of `duration` seconds (for `--export-list`): a join's, the list's
    /// rows, or the one range.
    public func keptRanges(durationSeconds: Double, path: String) throws(CutListError) -> [ListRange] {
        do throws(MediaError) { return try resolvedRanges(durationSeconds: durationSeconds, path: path) } catch {
            throw CutListError(message: error.message)
        }
    }

    private func resolvedRanges(durationSeconds: Double, path: String) throws(MediaError) -> [ListRange] {
        if let join {
            let ranges = try join.resolve(request: self, durationSeconds: durationSeconds, path: path)
            let labels = join.removes ? [] : join.ranges.map(\.label)
            return ranges.enumerated().map { index, range in
                ListRange(startSeconds: range.effectiveStart, endSeconds: range.effectiveEnd, label: index < labels.count ? labels[index] : nil)
            }
        }
        var kept: [ListRange] = []
        for segment in segments {
            let range = try CutRange.resolve(segment, request: self, durationSeconds: durationSeconds, path: path)
            kept.append(ListRange(startSeconds: range.effectiveStart, endSeconds: range.effectiveEnd, label: segment.label))
        }
        return kept
    }

    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// The default output name: `<stem>.cut.<ext>` with the input's extension (mp4 without one);
    /// for a cut list `<stem>.<row>.cut.<ext>`, or the row's label in place of the number.
    public static func suffix(for input: String) -> String {
        ".cut." + outputExtension(for: input)
    }

    /// The input's own extension where cuts are written to it, else Matroska's (it holds nearly every
    /// codec); mp4 for an input without one.
    public static func outputExtension(for input: String) -> String { CutOutputName.outputExtension(for: input) }


    /// The output of segment `segment` of the `index`-th input.
    public func outputPath(for item: InputItem, index: Int, segment: Int) -> String {
        if join != nil {
            return output.path(for: item, defaultName: "{stem}.cut.{ext}", fields: [
                "ext": Self.outputExtension(for: item.path), "index": String(index + 1), "label": "joined", "start": "joined", "end": "joined",
            ])
        }
        let row = segments[segment]
        let number = String(segment + 1)
        let padded = String(repeating: "0", count: max(0, String(segments.count).count - number.count)) + number
        let defaultName = fromList ? (row.label != nil ? "{stem}.{label}.cut.{ext}" : "{stem}.{index}.cut.{ext}") : "{stem}.cut.{ext}"
        return output.path(for: item, defaultName: defaultName, fields: [
            "ext": Self.outputExtension(for: item.path),
            "index": fromList ? padded : String(index + 1),
            "label": row.label.map(OutputNamer.sanitize) ?? padded,
            "start": TimeSpecText.describe(row.start),
            "end": row.end.map(TimeSpecText.describe) ?? (row.lengthSeconds.map { "+" + JSON.format($0) } ?? "end"),
        ])
    }
}

/// Whether a cut can be written to an output name (for the command line's checks), and which extensions can.
public func canWrite(fileName: String) -> Bool { EditOutput.canWrite(fileName: fileName) }
public var cutExtensions: [String] { EditOutput.extensions }

extension CutSegment {
    /// What is wrong with `--start/--end|--length` whatever the file: an empty range (both times from the start, or
    /// both from the end), or a known length under --min-duration without --clamp (a file can only shorten it; a
    /// length over --max-duration may fit once the end is clamped to the file's). Nil when only the file can tell
    /// (`CutRange.resolve`).
    public func problemBeforeReading(minDurationSeconds minimum: Double?, clamp: Bool) -> String? {
        let length: Double?
        switch (start, end) {
        case let (.seconds(from), .seconds(to)?): length = to - from
        case let (.beforeEnd(from), .beforeEnd(to)?): length = from - to
        case (_, nil): length = lengthSeconds
        default: length = nil
        }
        guard let length else { return nil }
        if length <= 0 {
            return "the range \(TimeSpecText.describe(start))–\(end.map(TimeSpecText.describe) ?? "?") is empty; --end must be after --start"
        }
        guard !clamp else { return nil }
        if let minimum, length < minimum {
            return "the range is \(Human.seconds(length)) long, shorter than --min-duration \(Human.seconds(minimum)) (use --clamp to lengthen it)"
        }
        return nil
    }
}
