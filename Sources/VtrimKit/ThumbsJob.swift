import DiskNames
import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore
import WorkerProtocol

/// `vtrim thumbs` options, the same for every input.
public struct ThumbsRequest: Sendable {
    public enum Sampling: Sendable, Equatable {
        /// N samples at the centres of N equal parts of the range.
        case count(Int)
        /// A sample every S seconds from the start of the range.
        case every(Double)
        /// VideoLine's strip: spacing, sample times and cells from TimelineCore.
        case videoLine(VideoLineLayout)
    }

    /// VideoLine's geometry in points (the worker protocol's value: `vtrim serve` asks for tiles of it).
    public typealias VideoLineLayout = WorkerProtocol.VideoLineLayout

    public var sampling: Sampling
    public var heightPixels: Int
    public var mode: SampleMode
    public var start: TimeSpec?
    public var end: TimeSpec?
    public var columns: Int?
    public var framesFolder: String?
    public var output: OutputNamer
    public var overwrite: Bool
    /// Inputs whose output already exists are reported as skipped (resumable runs).
    public var skipExisting: Bool
    public var strict: Bool
    /// Decoder threads in all (0: FFmpeg chooses) and how many runs of samples decode in parallel.
    public var decoderThreads: Int
    public var workers: Int
    /// JPEG/WebP quality (1–100); nil: the format's default.
    public var quality: Int?
    /// `--frames-dir` cells' format; nil: the sheet's.
    public var framesFormat: ImageFormat?
    /// `--vtt`: a WebVTT thumbnails track beside each sheet.
    public var writesVTT = false
    /// `--skip-dull`: a nearly uniform sample gives way to the next frame in its cell's interval that is not.
    public var skipDull = false
    /// `--timestamps`: each cell's time in its corner.
    public var timestamps = false
    /// `--header`: a band above the sheet about the file.
    public var header = false
    /// HDR sources tone-mapped to SDR (`--no-tonemap` turns it off).
    public var toneMapsHDR = true
    /// How URL inputs are read.
    public var remote = RemoteRequest()
    /// `--dry-run`: the plan (cells, times, layout, every output), nothing decoded or written.
    public var dryRun = false
    /// `--waveform-data FILE.json`: the input's waveform as BBC audiowaveform's JSON (one input).
    public var waveformData: String?

    public init(sampling: Sampling, heightPixels: Int, mode: SampleMode, start: TimeSpec?, end: TimeSpec?,
                columns: Int?, framesFolder: String?, output: OutputNamer, overwrite: Bool, skipExisting: Bool = false,
                strict: Bool, decoderThreads: Int, workers: Int) {
        self.skipExisting = skipExisting
        self.sampling = sampling
        self.heightPixels = heightPixels
        self.mode = mode
        self.start = start
        self.end = end
        self.columns = columns
        self.framesFolder = framesFolder
        self.output = output
        self.overwrite = overwrite
        self.strict = strict
        self.decoderThreads = decoderThreads
        self.workers = workers
    }

    /// PNG rows and columns are limited to what common viewers and libraries accept.
    public static let maximumSidePixels = 32_767
    /// And a sheet's area: 256 megapixels (768 MiB of RGB) is past any contact sheet anyone views.
    public static let maximumPixels = 256 << 20

    /// The sheet's format, from the output path's extension.
    public static func format(of path: String, input: String) throws(MediaError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else {
            throw MediaError(.writeFailed, path: input, operation: "check output",
                             reason: "\(path): vtrim writes \(ImageFormat.supportedExtensions) pictures; its extension is none of them")
        }
        return format
    }
}

/// `vtrim thumbs` for one input: probe, plan the cells, sample, compose, write the PNG atomically.
public enum ThumbsJob {
    public static let defaultName = "{stem}.thumbs.png"

    /// The output a request gives `item` (the `index`-th input, 0-based).
    public static func outputPath(for item: InputItem, index: Int, request: ThumbsRequest) -> String {
        request.output.path(for: item, defaultName: defaultName, fields: [
            "index": String(index + 1),
            "start": request.start.map(TimeSpecText.describe) ?? "0",
            "end": request.end.map(TimeSpecText.describe) ?? "end",
        ])
    }

    public static func run(path: String, request: ThumbsRequest) -> Outcome {
        run(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, request: request)
    }

