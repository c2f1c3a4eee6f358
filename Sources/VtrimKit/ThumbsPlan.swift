import MediaEngine
import TimelineCore

/// Where every cell of a strip goes and which time it shows, decided before any decoding.
struct ThumbsPlan {
    struct Cell {
        var timeSeconds: Double
        /// The part of the range the cell stands for: its WebVTT cue, and where `--skip-dull` may look.
        /// `--count`: [start + i·span/N, start + (i+1)·span/N); `--every` and VideoLine: [tᵢ, tᵢ₊₁); the last
        /// one runs to the range's end.
        var windowStartSeconds: Double
        var windowEndSeconds: Double
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    var cells: [Cell]
    var widthPixels: Int
    var heightPixels: Int
    var cellWidthPixels: Int
    var cellHeightPixels: Int
    var fit: CellFit
    var columns: Int
    var rows: Int
    var layoutName: String
    var rangeSeconds: ClosedRange<Double>
    var timeSpacingSeconds: Double?
    /// `--header`: the band above the cells (0: none).
    var headerHeightPixels = 0

    /// The same sheet with a header band of `height` pixels above the cells.
    func withHeader(height: Int) -> ThumbsPlan {
        var plan = self
        plan.headerHeightPixels = height
        plan.heightPixels += height
        plan.cells = cells.map { cell in
            var moved = cell
            moved.y += height
            return moved
        }
        return plan
    }

    /// Nearest distance between two cells' times (nil with one cell): how finely `--timestamps` writes them.
    var closestSpacingSeconds: Double? {
        let times = cells.map(\.timeSeconds).sorted()
        return zip(times, times.dropFirst()).map { $1 - $0 }.min()
    }

    static func make(info: MediaInfo, video: VideoStreamInfo, request: ThumbsRequest, format: ImageFormat,
                     path: String) throws(MediaError) -> ThumbsPlan {
        try make(info: info, cellAspect: Double(video.displayWidth) / Double(max(video.displayHeight, 1)), request: request, format: format, path: path)
    }

    /// The plan of cells `cellAspect` (width / height) wide: a video's display aspect, or a waveform's.
    static func make(info: MediaInfo, cellAspect: Double, request: ThumbsRequest, format: ImageFormat,
                     path: String) throws(MediaError) -> ThumbsPlan {
        let duration = info.durationSeconds
        guard duration > 0 else {
            throw MediaError(.invalidRange, path: path, operation: "plan", reason: "has no duration to sample")
        }
        let plan: ThumbsPlan
        switch request.sampling {
        case let .videoLine(layout):
            plan = try videoLine(layout, duration: duration, path: path)
        case let .count(count):
            let range = try resolveRange(request, duration: duration, path: path)
            let times = try schedule(path: path) { () throws(SampleScheduleError) in
                try SampleSchedule.count(count, from: range.lowerBound, to: range.upperBound)
            }
            let span = range.upperBound - range.lowerBound
            let parts = times.indices.map { index in
                (range.lowerBound + Double(index) * span / Double(times.count),
                 index == times.count - 1 ? range.upperBound : range.lowerBound + Double(index + 1) * span / Double(times.count))
            }
            plan = grid(times: times, windows: parts, range: range, spacing: nil, aspect: cellAspect, request: request)
        case let .every(spacing):
            let range = try resolveRange(request, duration: duration, path: path)
            let times = try schedule(path: path) { () throws(SampleScheduleError) in
                try SampleSchedule.every(spacingSeconds: spacing, from: range.lowerBound, to: range.upperBound)
            }
            plan = grid(times: times, windows: windows(startingAt: times, end: range.upperBound), range: range,
                        spacing: spacing, aspect: cellAspect, request: request)
        }
        let limit = min(ThumbsRequest.maximumSidePixels, format.maximumSidePixels)
        if plan.widthPixels > limit || plan.heightPixels > limit || plan.widthPixels * plan.heightPixels > ThumbsRequest.maximumPixels {
            var hint = plan.layoutName == "videoline" ? "a smaller --scale or a larger --window-max" : "--columns to wrap it into a grid, or a larger --every"
            if limit < ThumbsRequest.maximumSidePixels { hint += ", or a .png or .jpg output" }
            throw MediaError(.tooLarge, path: path, operation: "plan",
                             reason: "the strip would be \(plan.widthPixels)x\(plan.heightPixels) px, over the \(limit) px limit of \(format == .webp ? "WebP" : "vtrim"); use \(hint)")
        }
        return plan
    }

    /// Windows that start at each sample time and end at the next one (the last at `end`).
    private static func windows(startingAt times: [Double], end: Double) -> [(Double, Double)] {
        times.indices.map { index in (times[index], index + 1 < times.count ? times[index + 1] : end) }
    }

    private static func schedule(path: String, _ make: () throws(SampleScheduleError) -> [Double]) throws(MediaError) -> [Double] {
        do {
            return try make()
        } catch {
            throw MediaError(.invalidRange, path: path, operation: "schedule", reason: error.description)
        }
    }

