import ArgumentParser
import Foundation
import VtrimKit
import WorkerProtocol

struct ProposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "propose",
        abstract: "Find the ranges worth keeping in each input: silences, black and scene changes.",
        discussion: """
        Silences (--silence, audio only decoded) and black spans (--black) are gaps: everything else is kept, with \
        --pad around it. Seams are moved inside each gap's slack onto the video's clean starts (--snap keyframes), \
        so a smart join (vtrim cut --keep … or --list … --join) copies the ranges whole. Scenes (--scenes) split the \
        kept ranges at each cut. Prints the detections and the ranges; -o writes them as a cut list. \
        Give values as --silence=-35 and --scenes=30.
        """
    )

    @OptionGroup var common: CommonOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup var outputs: OutputOptions
    @OptionGroup(title: "URL inputs") var remote: RemoteOptions

    @Argument(help: "Media files, folders with -r, or URLs (files, HLS playlists, DASH manifests).")
    var inputs: [String]

    @Option(help: ArgumentHelp("Find silences: every channel under DB dBFS (--silence alone: \(Int(ProposeDefaults.silenceDB)) dB).", valueName: "DB"))
    var silence: Level?

    @Flag(help: "Find black spans (libavfilter's blackdetect: 98 % of pixels at or under 10 % luma).")
    var black = false

    @Option(help: ArgumentHelp("Find scene cuts: HSV content score at or above T (--scenes alone: \(Int(ProposeDefaults.sceneThreshold)), PySceneDetect's).", valueName: "T"))
    var scenes: Level?

    @OptionGroup var tuning: ProposalOptions

    @Option(help: "keep (the ranges to keep) or remove (what a join of them leaves out).")
    var ranges: ListedRanges = .keep

    @Option(name: .customLong("list-format"), help: "The list -o writes: csv, llc, otio, edl or chapters (default: by extension, csv).")
    var listFormat: CutListFormat?

    @Option(name: .customLong("list-rate"), help: ArgumentHelp("EDLs: the SMPTE rate their timecodes count in.", valueName: "rate"))
    var listRate: SMPTERate?

    @Flag(name: .customLong("dry-run"), help: "Analyse and print; write no list.")
    var dryRun = false

    /// The kinds as `vtrim cut --propose` takes them: `silence=-30,black,scenes=27`.
    var kinds: String {
        var parts: [String] = []
        if let silence { parts.append("silence=" + JSON.format(silence.value ?? ProposeDefaults.silenceDB)) }
        if black { parts.append("black") }
        if let scenes { parts.append("scenes=" + JSON.format(scenes.value ?? ProposeDefaults.sceneThreshold)) }
        return parts.joined(separator: ",")
    }

    func validate() throws {
        try BatchRun(common: common, batch: batch).validateInputs(inputs)
        try outputs.validate(inputs: inputs, recursive: common.recursive)
        if silence == nil, !black, scenes == nil { throw ValidationError("give what to find: --silence, --black and/or --scenes") }
        if case let .failure(error) = ProposeRequest.make(kinds: kinds, tuning: tuning.tuning) { throw ValidationError(error.message) }
    }

    func run() throws {
        let runner = BatchRun(common: common, batch: batch)
        let items = try runner.items(inputs)
        let (_, threads) = runner.parallelism(count: items.count)
        var request: ProposeRequest
        switch ProposeRequest.make(kinds: kinds, tuning: tuning.tuning) {
        case let .success(made): request = made
        case let .failure(error): throw ValidationError(error.message)
        }
        request.listsRemoved = ranges == .remove
        let writesList = outputs.output != nil || outputs.outputDir != nil || outputs.name != nil
        request.output = writesList ? try outputs.namer(creating: !dryRun) : nil
        request.format = listFormat ?? outputs.output.map { CutListFormat(fileName: $0) } ?? .csv
        request.timing = ListTiming(rate: listRate)
        request.overwrite = outputs.overwrite
        request.skipExisting = outputs.skipExisting
        request.dryRun = dryRun
        request.strict = common.strict
        request.threads = threads
        request.remote = remote.request
        let planned = request
        try runner.run(items, outputs: writesList ? { _, item in [planned.listPath(for: item)].compactMap { $0 } } : nil) { index, item, writer in
            [ProposeJob.run(item: item, request: planned) { writer.advanced(index, fraction: $0) }]
        }
    }
}

