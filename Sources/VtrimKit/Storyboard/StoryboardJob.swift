import DiskNames
import Foundation
import Glibc
import LibraryFiles
import MediaEngine
import WorkerProtocol

/// `vtrim thumbs --storyboard` options, the same for every input.
public struct StoryboardRequest: Sendable {
    public var format: StoryboardFormat
    public var intervalSeconds: Double
    public var width: Int
    public var columns: Int
    public var rows: Int
    public var mode: SampleMode
    /// Where outputs go: beside each input, or below `--output-dir` (mirroring a walked folder).
    public var output: OutputNamer
    public var overwrite: Bool
    public var skipExisting: Bool
    public var strict: Bool
    public var dryRun: Bool
    public var quality: Int?
    public var toneMapsHDR: Bool
    public var decoderThreads: Int
    public var workers: Int

    public init(format: StoryboardFormat, intervalSeconds: Double, width: Int, columns: Int, rows: Int, mode: SampleMode,
                output: OutputNamer, overwrite: Bool, skipExisting: Bool, strict: Bool, dryRun: Bool, quality: Int?,
                toneMapsHDR: Bool, decoderThreads: Int, workers: Int) {
        self.format = format
        self.intervalSeconds = intervalSeconds
        self.width = width
        self.columns = columns
        self.rows = rows
        self.mode = mode
        self.output = output
        self.overwrite = overwrite
        self.skipExisting = skipExisting
        self.strict = strict
        self.dryRun = dryRun
        self.quality = quality
        self.toneMapsHDR = toneMapsHDR
        self.decoderThreads = decoderThreads
        self.workers = workers
    }
}

/// `vtrim thumbs --storyboard` for one input: probe, plan (`StoryboardPlan`), sample every thumbnail, tile the
/// sheets (or, for BIF, keep each thumbnail), write the format's files. A folder or a BIF file is written under a
/// temporary name beside where it goes and put in place whole (LibraryFiles' TemporaryName).
public enum StoryboardJob {
    /// Where `item`'s storyboards go (its folder, or the mirror below --output-dir) and the video's stem.
    private static func place(_ item: InputItem, _ request: StoryboardRequest) -> (folder: String, stem: String) {
        let base = request.output.path(for: item, defaultName: "{stem}", fields: [:])
        let folder = (base as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "." : folder, (base as NSString).lastPathComponent)
    }

    /// Where `item`'s storyboard goes (known without probing: the batch checks outputs against each other).
    public static func outputPath(for item: InputItem, request: StoryboardRequest) -> String {
        let (folder, stem) = place(item, request)
        return StoryboardPlan.outputPath(format: request.format, intervalSeconds: request.intervalSeconds, width: request.width,
                                         columns: request.columns, rows: request.rows, outputFolder: folder, videoStem: stem)
    }

