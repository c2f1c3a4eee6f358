import ArgumentParser
import TimelineCore
import VtrimKit
import WorkerProtocol

struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print the geometry and selection of a two-slider trimming timeline (VideoLine's model).",
        discussion: """
        For a clip (its probed duration, or --duration) shown in a strip --strip-width points wide with \
        --thumb-size thumbnails: thumbnails in the window (minCount), margins, seconds per point, the cells \
        with their times, and the selection (the initial one, or --start/--end clamped to the limits).
        """
    )

    @OptionGroup var common: CommonOptions
    @OptionGroup var batch: BatchOptions

    @Argument(help: "Media files whose durations to use (or give --duration).")
    var inputs: [String] = []

    @Option(help: "Clip duration in seconds, instead of probing a file.", transform: TimeArgument.seconds)
    var duration: Seconds?

    @OptionGroup(title: "VideoLine control (--strip-width and --thumb-size are required)") var videoLine: VideoLineOptions

    @Option(parsing: .unconditional, help: "Preset selection start.", transform: TimeArgument.time)
    var start: TimeSpec?

    @Option(parsing: .unconditional, help: "Preset selection end.", transform: TimeArgument.time)
    var end: TimeSpec?

    @Option(name: .customLong("op"), help: ArgumentHelp(
        "An operation replayed after the preset, in order (repeatable): drag-left:X or drag-right:X (a handle's outer edge at X points in the view), move-left:T, move-right:T, scroll:T (window start), scroll-content:X, playhead:T.",
        valueName: "name:value"))
    var operations: [String] = []

    func validate() throws {
        if (duration == nil) == inputs.isEmpty { throw ValidationError("give either --duration or input files, not both or neither") }
        try BatchRun(common: common, batch: batch).validateInputs(inputs)
        _ = try videoLine.layout()
        for operation in operations where TimelineOperationText.parse(operation) == nil {
            throw ValidationError("--op \(operation): expected name:value with name one of \(TimelineOperationText.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let (stripWidth, thumbSize) = try videoLine.layout()
        let request = TimelineRequest(stripWidthPoints: stripWidth, thumbWidthPoints: thumbSize.width,
                                      thumbHeightPoints: thumbSize.height, minDurationSeconds: videoLine.windowMin?.value,
                                      maxDurationSeconds: videoLine.windowMax?.value, start: start, end: end,
                                      operations: operations.compactMap(TimelineOperationText.parse))
        let runner = BatchRun(common: common, batch: batch)
        let strict = common.strict
        if let duration {
            Session.start(verbose: common.verbose)
            let writer = ReportWriter(style: common.json ? .json : .human, quiet: common.quiet)
            var outcome = TimelineJob.run(durationSeconds: duration.value, request: request)
            if strict { outcome = outcome.applyingStrict() }
            writer.write(outcome)
            if writer.failures > 0 { throw ExitCode.failure }
        } else {
            try runner.run(try runner.items(inputs)) { _, item, _ in
                let outcome = TimelineJob.run(path: item.path, request: request)
                return [strict ? outcome.applyingStrict() : outcome]
            }
        }
    }
}