/// How proposals are tuned (`vtrim propose`, `vtrim cut --propose`); nil: the default.
struct ProposalOptions: ParsableArguments {
    @Option(name: .customLong("min-silence"), help: "Shortest silence found, seconds (default \(JSON.format(ProposeDefaults.minSilenceSeconds))).")
    var minSilenceGiven: Double?

    @Option(name: .customLong("min-black"), help: "Shortest black span found, seconds (default \(JSON.format(ProposeDefaults.minBlackSeconds))).")
    var minBlackGiven: Double?

    @Option(name: .customLong("min-scene"), help: "Shortest scene, seconds (default \(JSON.format(ProposeDefaults.minSceneSeconds))).")
    var minSceneGiven: Double?

    @Option(name: .customLong("pad"), help: "Kept around each speech or picture part, seconds (default \(JSON.format(ProposeDefaults.padSeconds))).")
    var padGiven: Double?

    @Option(name: .customLong("snap"),
            help: "keyframes (seams moved onto clean starts inside the slack) or none (seams where the pads put them, smart edges where needed); default none when removing silence, else keyframes.")
    var snapGiven: SnapChoice?

    @Option(name: .customLong("snap-within"),
            help: "How far a seam may move to reach a clean start (the silence or black it keeps), seconds (default \(JSON.format(ProposeDefaults.snapWithinSeconds))).")
    var snapWithinGiven: Double?

    var minSilence: Double { minSilenceGiven ?? ProposeDefaults.minSilenceSeconds }
    var minBlack: Double { minBlackGiven ?? ProposeDefaults.minBlackSeconds }
    var minScene: Double { minSceneGiven ?? ProposeDefaults.minSceneSeconds }
    var pad: Double { padGiven ?? ProposeDefaults.padSeconds }
    var snapWithin: Double { snapWithinGiven ?? ProposeDefaults.snapWithinSeconds }

    /// Whether any of these was given (`vtrim cut` takes them only with `--propose`).
    var anyGiven: Bool { minSilenceGiven != nil || minBlackGiven != nil || minSceneGiven != nil || padGiven != nil || snapGiven != nil || snapWithinGiven != nil }

    func validate() throws {
        if let problem = tuning.problem { throw ValidationError(problem) }
    }

    var tuning: ProposalTuning {
        var made = ProposalTuning()
        made.minSilenceSeconds = minSilence
        made.minBlackSeconds = minBlack
        made.minSceneSeconds = minScene
        made.padSeconds = pad
        made.snapsToKeyframes = snapGiven.map { $0 == .keyframes }
        made.snapWithinSeconds = snapWithin
        return made
    }
}

/// `--silence[=DB]`, `--scenes[=T]`: a bare flag is rewritten to `=default` before parsing (`ProposeArguments`).
struct Level: ExpressibleByArgument {
    /// nil: the default.
    var value: Double?

    init?(argument: String) {
        if argument == "default" { value = nil; return }
        guard let number = Double(argument.lowercased().replacingOccurrences(of: "db", with: "")), number.isFinite else { return nil }
        value = number
    }
}

enum ListedRanges: String, ExpressibleByArgument, CaseIterable {
    case keep, remove
}

enum SnapChoice: String, ExpressibleByArgument, CaseIterable {
    case keyframes, none
}

/// ArgumentParser's options always take a value; `vtrim propose --silence` (no value) means the default level. Before
/// parsing, a bare `--silence` or `--scenes` of `propose` becomes `--silence=default`, and one followed by a number
/// (`--scenes 30`, `--silence -35`, `--silence -35dB`) takes it: `--scenes=30`.
enum ProposeArguments {
    static func normalized(_ arguments: [String]) -> [String] {
        guard arguments.first == "propose" else { return arguments }
        var result: [String] = []
        var afterSeparator = false, index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { afterSeparator = true }
            if !afterSeparator, argument == "--silence" || argument == "--scenes" {
                if index + 1 < arguments.count, Level(argument: arguments[index + 1])?.value != nil {
                    result.append(argument + "=" + arguments[index + 1])
                    index += 2
                    continue
                }
                result.append(argument + "=default")
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }
}