    public static func run(item: InputItem, index: Int, request: ThumbsRequest) -> Outcome {
        if RemoteNames.isURL(item.path), InputSources.window(for: item.path) == nil, InputSources.byteSource(for: item.path) == nil {
            return RemoteJobs.thumbs(item: item, index: index, request: request)
        }
        let path = item.path
        var warnings: [MediaWarning] = []
        do throws(MediaError) {
            let target = OutputTarget(path: outputPath(for: item, index: index, request: request), overwrite: request.overwrite,
                                      createsFolder: request.output.createsFolders)
            if request.skipExisting, !request.overwrite, DiskFile.exists(target.path) {
                return Outcome(path: path, status: .skipped(reason: "\(target.path) exists (--skip-existing)"),
                               fields: [("output", .string(target.path))])
            }
            let sheet: PreparedSheet
            switch try prepare(item, target: target, request: request, warnings: &warnings) {
            case let .sheet(prepared):
                sheet = prepared
            case let .waveform(info):
                // A file without pictures: its waveform in the same cells.
                return try withWaveformData(WaveformSheet.run(path: path, target: target, request: request, info: info, warnings: warnings),
                                            path: path, info: info, request: request)
            }
            if request.dryRun { return dryRunOutcome(sheet, request: request, warnings: warnings) }
            let frames = try sheet.sampler.sample(sampleRequest(sheet.plan, request: request), workers: request.workers)
            warnings += try frameWarnings(frames, video: sheet.video, toneMapsHDR: request.toneMapsHDR, path: path)
            if request.strict, !warnings.isEmpty {
                return Outcome(path: path, status: .succeeded, warnings: warnings).applyingStrict()
            }
            let framePaths = try write(sheet, frames: frames, request: request)
            return try withWaveformData(outcome(sheet, frames: frames, framePaths: framePaths, request: request, warnings: warnings),
                                        path: path, info: sheet.info, request: request)
        } catch {
            // An audio file met in a folder is not what thumbs is for: skipped. Named on the command line: an error.
            if error.code == .noVideo, item.foundInFolder {
                return Outcome(path: path, status: .skipped(reason: MediaError.Code.noVideo.rawValue), warnings: warnings)
            }
            return .failure(error, warnings: warnings)
        }
    }

    /// `--vtt`: the WebVTT thumbnails track of a written sheet, each cue the part of the range its cell stands for.
    static func writeTrack(_ plan: ThumbsPlan, sheet target: OutputTarget, to trackTarget: OutputTarget, input path: String) throws(MediaError) {
        let track = ThumbnailTrack.text(cues: plan.cells.map { cell in
            ThumbnailTrack.Cue(startSeconds: cell.windowStartSeconds, endSeconds: cell.windowEndSeconds,
                               x: cell.x, y: cell.y, width: cell.width, height: cell.height)
        }, sheet: (target.path as NSString).lastPathComponent)
        try writeAtomically(trackTarget, input: path) { temporary throws(MediaError) in
            guard DiskFile.write(track.utf8, to: temporary) else {
                throw MediaError(.writeFailed, path: path, operation: "write", reason: "cannot write \(trackTarget.path)")
            }
        }
    }

    /// `--waveform-data FILE.json` beside a written sheet or waveform (`WaveformData`); named in the report.
    private static func withWaveformData(_ outcome: Outcome, path: String, info: MediaInfo, request: ThumbsRequest) throws(MediaError) -> Outcome {
        guard let data = request.waveformData else { return outcome }
        var outcome = outcome
        let target = OutputTarget(path: data, overwrite: request.overwrite)
        try target.check(input: path, dryRun: request.dryRun)
        if !request.dryRun { try WaveformData.write(path: path, to: target, info: info) }
        outcome.fields.append(("waveform_data", .string(data)))
        return outcome
    }

    /// What an input is drawn as: a sheet of its pictures, or (no video, but sound) its waveform.
    private enum Prepared {
        case sheet(PreparedSheet)
        case waveform(MediaInfo)
    }

    /// One input's sheet, planned and every output checked, before anything is decoded or written.
    private struct PreparedSheet {
        var path: String
        var target: OutputTarget
        var format: ImageFormat
        /// `--vtt`'s track beside the sheet.
        var trackTarget: OutputTarget?
        /// `--frames-dir`'s cell pictures and their format.
        var frameTargets: [OutputTarget]
        var framesFormat: ImageFormat
        var sampler: FrameSampler
        var info: MediaInfo
        var video: VideoStreamInfo
        var plan: ThumbsPlan
        /// Nil when no text is drawn (or no font was found: then a warning says so).
        var renderer: TextRenderer?
        var headerLines: [String]
    }