    public static func run(item: InputItem, request: StoryboardRequest) -> Outcome {
        let path = item.path
        var warnings: [MediaWarning] = []
        do throws(MediaError) {
            let target = outputPath(for: item, request: request)
            let exists = DiskFile.exists(target)
            if request.skipExisting, !request.overwrite, exists {
                return Outcome(path: path, status: .skipped(reason: "\(target) exists (--skip-existing)"), fields: [("output", .string(target))])
            }
            if exists, !request.overwrite, !request.dryRun {
                throw MediaError(.outputExists, path: path, operation: "check output", reason: "\(target) already exists (use --overwrite to replace it)")
            }
            let sampler = try FrameSampler(path: path)
            let info = sampler.info
            warnings += info.warnings
            guard let video = info.video else {
                throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
            }
            let plan: StoryboardPlan
            do {
                let (folder, stem) = place(item, request)
                // A truncated file's storyboard covers what can be read (its warning says the rest is gone).
                let seconds = info.shortfall != nil && info.readableDurationSeconds > 0 ? min(info.durationSeconds, info.readableDurationSeconds)
                    : info.durationSeconds
                plan = try StoryboardPlan.make(format: request.format, durationSeconds: seconds, displayWidth: video.displayWidth,
                                               displayHeight: video.displayHeight, intervalSeconds: request.intervalSeconds,
                                               width: request.width, columns: request.columns, rows: request.rows,
                                               outputFolder: folder, videoStem: stem)
            } catch {
                throw MediaError(error == .noDuration ? .invalidRange : .tooLarge, path: path, operation: "plan", reason: error.description)
            }
            if request.dryRun {
                return Outcome(path: path, status: .succeeded, warnings: warnings,
                               fields: [("dry_run", .bool(true))] + report(plan: plan, request: request, frames: nil, files: [], bandwidth: nil),
                               lines: ["\(path) → \(plan.outputPath) (\(request.format.rawValue) storyboard, \(plan.thumbnailCount) thumbnails of \(plan.thumbnailWidth)x\(plan.thumbnailHeight) every \(Human.seconds(plan.intervalSeconds)), dry run: nothing written)"])
            }
            let written = try write(plan: plan, sampler: sampler, video: video, request: request, input: path, warnings: &warnings)
            if written.redrawn > 0 {
                warnings.append(MediaWarning(code: "keyframes_far",
                                             message: "\(written.redrawn) of \(plan.thumbnailCount) thumbnails drawn from the frame at their time: their keyframe lies more than one interval before it"))
            }
            return Outcome(path: path, status: .succeeded, warnings: warnings,
                           fields: report(plan: plan, request: request, frames: written.frames, files: written.files, bandwidth: written.bandwidth,
                                          redrawn: written.redrawn),
                           lines: ["\(path) → \(plan.outputPath) (\(request.format.rawValue) storyboard, \(plan.thumbnailCount) thumbnails of \(plan.thumbnailWidth)x\(plan.thumbnailHeight) every \(Human.seconds(plan.intervalSeconds)), \(written.files.count) files)"])
        } catch {
            if error.code == .noVideo, item.foundInFolder {
                return Outcome(path: path, status: .skipped(reason: MediaError.Code.noVideo.rawValue), warnings: warnings)
            }
            return .failure(error, warnings: warnings)
        }
    }

    /// Thumbnails `indices`: the frame at each time, or in fast mode the keyframe at or before it — unless that
    /// keyframe lies more than one interval before, when the thumbnail is drawn from the frame at its time (counted).
    private static func sample(_ sampler: FrameSampler, _ indices: Range<Int>, plan: StoryboardPlan,
                               request: StoryboardRequest) throws(MediaError) -> ([SampledFrame], Int) {
        func take(_ times: [Double], _ mode: SampleMode) throws(MediaError) -> [SampledFrame] {
            var sampling = SampleRequest(timesSeconds: times, mode: mode, cellWidthPixels: plan.thumbnailWidth,
                                         cellHeightPixels: plan.thumbnailHeight, fit: .exact, decoderThreads: request.decoderThreads,
                                         shouldStop: { Interrupt.requested })
            sampling.toneMapsHDR = request.toneMapsHDR
            return try sampler.sample(sampling, workers: request.workers)
        }
        let times = Array(plan.timesSeconds[indices])
        var frames = try take(times, request.mode)
        guard request.mode == .fast else { return (frames, 0) }
        let far = frames.indices.filter { index in
            frames[index].frameSeconds.map { times[index] - $0 > plan.intervalSeconds + 1e-6 } ?? false
        }
        guard !far.isEmpty else { return (frames, 0) }
        let redrawn = try take(far.map { times[$0] }, .accurate)
        for (index, frame) in zip(far, redrawn) { frames[index] = frame }
        return (frames, far.count)
    }

    /// What a report and the warnings need of a sampled frame once its picture is encoded: its times, flags and
    /// whether it had a picture (a 1x1 stand-in), so a long film's thumbnails are never all held at once.
    private static func withoutPicture(_ frame: SampledFrame) -> SampledFrame {
        var kept = frame
        if kept.image != nil { kept.image = RGBImage(width: 1, height: 1, fill: (0, 0, 0)) }
        return kept
    }

