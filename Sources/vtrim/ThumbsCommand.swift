import ArgumentParser
import Foundation
import TimelineCore
import VtrimKit

struct ThumbsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbs",
        abstract: "Write a filmstrip or contact sheet of thumbnails (PNG, JPEG or WebP), in the orientation a player shows.",
        discussion: """
        Samples --count N times at the centres of N equal parts (default 10), or every --every S seconds. \
        With --strip-width and --thumb-size, lays the strip out as the VideoLine trimming control does: \
        cells of exactly the thumbnail size, one every timeSpacing seconds, the last one partial.
        """
    )

    @OptionGroup var common: CommonOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup var outputs: OutputOptions

    @Argument(help: "Media files, or folders with -r.")
    var inputs: [String]

    @Option(help: "Number of thumbnails, at the centres of equal parts of the range (default 10).")
    var count: Int?

    @Option(help: ArgumentHelp("Seconds between thumbnails.", valueName: "seconds"))
    var every: Seconds?

    @Option(help: "Cell height in pixels; the width follows the display aspect.")
    var height = 90

    @Option(help: "accurate: the frame a player shows at each time; fast: the keyframe at or before it.")
    var mode: SampleMode = .accurate

    @Option(help: "Start of the sampled range (default 0).")
    var start: TimeSpec?

    @Option(help: "End of the sampled range (default: the end of the file).")
    var end: TimeSpec?

    @Option(help: "Wrap the strip into a grid this many cells wide (a contact sheet).")
    var columns: Int?

    @Option(name: .customLong("frames-dir"), help: "Also write each cell as its own picture into this folder.")
    var framesDir: String?

    @Option(name: .customLong("frames-format"), help: "Format of the --frames-dir pictures: png, jpeg or webp (default: the sheet's).")
    var framesFormat: ImageFormatArgument?

    @Option(help: "JPEG/WebP quality, 1–100 (default: JPEG \(ImageFormat.jpeg.defaultQuality), WebP \(ImageFormat.webp.defaultQuality); WebP 100 is lossless).")
    var quality: Int?

    @Flag(help: "Also write <sheet stem>.vtt, a WebVTT thumbnails track for web players (cues point into the sheet).")
    var vtt = false

    @Flag(help: "Draw each cell's time (m:ss, h:mm:ss from an hour on; fractions when cells are under a second apart) in its bottom-right corner.")
    var timestamps = false

    @Flag(help: "Add a band above the sheet: file name, duration, size, picture size, frame rate, bit rate, codecs.")
    var header = false

    @Flag(name: .customLong("no-tonemap"), help: "Convert HDR (PQ, HLG) video without tone mapping it to SDR (flat colours, with a warning).")
    var noToneMap = false

    @Flag(name: .customLong("dry-run"), help: "Print the plan (layout, each cell's time and box, every output) and write nothing.")
    var dryRun = false

    @Flag(name: .customLong("skip-dull"), help: "Replace a nearly uniform sample (black fade, blank slate) with the next frame in its cell's part of the range that is not.")
    var skipDull = false

    @OptionGroup(title: "VideoLine layout") var videoLine: VideoLineOptions

    @Option(help: "VideoLine layout: pixels per point (default 1).")
    var scale: Double?

    func validate() throws {
        try BatchRun(common: common, batch: batch).validateInputs(inputs)
        try outputs.validate(inputs: inputs, recursive: common.recursive)
        if count != nil, every != nil { throw ValidationError("--every and --count exclude each other; choose one") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if height < 1 || height > 32_767 { throw ValidationError("--height must be between 1 and 32767 pixels") }
        if let columns, columns < 1 { throw ValidationError("--columns must be at least 1") }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100") }
        if skipDull, mode == .fast { throw ValidationError("--skip-dull needs --mode accurate (fast mode shows keyframes only)") }
        // The sheet's format follows the output's extension: checked here when the name is fixed.
        if let name = outputs.output ?? outputs.name, !name.hasSuffix("}") {
            let ext = (name as NSString).pathExtension
            if ImageFormat(pathExtension: ext) == nil {
                throw ValidationError("\(name): vtrim thumbs writes \(ImageFormat.supportedExtensions); '\(ext.isEmpty ? "(no extension)" : "." + ext)' is none of them")
            }
        }
        if videoLine.stripWidth != nil || videoLine.thumbSize != nil {
            _ = try videoLine.layout()
            if count != nil || every != nil || columns != nil || start != nil || end != nil {
                throw ValidationError("the VideoLine layout (--strip-width/--thumb-size) takes its times from the timeline; drop --count, --every, --columns, --start and --end")
            }
            if let scale, !(scale.isFinite && scale > 0 && scale <= 16) { throw ValidationError("--scale must be above 0 and at most 16") }
            if header { throw ValidationError("--header is for contact sheets; the VideoLine strip keeps exactly the control's geometry") }
        } else if videoLine.isGiven || scale != nil {
            throw ValidationError("--window-max, --window-min and --scale belong to the VideoLine layout (--strip-width and --thumb-size)")
        }
    }

    func run() throws {
        let runner = BatchRun(common: common, batch: batch)
        let items = try runner.items(inputs)
        let sampling: ThumbsRequest.Sampling
        if let stripWidth = videoLine.stripWidth, let thumbSize = videoLine.thumbSize {
            sampling = .videoLine(.init(stripWidthPoints: stripWidth, thumbWidthPoints: thumbSize.width,
                                        thumbHeightPoints: thumbSize.height, minDurationSeconds: videoLine.windowMin?.value,
                                        maxDurationSeconds: videoLine.windowMax?.value, pixelsPerPoint: scale ?? 1))
        } else if let every {
            sampling = .every(every.value)
        } else {
            sampling = .count(count ?? 10)
        }
        let (jobs, threads) = runner.parallelism(count: items.count)
        var request = ThumbsRequest(
            sampling: sampling, heightPixels: height, mode: mode, start: start, end: end, columns: columns,
            framesFolder: framesDir, output: try outputs.namer(extra: framesDir, creating: !dryRun), overwrite: outputs.overwrite,
            skipExisting: outputs.skipExisting, strict: common.strict,
            decoderThreads: jobs > 1 ? threads : 0, workers: threads)
        request.quality = quality
        request.framesFormat = framesFormat?.format
        request.writesVTT = vtt
        request.skipDull = skipDull
        request.timestamps = timestamps
        request.header = header
        request.toneMapsHDR = !noToneMap
        request.dryRun = dryRun
        let finished = request
        try runner.run(items, outputs: { index, item in
            let sheet = ThumbsJob.outputPath(for: item, index: index, request: finished)
            return [sheet] + [ThumbsJob.framesClaim(for: item, index: index, request: finished), vtt ? ThumbsJob.trackPath(forSheet: sheet) : nil].compactMap { $0 }
        }) { index, item, _ in
            [ThumbsJob.run(item: item, index: index, request: finished)]
        }
    }
}