    /// Checks every output, opens the input and plans the sheet (with its header band, when asked).
    private static func prepare(_ item: InputItem, target: OutputTarget, request: ThumbsRequest,
                                warnings: inout [MediaWarning]) throws(MediaError) -> Prepared {
        let path = item.path
        try target.check(input: path, dryRun: request.dryRun)
        let format = try ThumbsRequest.format(of: target.path, input: path)
        let trackTarget = request.writesVTT
            ? OutputTarget(path: trackPath(forSheet: target.path), overwrite: request.overwrite, createsFolder: target.createsFolder) : nil
        try trackTarget?.check(input: path, dryRun: request.dryRun)
        let sampler: FrameSampler
        do {
            sampler = try FrameSampler(path: path, keyframesOnly: request.mode == .fast)
        } catch where error.code == .noVideo {
            // No pictures: its waveform, where it has sound.
            let info = try Probe.probe(path: path)
            guard info.audio.isEmpty else {
                warnings += info.warnings
                return .waveform(info)
            }
            throw error
        }
        let info = sampler.info
        warnings += info.warnings
        guard let video = info.video else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        var plan = try ThumbsPlan.make(info: info, video: video, request: request, format: format, path: path)
        let renderer = request.timestamps || request.header ? TextRenderer() : nil
        if (request.timestamps || request.header) && renderer == nil {
            warnings.append(MediaWarning(code: "text_unavailable",
                                         message: "no font found (install fonts-dejavu-core); timestamps and header are left out"))
        }
        let headerLines = request.header ? SheetHeaderText.lines(info: info, video: video) : []
        if let renderer, request.header {
            plan = plan.withHeader(height: SheetHeader.height(lines: headerLines, width: plan.widthPixels, renderer: renderer))
            if plan.heightPixels > min(ThumbsRequest.maximumSidePixels, format.maximumSidePixels) {
                throw MediaError(.tooLarge, path: path, operation: "plan",
                                 reason: "the sheet with its header would be \(plan.heightPixels) px tall, over the limit; use more --columns")
            }
        }
        // Every output of this input is checked before anything is written: an existing cell picture
        // must not leave a sheet written and the input half done.
        let framesFormat = request.framesFormat ?? format
        let frameTargets = try request.framesFolder.map { folder throws(MediaError) in
            try checkedFrameTargets(count: plan.cells.count, prefix: framesPrefix(for: item, folder: folder), input: path,
                                    format: framesFormat, request: request)
        } ?? []
        return .sheet(PreparedSheet(path: path, target: target, format: format, trackTarget: trackTarget, frameTargets: frameTargets,
                                    framesFormat: framesFormat, sampler: sampler, info: info, video: video, plan: plan, renderer: renderer,
                                    headerLines: headerLines))
    }

    /// `--dry-run`: the plan's report and every output it would write.
    private static func dryRunOutcome(_ sheet: PreparedSheet, request: ThumbsRequest, warnings: [MediaWarning]) -> Outcome {
        let plan = sheet.plan
        var fields: [(String, JSON)] = [("dry_run", .bool(true))] + planFields(target: sheet.target.path, plan: plan, request: request)
        fields.insert(("format", .string(sheet.format.rawValue)), at: 2)
        if let trackTarget = sheet.trackTarget { fields.insert(("vtt", .string(trackTarget.path)), at: 3) }
        if !sheet.frameTargets.isEmpty { fields.append(("frames", .array(sheet.frameTargets.map { .string($0.path) }))) }
        return Outcome(path: sheet.path, status: .succeeded, warnings: warnings, fields: fields,
                       lines: ["\(sheet.path) → \(sheet.target.path) (\(plan.widthPixels)x\(plan.heightPixels), \(plan.cells.count) cells, \(request.mode.rawValue), dry run: nothing written)"]
                           + plan.cells.enumerated().map { index, cell in
                               "  cell \(index)  \(Human.seconds(cell.timeSeconds)) at \(cell.x),\(cell.y) \(cell.width)x\(cell.height)"
                           })
    }

