import DiskNames
import Foundation
import MediaEngine
import TimelineCore
import WorkerProtocol

/// `vtrim thumbs` on a file without pictures: its waveform in the cells thumbnails would fill — the same sampling
/// (`--count`, `--every`, VideoLine), the same layout, cells 16:9 at `--height` — each cell the loudest sample of every
/// slice of its own part of the range, drawn as bars mirrored about the middle (as `vtrim serve` draws a sound clip).
enum WaveformSheet {
    static let cellAspect = 16.0 / 9

    static func run(path: String, target: OutputTarget, request: ThumbsRequest, info: MediaInfo,
                    warnings: [MediaWarning]) throws(MediaError) -> Outcome {
        if request.framesFolder != nil {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream to write --frames-dir pictures from")
        }
        let format = try ThumbsRequest.format(of: target.path, input: path)
        let plan = try ThumbsPlan.make(info: info, cellAspect: cellAspect, request: request, format: format, path: path)
        let trackTarget = request.writesVTT
            ? OutputTarget(path: ThumbsJob.trackPath(forSheet: target.path), overwrite: request.overwrite, createsFolder: target.createsFolder) : nil
        try trackTarget?.check(input: path, dryRun: request.dryRun)
        var fields = ThumbsJob.planFields(target: target.path, plan: plan, request: request) { _ in [("pts", .null)] }
        fields[fields.firstIndex { $0.0 == "mode" } ?? 3].1 = .string("waveform")
        fields.insert(("format", .string(format.rawValue)), at: 1)
        if let trackTarget { fields.insert(("vtt", .string(trackTarget.path)), at: 2) }
        if request.dryRun {
            return Outcome(path: path, status: .succeeded, warnings: warnings, fields: [("dry_run", .bool(true))] + fields,
                           lines: ["\(path) → \(target.path) (\(plan.widthPixels)x\(plan.heightPixels), \(plan.cells.count) cells, waveform, dry run: nothing written)"])
        }
        let image = try draw(plan, path: path)
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            try ImageFile.write(image, to: temporary, format: format, quality: request.quality,
                                text: [("Software", "vtrim"), ("vtrim:source", DiskName.display(path)), ("vtrim:waveform", "1")])
        }
        if let trackTarget { try ThumbsJob.writeTrack(plan, sheet: target, to: trackTarget, input: path) }
        return Outcome(path: path, status: .succeeded, warnings: warnings, fields: fields,
                       lines: ["\(path) → \(target.path) (\(plan.widthPixels)x\(plan.heightPixels), \(plan.cells.count) cells, waveform)"])
    }

    /// Every cell's waveform, one column per pixel, on the strip's dark ground.
    static func draw(_ plan: ThumbsPlan, path: String) throws(MediaError) -> RGBImage {
        var image = RGBImage(width: plan.widthPixels, height: plan.heightPixels, fill: Waveform.background)
        for cell in plan.cells where cell.windowEndSeconds > cell.windowStartSeconds {
            let peaks = try AudioPeaks.read(path: path, startSeconds: cell.windowStartSeconds, endSeconds: cell.windowEndSeconds,
                                            columns: max(1, cell.width))
            let top = cell.y + plan.headerHeightPixels
            let middle = Double(cell.height - 1) / 2
            for (column, peak) in peaks.enumerated() where column < cell.width {
                let reach = Double(peak) * middle
                let from = Int((middle - reach).rounded(.down)), to = Int((middle + reach).rounded(.up))
                for y in max(0, from)...min(cell.height - 1, max(from, to)) { image.set(x: cell.x + column, y: top + y, Waveform.bar) }
            }
            for y in 0..<cell.height where cell.x > 0 { image.set(x: cell.x, y: top + y, Waveform.cellEdge) }
        }
        return image
    }
}

/// `--waveform-data FILE.json`: the input's waveform in BBC audiowaveform's JSON (version 2, one channel, 8 bits), which
/// peaks.js reads: a min/max pair per `samples_per_pixel` samples — here the loudest sample of each slice as
/// max and its negative as min (the mirrored bars vtrim draws), at least 256 samples per pixel and at most 32,768 pixels.
enum WaveformData {
    static func write(path: String, to target: OutputTarget, info: MediaInfo) throws(MediaError) {
        guard let audio = info.audio.first, audio.sampleRate > 0 else {
            throw MediaError(.noAudio, path: path, operation: "waveform data", reason: "has no audio stream to draw a waveform of")
        }
        let duration = info.durationSeconds
        guard duration > 0, duration.isFinite else {
            throw MediaError(.invalidRange, path: path, operation: "waveform data", reason: "has no duration to draw")
        }
        let samples = duration * Double(audio.sampleRate)
        let perPixel = max(256, Int((samples / 32768).rounded(.up)))
        let columns = max(1, min(32768, Int((samples / Double(perPixel)).rounded(.up))))
        let peaks = try AudioPeaks.read(path: path, startSeconds: 0, endSeconds: Double(columns * perPixel) / Double(audio.sampleRate), columns: columns)
        var data: [JSON] = []
        data.reserveCapacity(columns * 2)
        for peak in peaks {
            let value = Int64((Double(peak) * 127).rounded())
            data.append(.int(-value))
            data.append(.int(value))
        }
        let json = JSON.object([("version", .int(2)), ("channels", .int(1)), ("sample_rate", .int(Int64(audio.sampleRate))),
                                ("samples_per_pixel", .int(Int64(perPixel))), ("bits", .int(8)), ("length", .int(Int64(columns))),
                                ("data", .array(data))])
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            guard DiskFile.write(Array(json.serialized.utf8), to: temporary) else {
                throw MediaError(.writeFailed, path: path, operation: "write", reason: "cannot write \(target.path)")
            }
        }
    }
}
