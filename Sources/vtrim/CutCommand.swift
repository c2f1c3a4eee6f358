import ArgumentParser
import Foundation
import TimelineCore
import VtrimKit

extension CutMode: ExpressibleByArgument {}

struct CutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cut",
        abstract: "Write the segment [--start, --end) of each input to a new file.",
        discussion: """
        copy (default): stream copy from the keyframe at or before --start; in MP4/MOV an edit list hides the
        lead-in so players start at --start. keyframe: starts at that keyframe, lead-in shown. exact: re-encodes
        the video so the first frame is the one shown at --start and the last the one shown just before --end.
        Every output is read back and its actual start, end and duration are reported.
        """
    )

    @OptionGroup var common: CommonOptions

    @Argument(help: "Media files, or folders with -r.")
    var inputs: [String]

    @Option(help: "Start of the segment.")
    var start: TimeSpec

    @Option(help: "End of the segment (exclusive).")
    var end: TimeSpec?

    @Option(help: ArgumentHelp("Length of the segment instead of --end.", valueName: "seconds"))
    var length: Seconds?

    @Option(name: [.short, .customLong("output")], help: "Output file (one input only); the muxer follows its extension.")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "Folder for the outputs (created if missing).")
    var outputDir: String?

    @Option(help: "copy, keyframe or exact.")
    var mode: CutMode = .copy

    @Option(help: "Exact mode: encoder quality, lower is better (x264/x265 CRF scale).")
    var crf = 20

    @Option(help: "Exact mode: encoder speed preset (x264 names).")
    var preset = "veryfast"

    @Option(name: .customLong("min-duration"), help: "Refuse segments shorter than this (or adjust them with --clamp).")
    var minDuration: Seconds?

    @Option(name: .customLong("max-duration"), help: "Refuse segments longer than this (or adjust them with --clamp).")
    var maxDuration: Seconds?

    @Flag(help: "Adjust a range outside --min-duration/--max-duration instead of refusing it.")
    var clamp = false

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Flag(name: .customLong("dry-run"), help: "Print the plan (keyframe, pre-roll, expected span); write nothing.")
    var dryRun = false

    func validate() throws {
        try common.validateInputs(inputs)
        if end != nil, length != nil { throw ValidationError("--end and --length exclude each other; choose one") }
        if end == nil, length == nil { throw ValidationError("give --end or --length") }
        if output != nil, outputDir != nil { throw ValidationError("-o and --output-dir exclude each other") }
        if output != nil, inputs.count != 1 || common.recursive {
            throw ValidationError("-o names one output, so it takes exactly one input file; use --output-dir for several")
        }
        if let output, !VtrimKit.canWrite(fileName: output) {
            throw ValidationError("no muxer for the output name \(output); use an extension such as .mp4, .mov, .mkv or .webm")
        }
        if !(0...51).contains(crf) { throw ValidationError("--crf must be between 0 and 51") }
        if !CutRequest.presets.contains(preset) { throw ValidationError("--preset must be one of \(CutRequest.presets.joined(separator: ", "))") }
        if let minDuration, let maxDuration, minDuration.value > maxDuration.value {
            throw ValidationError("--min-duration is longer than --max-duration")
        }
        if clamp, minDuration == nil, maxDuration == nil {
            throw ValidationError("--clamp adjusts ranges to --min-duration/--max-duration; give at least one")
        }
    }

    func run() throws {
        Session.start(verbose: common.verbose)
        let request = CutRequest(
            start: start, end: end, lengthSeconds: length?.value, mode: mode, crf: crf, preset: preset,
            minDurationSeconds: minDuration?.value, maxDurationSeconds: maxDuration?.value, clamp: clamp,
            output: try common.outputChoice(file: output, folder: outputDir), overwrite: overwrite, dryRun: dryRun,
            strict: common.strict)
        let writer = common.makeWriter()
        for path in try common.expand(inputs) {
            writer.write(CutJob.run(path: path, request: request))
        }
        try finish(writer)
    }
}