    /// The cells' times and sizes, as the sampler takes them.
    private static func sampleRequest(_ plan: ThumbsPlan, request: ThumbsRequest) -> SampleRequest {
        var sampleRequest = SampleRequest(
            timesSeconds: plan.cells.map(\.timeSeconds), mode: request.mode,
            cellWidthPixels: plan.cellWidthPixels, cellHeightPixels: plan.cellHeightPixels,
            fit: plan.fit, decoderThreads: request.decoderThreads, shouldStop: { Interrupt.requested })
        if request.skipDull { sampleRequest.dullSearchEndsSeconds = plan.cells.map(\.windowEndSeconds) }
        sampleRequest.toneMapsHDR = request.toneMapsHDR
        return sampleRequest
    }

    /// The sheet: the frames in their cells, the header band and each cell's time drawn on it.
    private static func compose(_ sheet: PreparedSheet, frames: [SampledFrame], request: ThumbsRequest) -> RGBImage {
        let plan = sheet.plan
        var strip = Filmstrip.compose(zip(plan.cells, frames).map { cell, frame in
            Filmstrip.Cell(x: cell.x, y: cell.y, width: cell.width, height: cell.height, image: frame.image)
        }, width: plan.widthPixels, height: plan.heightPixels)
        guard let renderer = sheet.renderer else { return strip }
        if request.header {
            SheetHeader.draw(sheet.headerLines, on: &strip, height: plan.headerHeightPixels, renderer: renderer)
        }
        if request.timestamps {
            let digits = TimeFormatting.fractionDigits(forSpacing: plan.closestSpacingSeconds ?? 1)
            for (cell, frame) in zip(plan.cells, frames) where frame.image != nil {
                CellLabel.draw(TimeFormatting.truncatedClock(seconds: frame.frameSeconds ?? frame.requestedSeconds, fractionDigits: digits,
                                                              hours: sheet.info.durationSeconds >= 3600), on: &strip,
                               cell: PixelBox(x: cell.x, y: cell.y, width: cell.width, height: cell.height), renderer: renderer)
            }
        }
        return strip
    }