    /// The format's files, a sheet (BIF: a hundred thumbnails) sampled, encoded and written at a time, through a
    /// temporary name (`writeAtomically`: a folder of sheets and index files, or one BIF file). Returns the frames (without pictures), what was written, the sheets' peak bandwidth, the redrawn count.
    private static func write(plan: StoryboardPlan, sampler: FrameSampler, video: VideoStreamInfo, request: StoryboardRequest, input: String,
                              warnings: inout [MediaWarning]) throws(MediaError)
        -> (frames: [SampledFrame], files: [String], bandwidth: Int, redrawn: Int) {
        let output = plan.outputPath
        let parent = (output as NSString).deletingLastPathComponent
        // The folders this run creates (a Jellyfin `.trickplay` folder, --output-dir's mirror) go again if it fails
        // or is interrupted: registered as temporaries until the storyboard is in place.
        var created = parent
        while !DiskFile.exists((created as NSString).deletingLastPathComponent) { created = (created as NSString).deletingLastPathComponent }
        let createsFolders = !DiskFile.exists(parent)
        if createsFolders, !TemporaryFiles.shared.add(created) { throw Interrupt.error(input) }
        defer { if createsFolders { TemporaryFiles.shared.remove(created) } }
        guard DiskFile.makeFolders(parent) else {
            throw MediaError(.writeFailed, path: input, operation: "mkdir", reason: "cannot create \(parent) (\(String(cString: strerror(errno))))")
        }
        do throws(MediaError) {
            return try writeFormat(plan: plan, sampler: sampler, video: video, request: request, input: input, output: output, warnings: &warnings)
        } catch {
            if createsFolders { removeTree(created) }
            throw error
        }
    }

    /// Samples a storyboard a chunk at a time (a sheet, or a hundred BIF thumbnails), keeping the frames without their
    /// pictures for the report, so a long film's thumbnails are never all held at once.
    private struct Chunks {
        let sampler: FrameSampler
        let plan: StoryboardPlan
        let request: StoryboardRequest
        let input: String
        var frames: [SampledFrame] = []
        var redrawn = 0

        /// Samples the chunk, checks what its frames say (throws when none at all decoded), hands them on.
        mutating func chunk(_ indices: Range<Int>, _ use: ([SampledFrame]) throws(MediaError) -> Void) throws(MediaError) {
            if Interrupt.requested { throw Interrupt.error(input) }
            let (sampled, again) = try sample(sampler, indices, plan: plan, request: request)
            redrawn += again
            try use(sampled)
            frames += sampled.map(withoutPicture)
        }

        /// What the frames say, and `--strict`'s refusal of it: before anything is renamed into place.
        func judged(_ warnings: inout [MediaWarning], video: VideoStreamInfo) throws(MediaError) {
            warnings += try ThumbsJob.frameWarnings(frames, video: video, toneMapsHDR: request.toneMapsHDR, path: input)
            if request.strict, !warnings.isEmpty { throw strictError(warnings, input: input) }
        }
    }

    private static func writeFormat(plan: StoryboardPlan, sampler: FrameSampler, video: VideoStreamInfo, request: StoryboardRequest,
                                    input: String, output: String, warnings: inout [MediaWarning]) throws(MediaError)
        -> (frames: [SampledFrame], files: [String], bandwidth: Int, redrawn: Int) {
        var chunks = Chunks(sampler: sampler, plan: plan, request: request, input: input)
        let target = OutputTarget(path: output, overwrite: request.overwrite)
        if plan.format == .bif {
            // Each JPEG goes to the temporary file as it is encoded; the header and index are written last.
            var size = 0
            try writeAtomically(target, input: input) { temporary throws(MediaError) in
                var file = try BIFWriter(path: temporary, count: plan.thumbnailCount, intervalSeconds: plan.intervalSeconds, input: input)
                // A hundred at a time, fewer when thumbnails are large (at most vtrim's picture budget in memory).
                let perChunk = max(1, min(100, ThumbsRequest.maximumPixels / max(1, plan.thumbnailWidth * plan.thumbnailHeight)))
                for start in stride(from: 0, to: plan.thumbnailCount, by: perChunk) {
                    try chunks.chunk(start..<min(plan.thumbnailCount, start + perChunk)) { (sampled: [SampledFrame]) throws(MediaError) in
                        for frame in sampled {
                            let image = frame.image ?? RGBImage(width: plan.thumbnailWidth, height: plan.thumbnailHeight, fill: Filmstrip.placeholder)
                            try file.append(try ImageFile.encoded(image, format: .jpeg, quality: request.quality, path: output))
                        }
                    }
                }
                try chunks.judged(&warnings, video: video)
                size = try file.finish()
            }
            let seconds = max(plan.intervalSeconds, plan.durationSeconds)
            return (chunks.frames, [output], Int((Double(size) * 8 / seconds).rounded(.up)), chunks.redrawn)
        }
        var names: [String] = []
        var bandwidth = 0
        try writeAtomically(target, input: input) { temporary throws(MediaError) in
            guard DiskFile.makeFolder(temporary) == 0 else {
                throw MediaError(.writeFailed, path: input, operation: "mkdir", reason: "cannot create \(temporary) (\(String(cString: strerror(errno))))")
            }
            var sheetBytes: [Int] = []
            for (sheet, name) in plan.sheetNames.enumerated() {
                let first = sheet * plan.cellsPerSheet
                try chunks.chunk(first..<min(plan.thumbnailCount, first + plan.cellsPerSheet)) { (sampled: [SampledFrame]) throws(MediaError) in
                    // Every sheet is a full grid; cells past the last thumbnail stay black.
                    let cells = sampled.enumerated().map { offset, frame in
                        let place = plan.place(first + offset)
                        return Filmstrip.Cell(x: place.x, y: place.y, width: plan.thumbnailWidth, height: plan.thumbnailHeight, image: frame.image)
                    }
                    let picture = Filmstrip.compose(cells, width: plan.sheetWidth, height: plan.sheetHeight)
                    let bytes = try ImageFile.encoded(picture, format: .jpeg, quality: request.quality, path: output)
                    try writeFile(temporary + "/" + name, bytes, input: input)
                    sheetBytes.append(bytes.count)
                    names.append(name)
                }
            }
            try chunks.judged(&warnings, video: video)
            bandwidth = StoryboardFiles.bandwidth(sheetBytes: sheetBytes, plan: plan)
            for (name, text) in StoryboardFiles.indexFiles(plan: plan, bandwidth: bandwidth) {
                try writeFile(temporary + "/" + name, Array(text.utf8), input: input)
                names.append(name)
            }
        }
        return (chunks.frames, names.map { output + "/" + $0 }, bandwidth, chunks.redrawn)
    }

