import ArgumentParser
import WorkerProtocol

/// VideoLine's control, as `thumbs` (its strip layout) and `timeline` (its numbers) both take it. The
/// window limits are `--window-min`/`--window-max` (they are not `cut`'s refusals `--min/--max-duration`,
/// whose old names stay as aliases here; JSON keys are unchanged).
struct VideoLineOptions: ParsableArguments {
    @Option(name: .customLong("strip-width"), help: "VideoLine: width of the control in points.")
    var stripWidth: Double?

    @Option(name: .customLong("thumb-size"), help: ArgumentHelp("VideoLine: thumbnail size in points.", valueName: "WxH"))
    var thumbSize: Size?

    @Option(name: [.customLong("window-max"), .customLong("max-duration")],
            help: ArgumentHelp("VideoLine: longest selection, which is also the visible window (default 5).", valueName: "seconds"), transform: TimeArgument.seconds)
    var windowMax: Seconds?

    @Option(name: [.customLong("window-min"), .customLong("min-duration")],
            help: ArgumentHelp("VideoLine: shortest selection (default 2).", valueName: "seconds"), transform: TimeArgument.seconds)
    var windowMin: Seconds?

    /// Whether any of them was given.
    var isGiven: Bool { stripWidth != nil || thumbSize != nil || windowMax != nil || windowMin != nil }

    /// Both the strip's width and the thumbnail size, checked; a usage error naming what is missing.
    func layout() throws -> (stripWidth: Double, thumbSize: Size) {
        guard let stripWidth, let thumbSize else {
            throw ValidationError("the VideoLine layout needs both --strip-width and --thumb-size")
        }
        if !stripWidth.isFinite || stripWidth <= 0 { throw ValidationError("--strip-width must be a positive number of points") }
        if let windowMin, let windowMax, windowMin.value > windowMax.value {
            throw ValidationError("--window-min \(windowMin.value) is longer than --window-max \(windowMax.value)")
        }
        return (stripWidth, thumbSize)
    }
}