    /// Writes the sheet, its WebVTT track and the cells' pictures, each atomically; the cells' paths.
    private static func write(_ sheet: PreparedSheet, frames: [SampledFrame], request: ThumbsRequest) throws(MediaError) -> [String] {
        let path = sheet.path, target = sheet.target, plan = sheet.plan
        let strip = compose(sheet, frames: frames, request: request)
        let text = pngText(path: path, frames: frames)
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            do throws(MediaError) {
                try ImageFile.write(strip, to: temporary, format: sheet.format, quality: request.quality, text: text)
            } catch {
                throw MediaError(.writeFailed, path: path, operation: error.operation,
                                 reason: error.reason.replacingOccurrences(of: temporary, with: target.path))
            }
        }
        if let trackTarget = sheet.trackTarget { try writeTrack(plan, sheet: target, to: trackTarget, input: path) }
        return try writeFrames(frames, plan: plan, targets: sheet.frameTargets, input: path, format: sheet.framesFormat, request: request)
    }

    /// A written sheet's report.
    private static func outcome(_ sheet: PreparedSheet, frames: [SampledFrame], framePaths: [String], request: ThumbsRequest,
                                warnings: [MediaWarning]) -> Outcome {
        let path = sheet.path, plan = sheet.plan
        var outputFields = fields(target: sheet.target.path, plan: plan, frames: frames, request: request, framePaths: framePaths)
        outputFields.insert(("format", .string(sheet.format.rawValue)), at: 1)
        if let trackTarget = sheet.trackTarget { outputFields.insert(("vtt", .string(trackTarget.path)), at: 2) }
        if frames.contains(where: \.toneMapped) { outputFields.append(("tone_mapped", .bool(true))) }
        if request.header, sheet.renderer != nil {
            outputFields.append(("header_height", .int(Int64(plan.headerHeightPixels))))
            outputFields.append(("header", .array(sheet.headerLines.map { .string($0) })))
        }
        return Outcome(path: path, status: .succeeded, warnings: warnings, fields: outputFields,
                       lines: ["\(path) → \(sheet.target.path) (\(plan.widthPixels)x\(plan.heightPixels), \(plan.cells.count) cells, \(request.mode.rawValue))"]
                           + (sheet.trackTarget.map { ["\(path) → \($0.path) (WebVTT thumbnails track)"] } ?? []))
    }

    /// What the sampled frames tell the user (HDR not tone-mapped, cells that failed, stayed dull or show damaged
    /// frames); throws when no cell could be decoded at all.
    static func frameWarnings(_ frames: [SampledFrame], video: VideoStreamInfo, toneMapsHDR: Bool, path: String) throws(MediaError) -> [MediaWarning] {
        var warnings: [MediaWarning] = []
        let hdrName = video.colorTransfer == "smpte2084" ? "PQ" : video.colorTransfer == "arib-std-b67" ? "HLG" : nil
        if let failure = frames.first(where: { $0.toneMapFailure != nil })?.toneMapFailure {
            warnings.append(MediaWarning(code: "hdr_not_tone_mapped",
                                         message: "HDR video could not be tone-mapped (\(failure)); converted without, colours look flat"))
        } else if let hdrName, !toneMapsHDR {
            warnings.append(MediaWarning(code: "hdr_not_tone_mapped",
                                         message: "HDR video (\(hdrName)) is converted without tone mapping (--no-tonemap); colours look flat"))
        } else if let hdrName, !frames.contains(where: \.toneMapped), frames.contains(where: { $0.image != nil }) {
            // The stream says HDR but its frames do not: they were converted as they say (SDR).
            warnings.append(MediaWarning(code: "hdr_not_tone_mapped",
                                         message: "the stream is marked HDR (\(hdrName)) but its frames are not; converted without tone mapping"))
        }
        let failed = frames.indices.filter { frames[$0].image == nil }
        if failed.count == frames.count {
            throw MediaError(.decodeFailed, path: path, operation: "decode",
                             reason: "none of the \(frames.count) cells could be decoded (first: \(frames.first?.failure ?? "no picture"))")
        }
        if let first = failed.first {
            warnings.append(MediaWarning(
                code: "sample_failed",
                message: "\(failed.count) of \(frames.count) cells could not be decoded (cells \(cellList(failed)); first: \(frames[first].failure ?? "no picture")); grey placeholders drawn"))
        }
        let stillDull = frames.indices.filter { frames[$0].dull == true }
        if !stillDull.isEmpty {
            warnings.append(MediaWarning(
                code: "dull_kept",
                message: "\(stillDull.count) of \(frames.count) cells show a dull frame: nothing else in their part of the range was not dull (cells \(cellList(stillDull)))"))
        }
        let damaged = frames.indices.filter { frames[$0].damaged }
        if !damaged.isEmpty {
            warnings.append(MediaWarning(
                code: "frame_damaged",
                message: "\(damaged.count) of \(frames.count) cells show frames the decoder flagged as damaged (cells \(cellList(damaged)))"))
        }
        return warnings
    }

    /// Cell indexes as in the JSON (from 0), the first eight.
    private static func cellList(_ indices: [Int]) -> String {
        indices.prefix(8).map(String.init).joined(separator: ", ") + (indices.count > 8 ? ", …" : "")
    }

    private static func pngText(path: String, frames: [SampledFrame]) -> [(key: String, value: String)] {
        [
            ("Software", "vtrim"),
            ("vtrim:source", path),
            ("vtrim:times", frames.map { JSON.format($0.requestedSeconds) }.joined(separator: ",")),
            ("vtrim:pts", frames.map { $0.frameSeconds.map(JSON.format) ?? "null" }.joined(separator: ",")),
        ]
    }

    /// `--frames-dir`: where an input's cell PNGs go, as `<prefix>.thumb-<index>.png`: the frames folder,
    /// the input's subfolder within a walked folder (as --output-dir mirrors it), and the input's stem.
    public static func framesPrefix(for item: InputItem, folder: String) -> String {
        let below = (item.relativePath as NSString).deletingLastPathComponent
        let base = below.isEmpty ? folder : (folder as NSString).appendingPathComponent(below)
        return (base as NSString).appendingPathComponent(OutputChoice.stemPath((item.path as NSString).lastPathComponent))
    }

    /// What the collision check compares for --frames-dir: one claim per input covers all its cells.
    public static func framesClaim(for item: InputItem, index: Int, request: ThumbsRequest) -> String? {
        let format = request.framesFormat ?? ImageFormat(path: outputPath(for: item, index: index, request: request)) ?? .png
        return request.framesFolder.map { framesPrefix(for: item, folder: $0) + ".thumb-*.\(format.fileExtension)" }
    }

    /// `--vtt`: the track beside its sheet, `<sheet stem>.vtt`.
    public static func trackPath(forSheet sheet: String) -> String {
        (sheet as NSString).deletingPathExtension + ".vtt"
    }

    /// `--frames-dir`: each cell's picture, `<prefix>.thumb-<index>.<ext>`, every one checked.
    private static func checkedFrameTargets(count: Int, prefix: String, input: String, format: ImageFormat,
                                            request: ThumbsRequest) throws(MediaError) -> [OutputTarget] {
        let digits = max(3, String(count - 1).count)
        var targets: [OutputTarget] = []
        for index in 0..<count {
            let number = String(index)
            let padded = String(repeating: "0", count: max(0, digits - number.count)) + number
            let target = OutputTarget(path: prefix + ".thumb-\(padded).\(format.fileExtension)", overwrite: request.overwrite,
                                      createsFolder: true)
            try target.check(input: input, dryRun: request.dryRun)
            targets.append(target)
        }
        return targets
    }

    private static func writeFrames(_ frames: [SampledFrame], plan: ThumbsPlan, targets: [OutputTarget], input: String,
                                    format: ImageFormat, request: ThumbsRequest) throws(MediaError) -> [String] {
        var written: [String] = []
        for (index, frame) in frames.enumerated() where index < targets.count {
            let target = targets[index]
            let cell = plan.cells[index]
            let image = frame.image ?? RGBImage(width: cell.width, height: cell.height, fill: Filmstrip.placeholder)
            try writeAtomically(target, input: input) { temporary throws(MediaError) in
                try ImageFile.write(image, to: temporary, format: format, quality: request.quality,
                                    text: [("Software", "vtrim"), ("vtrim:source", input)])
            }
            written.append(target.path)
        }
        return written
    }

    /// The plan's report, the same for a dry run and a real one: the layout and each cell's time and box.
    static func planFields(target: String, plan: ThumbsPlan, request: ThumbsRequest,
                                   cell extra: (Int) -> [(String, JSON)] = { _ in [] }) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("output", .string(target)),
            ("width", .int(Int64(plan.widthPixels))),
            ("height", .int(Int64(plan.heightPixels))),
            ("mode", .string(request.mode.rawValue)),
            ("layout", .string(plan.layoutName)),
            ("columns", .int(Int64(plan.columns))),
            ("rows", .int(Int64(plan.rows))),
            ("cell_width", .int(Int64(plan.cellWidthPixels))),
            ("cell_height", .int(Int64(plan.cellHeightPixels))),
            ("start", .number(plan.rangeSeconds.lowerBound)),
            ("end", .number(plan.rangeSeconds.upperBound)),
        ]
        if let spacing = plan.timeSpacingSeconds { fields.append(("time_spacing", .number(spacing))) }
        fields.append(("cells", .array(plan.cells.enumerated().map { index, cell in
            let box: [(String, JSON)] = [
                ("x", .int(Int64(cell.x))),
                ("y", .int(Int64(cell.y))),
                ("width", .int(Int64(cell.width))),
                ("height", .int(Int64(cell.height))),
            ]
            return .object([("index", .int(Int64(index))), ("time", .number(cell.timeSeconds))] + extra(index) + box)
        })))
        return fields
    }

    /// A real run's report: the plan's, each cell with the time of the frame it shows (and why not).
    private static func fields(target: String, plan: ThumbsPlan, frames: [SampledFrame], request: ThumbsRequest,
                               framePaths: [String]) -> [(String, JSON)] {
        var fields = planFields(target: target, plan: plan, request: request) { index in
            index < frames.count ? [("pts", .optional(frames[index].frameSeconds))] : []
        }
        guard case let .array(cells)? = fields.last?.1 else { return fields }
        fields[fields.count - 1].1 = .array(cells.enumerated().map { index, cell in
            guard case var .object(members) = cell, index < frames.count else { return cell }
            if let failure = frames[index].failure { members.append(("error", .string(failure))) }
            if let dull = frames[index].dull { members.append(("dull", .bool(dull))) }
            if index < framePaths.count { members.append(("file", .string(framePaths[index]))) }
            return .object(members)
        })
        return fields
    }
}

/// Re-exported so the command line can name the modes without importing the engine.
public typealias SampleMode = MediaEngine.SampleMode
public typealias ImageFormat = MediaEngine.ImageFormat
