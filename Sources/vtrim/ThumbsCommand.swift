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
    @OptionGroup(title: "URL inputs") var remote: RemoteOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup var outputs: OutputOptions

    @Argument(help: "Media files, folders with -r, or URLs (files, HLS playlists, DASH manifests).")
    var inputs: [String]

    @Option(help: "Number of thumbnails, at the centres of equal parts of the range (default 10).")
    var count: Int?

    @Option(help: ArgumentHelp("Seconds between thumbnails.", valueName: "seconds"), transform: TimeArgument.seconds)
    var every: Seconds?

    @Option(help: "Cell height in pixels; the width follows the display aspect (default 90).")
    var height: Int?

    @Option(help: ArgumentHelp("Write a storyboard media servers and players read, beside each video (or below --output-dir): jellyfin (the <stem>.trickplay folder Jellyfin imports), bif (Roku/Emby's <stem>-<width>-<interval>.bif), hls (an image media playlist over tiled sheets), dash (a thumbnail AdaptationSet). One thumbnail every --every seconds (default 10), --width pixels wide (default 320), tiled --tile CxR per sheet (default 10x10).", valueName: "format"))
    var storyboard: StoryboardFormat?

    @Option(help: ArgumentHelp("Storyboards: thumbnail width in pixels, even; the height follows the display aspect, even.", valueName: "pixels"))
    var width: Int?

    @Option(help: ArgumentHelp("Storyboards: columns x rows of thumbnails per sheet (it replaces --columns).", valueName: "CxR"))
    var tile: TileSize?

    @Option(help: "accurate: the frame a player shows at each time; fast: the keyframe at or before it.")
    var mode: SampleMode = .accurate

    @Option(parsing: .unconditional, help: "Start of the sampled range (default 0).", transform: TimeArgument.time)
    var start: TimeSpec?

    @Option(parsing: .unconditional, help: "End of the sampled range (default: the end of the file).", transform: TimeArgument.time)
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

    @Option(name: .customLong("waveform-data"),
            help: ArgumentHelp("Also write the input's waveform as BBC audiowaveform's JSON (peaks.js reads it); one input.", valueName: "file.json"))
    var waveformData: String?

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
        if let height, height < 1 || height > 32_767 { throw ValidationError("--height must be between 1 and 32767 pixels") }
        if storyboard != nil {
            try validateStoryboard()
            return
        }
        if width != nil || tile != nil { throw ValidationError("--width and --tile belong to --storyboard") }
        if waveformData != nil, inputs.count != 1 || common.recursive {
            throw ValidationError("--waveform-data names one file, so it takes exactly one input file")
        }
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

    /// `--storyboard`: the names scripts use (--every, --width, --tile); what a sheet of one's own takes is refused.
    private func validateStoryboard() throws {
        if count != nil { throw ValidationError("--count does not go with --storyboard: a storyboard has a thumbnail every --every seconds") }
        if height != nil { throw ValidationError("--width and --height exclude each other; a storyboard's thumbnail height follows its --width") }
        if columns != nil { throw ValidationError("--columns does not go with --storyboard; use --tile CxR") }
        if outputs.output != nil || outputs.name != nil {
            throw ValidationError("-o and --name do not go with --storyboard: its files go beside each video (or below --output-dir) under the names its readers look for")
        }
        if let width, width < 2 || width % 2 != 0 || width > 8192 { throw ValidationError("--width must be an even number of pixels from 2 to 8192") }
        if let every, every.value < 0.1 || every.value > 86_400 { throw ValidationError("--every must be from 0.1 to 86400 seconds for a storyboard") }
        let conflicting = [(vtt, "--vtt"), (header, "--header"), (timestamps, "--timestamps"), (skipDull, "--skip-dull"),
                           (framesDir != nil, "--frames-dir"), (framesFormat != nil, "--frames-format"), (waveformData != nil, "--waveform-data"), (start != nil, "--start"),
                           (end != nil, "--end"), (videoLine.isGiven || videoLine.stripWidth != nil || videoLine.thumbSize != nil, "the VideoLine layout")]
        if let (_, name) = conflicting.first(where: { $0.0 }) { throw ValidationError("\(name) does not go with --storyboard") }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100") }
    }

    private func runStoryboard(_ format: StoryboardFormat) throws {
        let runner = BatchRun(common: common, batch: batch)
        let items = try runner.items(inputs)
        let (jobs, threads) = runner.parallelism(count: items.count)
        let tileSize = tile ?? TileSize(argument: "10x10")
        let request = StoryboardRequest(
            format: format, intervalSeconds: every?.value ?? StoryboardPlan.defaultIntervalSeconds, width: width ?? StoryboardPlan.defaultWidth,
            columns: tileSize?.columns ?? 10, rows: tileSize?.rows ?? 10, mode: mode, output: try outputs.namer(creating: !dryRun),
            overwrite: outputs.overwrite, skipExisting: outputs.skipExisting, strict: common.strict, dryRun: dryRun, quality: quality,
            toneMapsHDR: !noToneMap, decoderThreads: jobs > 1 ? threads : 0, workers: threads)
        try runner.run(items, outputs: { _, item in [StoryboardJob.outputPath(for: item, request: request)] }) { _, item, _ in
            [StoryboardJob.run(item: item, request: request)]
        }
    }

    func run() throws {
        if let storyboard { return try runStoryboard(storyboard) }
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
            sampling: sampling, heightPixels: height ?? 90, mode: mode, start: start, end: end, columns: columns,
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
        request.waveformData = waveformData
        request.remote = remote.request
        let finished = request
        try runner.run(items, outputs: { index, item in
            let sheet = ThumbsJob.outputPath(for: item, index: index, request: finished)
            return [sheet] + [ThumbsJob.framesClaim(for: item, index: index, request: finished), vtt ? ThumbsJob.trackPath(forSheet: sheet) : nil].compactMap { $0 }
        }) { index, item, _ in
            [ThumbsJob.run(item: item, index: index, request: finished)]
        }
    }
}