    /// `--start/--end` against this file's duration; `end` past the file is the file's end.
    private static func resolveRange(_ request: ThumbsRequest, duration: Double, path: String) throws(MediaError) -> ClosedRange<Double> {
        do {
            let start = try request.start?.resolve(durationSeconds: duration) ?? 0
            let end = min(try request.end?.resolve(durationSeconds: duration) ?? duration, duration)
            guard start < end else {
                throw MediaError(.invalidRange, path: path, operation: "range",
                                 reason: "the range \(Human.seconds(start))–\(Human.seconds(end)) is empty for a \(Human.seconds(duration)) file")
            }
            return start...end
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.invalidRange, path: path, operation: "range", reason: "\(error)")
        }
    }

    /// Cells of the display aspect at `--height`, in one row or `--columns` wide.
    private static func grid(times: [Double], windows: [(Double, Double)], range: ClosedRange<Double>, spacing: Double?,
                             aspect: Double, request: ThumbsRequest) -> ThumbsPlan {
        let cellHeight = request.heightPixels
        let cellWidth = max(1, Int((Double(cellHeight) * aspect).rounded()))
        let columns = max(1, min(request.columns ?? times.count, times.count))
        let rows = (times.count + columns - 1) / columns
        let cells = times.enumerated().map { index, time in
            Cell(timeSeconds: time, windowStartSeconds: windows[index].0, windowEndSeconds: windows[index].1,
                 x: (index % columns) * cellWidth, y: (index / columns) * cellHeight,
                 width: cellWidth, height: cellHeight)
        }
        return ThumbsPlan(cells: cells, widthPixels: columns * cellWidth, heightPixels: rows * cellHeight,
                          cellWidthPixels: cellWidth, cellHeightPixels: cellHeight, fit: .exact, columns: columns,
                          rows: rows, layoutName: "grid", rangeSeconds: range, timeSpacingSeconds: spacing)
    }

    /// VideoLine's strip: cells of exactly the thumbnail size (× pixels per point), the last one partial,
    /// pictures filling the cell and centre-cropped.
    static func videoLine(_ layout: ThumbsRequest.VideoLineLayout, duration: Double, path: String) throws(MediaError) -> ThumbsPlan {
        var configuration = TimelineConfiguration(durationSeconds: duration, stripWidthPoints: layout.stripWidthPoints,
                                                  thumbnailWidthPoints: layout.thumbWidthPoints,
                                                  thumbnailHeightPoints: layout.thumbHeightPoints)
        configuration.setLimits(minimumSeconds: layout.minDurationSeconds, maximumSeconds: layout.maxDurationSeconds)
        let geometry: TimelineGeometry
        do {
            geometry = try TimelineGeometry(configuration: configuration)
        } catch {
            throw MediaError(.invalidRange, path: path, operation: "timeline", reason: error.description)
        }
        let scale = layout.pixelsPerPoint
        func pixels(_ points: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
            let value = (points * scale).rounded(rule)
            return value.isFinite && abs(value) < 1e15 ? Int(value) : Int.max / 4
        }
        let cellWidth = max(1, pixels(layout.thumbWidthPoints)), cellHeight = max(1, pixels(layout.thumbHeightPoints))
        guard cellWidth <= ThumbsRequest.maximumSidePixels, cellHeight <= ThumbsRequest.maximumSidePixels else {
            throw MediaError(.tooLarge, path: path, operation: "plan",
                             reason: "a cell would be \(cellWidth)x\(cellHeight) px, over the \(ThumbsRequest.maximumSidePixels) px limit")
        }
        let totalWidth = max(1, pixels(geometry.contentWidthPoints, .up))
        guard geometry.thumbnailCount <= ThumbsRequest.maximumSidePixels else {
            throw MediaError(.tooLarge, path: path, operation: "plan",
                             reason: "the strip would have \(geometry.thumbnailCount) cells; use a smaller --scale or a larger --window-max")
        }
        let times = geometry.cells.map(\.sampleTimeSeconds)
        let cellWindows = windows(startingAt: times, end: duration)
        let cells = geometry.cells.map { cell in
            let x = pixels(cell.xPoints)
            let right = min(totalWidth, pixels(cell.xPoints + cell.widthPoints))
            return Cell(timeSeconds: cell.sampleTimeSeconds, windowStartSeconds: cellWindows[cell.index].0,
                        windowEndSeconds: cellWindows[cell.index].1, x: x, y: 0, width: max(1, right - x), height: cellHeight)
        }
        return ThumbsPlan(cells: cells, widthPixels: totalWidth, heightPixels: cellHeight, cellWidthPixels: cellWidth,
                          cellHeightPixels: cellHeight, fit: .fillCrop, columns: cells.count, rows: 1,
                          layoutName: "videoline", rangeSeconds: 0...duration, timeSpacingSeconds: geometry.timeSpacingSeconds)
    }
}
