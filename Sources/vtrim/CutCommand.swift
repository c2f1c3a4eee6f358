import ArgumentParser
import DiskNames
import Foundation
import LibraryFiles
import TimelineCore
import VtrimKit
import WorkerProtocol

extension CutMode: ExpressibleByArgument {}
extension ChapterPolicy: ExpressibleByArgument {}
extension AudioSeams: ExpressibleByArgument {}

struct CutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cut",
        abstract: "Write the segment [--start, --end) of each input to a new file.",
        discussion: """
        copy (default): stream copy from the keyframe at or before --start; in MP4/MOV an edit list hides the \
        lead-in so players start at --start. keyframe: starts at that keyframe, lead-in shown. exact: re-encodes \
        the video so the first frame is the one shown at --start and the last the one shown just before --end. \
        smart: as exact, but re-encodes only the partial groups of pictures at the edges and copies the rest. \
        Every output is read back and its actual start, end and duration are reported.
        """
    )

    @OptionGroup var common: CommonOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup var outputs: OutputOptions
    @OptionGroup(title: "URL inputs") var remote: RemoteOptions

    @Argument(help: "Media files, folders with -r, or URLs (files, HLS playlists, DASH manifests).")
    var inputs: [String]

    @Option(parsing: .unconditional, help: "Start of the segment (default: the beginning).", transform: TimeArgument.time)
    var start: TimeSpec?

    @Option(parsing: .unconditional, help: "End of the segment, exclusive (default: the end of the file).", transform: TimeArgument.time)
    var end: TimeSpec?

    @Option(help: ArgumentHelp("Length of the segment instead of --end.", valueName: "seconds"), transform: TimeArgument.seconds)
    var length: Seconds?

    @Option(help: ArgumentHelp("A cut list (CSV rows start,end,label, as LosslessCut exports): one output per row.", valueName: "file"))
    var list: String?

    @Option(help: ArgumentHelp("Keep the range A..B (any time syntax on either side, e.g. 1:02..end-5); repeat to keep several, joined into one output in time order.", valueName: "A..B"),
            transform: { try RangeArgument(flag: "--keep", text: $0) })
    var keep: [RangeArgument] = []

    @Option(help: ArgumentHelp("Remove the range A..B and join what is left; repeatable.", valueName: "A..B"),
            transform: { try RangeArgument(flag: "--remove", text: $0) })
    var remove: [RangeArgument] = []

    @Flag(help: "With --list: join the list's ranges into one output instead of one output per row (with --propose: the proposed ranges, else one clip each).")
    var join = false

    @Option(help: ArgumentHelp("Keep the ranges `vtrim propose` finds: silence[=DB], black, scenes[=T], separated by commas; each to a clip of its own ({stem}.{index}.cut.{ext}), or with --join into one output.", valueName: "kinds"))
    var propose: String?

    @OptionGroup(title: "Proposals (--propose)") var proposing: ProposalOptions

    @Option(name: .customLong("list-format"),
            help: "How --list (and --export-list) is read: csv (LosslessCut CSV), llc (LosslessCut project), otio (OpenTimelineIO), edl (CMX3600), chapters (YouTube chapter text). Default: by extension, csv for any other.")
    var listFormat: CutListFormat?

    @Option(name: .customLong("export-list"), help: ArgumentHelp("Write the ranges this run uses to a cut list, in the format its extension (or --list-format) names (never over a file without --overwrite; a dry run writes nothing).", valueName: "file"))
    var exportList: String?

    @Option(name: .customLong("list-rate"),
            help: ArgumentHelp("EDLs: the SMPTE rate their timecodes count in (\(SMPTERate.listed)). Default: the clip's, where it is one; required to write an EDL of a clip at any other rate.", valueName: "rate"))
    var listRate: SMPTERate?

    @Option(name: .customLong("list-origin"),
            help: "EDLs read: where source times count from: timecode (the clip's start timecode), zero, or auto (the start timecode, unless every event lies before it: then 0, with a warning).")
    var listOrigin: ListOrigin = .auto

    @Option(help: ArgumentHelp(CutDefaults.modeHelp))
    var mode: CutMode?

    @Option(help: "Exact and smart modes: encoder quality, lower is better (x264/x265 CRF scale; default 20 exact, 16 smart).")
    var crf: Int?

    @Option(help: "Exact mode: encoder speed preset (x264 names).")
    var preset = CutDefaults.preset

    @Option(name: .customLong("min-duration"), help: "Refuse segments shorter than this (or adjust them with --clamp).", transform: TimeArgument.seconds)
    var minDuration: Seconds?

    @Option(name: .customLong("max-duration"), help: "Refuse segments longer than this (or adjust them with --clamp).", transform: TimeArgument.seconds)
    var maxDuration: Seconds?

    @Flag(help: "Adjust a range outside --min-duration/--max-duration instead of refusing it.")
    var clamp = false

    @Flag(name: .customLong("dry-run"), help: "Print the plan (keyframe, pre-roll, expected span); write nothing.")
    var dryRun = false

    @Flag(help: "MP4/MOV: put the index before the media, so playback can start while the file downloads.")
    var faststart = false

    @Option(name: .customLong("sample-entry"),
            help: ArgumentHelp("H.264/HEVC in MP4/MOV, copy and smart cuts: out-of-band (avc1/hvc1, every parameter set in the sample entry: what Apple's players need) or in-band (avc3/hev1, sets in the samples). avc1, hvc1, avc3 and hev1 name the same choices.",
                               valueName: "placement"))
    var sampleEntry: SampleEntryChoice = .outOfBand

    @Option(help: "keep (the source's chapters, clipped to the cut and on its timeline), ranges (one chapter per kept range) or none.")
    var chapters: ChapterPolicy = .keep

    @Option(name: .customLong("audio-seams"),
            help: "Joins: nearest (audio copied, following on from the packet nearest its place: within half an audio frame) or exact (re-encoded, exact to the sample; MP4/MOV). Exact joins always re-encode it.")
    var audioSeams: AudioSeams = .nearest

    private var joins: Bool { !keep.isEmpty || !remove.isEmpty || join }

    func validate() throws {
        try BatchRun(common: common, batch: batch).validateInputs(inputs)
        try outputs.validate(inputs: inputs, recursive: common.recursive)
        if !keep.isEmpty, !remove.isEmpty { throw ValidationError("--keep and --remove exclude each other; choose one") }
        if let propose {
            if !join, outputs.output != nil {
                throw ValidationError("--propose without --join writes one clip per proposed range; use --output-dir or --name instead of -o (or add --join)")
            }
            if !join, let name = outputs.name, !OutputNamer.distinguishesRows(name) {
                throw ValidationError("--name \(name) would give every proposed range the same name; put {index}, {start}, {end} or {label} in it")
            }
            if list != nil || !keep.isEmpty || !remove.isEmpty || start != nil || end != nil || length != nil {
                throw ValidationError("--propose finds the ranges; drop --list, --keep, --remove, --start, --end and --length")
            }
            if case let .failure(error) = ProposeRequest.make(kinds: propose, tuning: proposing.tuning) {
                throw ValidationError("--propose \(propose): \(error.message)")
            }
        } else if join, list == nil {
            throw ValidationError("--join joins the ranges of a --list; give --keep to join ranges from the command line")
        }
        if propose == nil, proposing.anyGiven {
            throw ValidationError("--min-silence, --min-black, --min-scene, --pad, --snap and --snap-within tune --propose; give --propose or drop them")
        }
        if !keep.isEmpty || !remove.isEmpty {
            if start != nil || end != nil || length != nil || list != nil {
                throw ValidationError("--\(keep.isEmpty ? "remove" : "keep") gives the ranges; drop --start, --end, --length and --list")
            }
            if let problem = JoinRanges.orderProblem((keep.isEmpty ? remove : keep).map(\.segment)) { throw ValidationError(problem) }
        } else if propose != nil {
        } else if list != nil {
            if start != nil || end != nil || length != nil { throw ValidationError("--list gives the segments; drop --start, --end and --length") }
            if outputs.output != nil, !join { throw ValidationError("--list writes one output per row; use --output-dir or --name instead of -o (or --join)") }
            if !join, let name = outputs.name, !OutputNamer.distinguishesRows(name) {
                throw ValidationError("--name \(name) would give every row of the list the same name; put {index}, {start}, {end} or {label} in it")
            }
        } else {
            // --start defaults to the beginning and --end to the end of the file; cutting nothing out is no cut.
            if start == nil, end == nil, length == nil { throw ValidationError("give --start, --end or --length (or --list)") }
            if end != nil, length != nil { throw ValidationError("--end and --length exclude each other; choose one") }
            let segment = CutSegment(start: start ?? .seconds(0), end: end, lengthSeconds: length?.value)
            if let problem = segment.problemBeforeReading(minDurationSeconds: minDuration?.value, clamp: clamp) {
                throw ValidationError(problem)
            }
        }
        if let output = outputs.output, output.lowercased().hasSuffix(".m3u8") {
            // A manifest cut: a playlist of new edge segments and the source's own.
            guard inputs.count == 1, RemoteNames.isURL(inputs[0]) else {
                throw ValidationError("-o \(output) writes a playlist (a manifest cut): give one HLS playlist URL as the input")
            }
        } else if let output = outputs.output, !VtrimKit.canWrite(fileName: output) {
            throw ValidationError("cuts are written as \(VtrimKit.cutExtensions.map { "." + $0 }.joined(separator: ", ")); \(output) is none of them")
        }
        if exportList != nil, inputs.count != 1 || common.recursive {
            throw ValidationError("--export-list writes the ranges of one input; give one file")
        }
        if let crf, !(0...51).contains(crf) { throw ValidationError("--crf must be between 0 and 51") }
        if !CutRequest.presets.contains(preset) { throw ValidationError("--preset must be one of \(CutRequest.presets.joined(separator: ", "))") }
        if let minDuration, let maxDuration, minDuration.value > maxDuration.value {
            throw ValidationError("--min-duration is longer than --max-duration")
        }
        if clamp, minDuration == nil, maxDuration == nil {
            throw ValidationError("--clamp adjusts ranges to --min-duration/--max-duration; give at least one")
        }
    }

    /// The segments: from --list, or the one --start/--end|--length gives; and what reading the list warns of.
    private func segments() throws -> (segments: [CutSegment], warnings: [String]) {
        guard let list else {
            return ([CutSegment(start: start ?? .seconds(0), end: end ?? (length == nil ? .beforeEnd(0) : nil), lengthSeconds: length?.value)], [])
        }
        // Read as bytes: a name in it that is not UTF-8 (as `--export-list` writes one) names its file.
        guard let bytes = DiskFile.contents(list) else {
            throw ValidationError("cannot read the cut list \(DiskName.display(list)): \(String(cString: strerror(errno)))")
        }
        let text = DiskName.string(bytes: bytes)
        let format = listFormat ?? CutListFormat(fileName: list)
        do {
            // An EDL counts frames at the clip's rate: the (first) input says which.
            let media = try format.needsFrameRate ? inputs.first.map { path throws in try ListMedia.of(path: path) } : nil
            let reading = try CutLists.read(text, format: format, media: media, timing: ListTiming(rate: listRate, origin: listOrigin))
            if reading.segments.isEmpty { throw ValidationError("the cut list \(list) has no ranges") }
            for note in reading.notes { FileHandle.standardError.write(Data("vtrim: note: cut list \(list): \(note)\n".utf8)) }
            let name = (list as NSString).lastPathComponent
            let segments = reading.segments.enumerated().map { index, segment in
                var named = segment
                named.source = "\(name) range \(index + 1)"
                return named
            }
            return (segments, reading.warnings.map { "cut list \(list): \($0)" })
        } catch let error as CutList.ParseError {
            throw ValidationError("cut list \(list), \(error.description)")
        } catch let error as CutListError {
            throw ValidationError("cut list \(list): \(error.message)")
        }
    }

    func run() throws {
        // For the benchmarks: where the time went, on stderr (undocumented for users; see CONTRIBUTING.md).
        let timesStages = ProcessInfo.processInfo.environment["VTRIM_STAGE_TIMES"] != nil
        if timesStages { StageTimes.start() }
        defer {
            if timesStages { FileHandle.standardError.write(Data("vtrim: stages: \(StageTimes.summary())\n".utf8)) }
        }
        let runner = BatchRun(common: common, batch: batch)
        let items = try runner.items(inputs)
        let (jobs, _) = runner.parallelism(count: items.count)
        var segments: [CutSegment] = [], listWarnings: [String] = []
        if keep.isEmpty, remove.isEmpty, propose == nil { (segments, listWarnings) = try self.segments() }
        if join, let problem = JoinRanges.orderProblem(segments) { throw ValidationError("cut list \(list ?? ""): \(problem)") }
        var request = CutRequest(
            segments: segments, fromList: list != nil && !joins, mode: mode, crf: crf, preset: preset,
            minDurationSeconds: minDuration?.value, maxDurationSeconds: maxDuration?.value, clamp: clamp,
            output: try outputs.namer(), overwrite: outputs.overwrite, skipExisting: outputs.skipExisting,
            dryRun: dryRun, strict: common.strict,
            threads: .share(cores: BatchRunner.cores, jobs: jobs), faststart: faststart,
            sampleEntry: sampleEntry.placement, chapters: chapters)
        request.settings.audioSeams = audioSeams
        request.remote = remote.request
        request.listWarnings = listWarnings
        if joins {
            let given = keep.isEmpty ? remove : keep
            request.join = JoinRanges(ranges: join ? segments : given.map(\.segment), removes: !remove.isEmpty)
        }
        if let propose, case var .success(proposal) = ProposeRequest.make(kinds: propose, tuning: proposing.tuning) {
            proposal.threads = BatchRunner.threadsPerJob(jobs: jobs)
            request.propose = proposal
            request.proposalJoins = join
        }
        if let exportList {
            request.export = ListExport(path: exportList, format: listFormat ?? CutListFormat(fileName: exportList),
                                        timing: ListTiming(rate: listRate, origin: listOrigin))
        }
        let planned = request
        try runner.run(items, outputs: { index, item in
            planned.claimedOutputPaths(for: item, index: index)
        }) { index, item, writer in
            EditJob.run(item: item, index: index, request: planned) { writer.advanced(index, fraction: $0) }
        }
    }
}

extension CutListFormat: ExpressibleByArgument {}

extension SMPTERate: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
}

extension ListOrigin: ExpressibleByArgument {}

/// `A..B` for `--keep`/`--remove`.
struct RangeArgument {
    let segment: CutSegment

    /// The range, named in messages as given (`--keep 2..3.5`).
    init(flag: String, text: String) throws {
        guard var segment = JoinRanges.parse(text) else { throw ValidationError("\(flag) \(text): \(JoinRanges.whyNot(text))") }
        segment.source = "\(flag) \(text)"
        self.segment = segment
    }
}

/// `--sample-entry`: where an H.264/HEVC video's parameter sets go.
enum SampleEntryChoice: String, ExpressibleByArgument, CaseIterable {
    case outOfBand = "out-of-band", inBand = "in-band", avc1, hvc1, avc3, hev1

    var placement: ParameterSetPlacement {
        switch self {
        case .outOfBand, .avc1, .hvc1: return .outOfBand
        case .inBand, .avc3, .hev1: return .inBand
        }
    }
}