    /// `--strict`: the first warning, as the error (nothing is written).
    private static func strictError(_ warnings: [MediaWarning], input: String) -> MediaError {
        MediaError(.strictWarning, path: input, operation: "strict", reason: "warning treated as an error (--strict): \(warnings[0].message)")
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8], input: String) throws(MediaError) {
        guard DiskFile.write(bytes, to: path) else {
            throw MediaError(.writeFailed, path: input, operation: "write", reason: "cannot write \(path) (\(String(cString: strerror(errno))))")
        }
    }

    private static func removeTree(_ path: String) {
        DiskFile.removeTree(path)
    }

    /// The report: the storyboard's numbers (Jellyfin's TrickplayInfo fields among them), every file written, and
    /// each thumbnail's time and the time of the frame it shows.
    private static func report(plan: StoryboardPlan, request: StoryboardRequest, frames: [SampledFrame]?, files: [String],
                               bandwidth: Int?, redrawn: Int = 0) -> [(String, JSON)] {
        let isBIF = plan.format == .bif
        var storyboard: [(String, JSON)] = [
            ("format", .string(plan.format.rawValue)),
            ("thumbnail_width", .int(Int64(plan.thumbnailWidth))),
            ("thumbnail_height", .int(Int64(plan.thumbnailHeight))),
            ("tile_columns", .int(Int64(isBIF ? 1 : plan.columns))),
            ("tile_rows", .int(Int64(isBIF ? 1 : plan.rows))),
            ("thumbnail_count", .int(Int64(plan.thumbnailCount))),
            ("interval", .number(plan.intervalSeconds)),
            ("bandwidth", bandwidth.map { .int(Int64($0)) } ?? .null),
            ("files", .array(files.map { .string($0) })),
        ]
        if request.mode == .fast { storyboard.append(("drawn_accurately", .int(Int64(redrawn)))) }
        return [
            ("output", .string(plan.outputPath)),
            ("width", .int(Int64(isBIF ? plan.thumbnailWidth : plan.sheetWidth))),
            ("height", .int(Int64(isBIF ? plan.thumbnailHeight : plan.sheetHeight))),
            ("mode", .string(request.mode.rawValue)),
            ("storyboard", .object(storyboard)),
            ("cells", .array(plan.timesSeconds.indices.map { index in
                let place = plan.place(index)
                var cell: [(String, JSON)] = [("index", .int(Int64(index))), ("time", .number(plan.timesSeconds[index]))]
                if let frames, index < frames.count { cell.append(("pts", .optional(frames[index].frameSeconds))) }
                if !isBIF {
                    cell += [("sheet", .int(Int64(place.sheet))), ("x", .int(Int64(place.x))), ("y", .int(Int64(place.y)))]
                }
                return .object(cell)
            })),
        ]
    }
}
