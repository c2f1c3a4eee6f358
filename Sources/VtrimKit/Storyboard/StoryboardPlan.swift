import Foundation

/// The storyboard formats media servers and players read (`vtrim thumbs --storyboard`).
public enum StoryboardFormat: String, Sendable, CaseIterable, Codable {
    /// Jellyfin's trickplay folder: `<stem>.trickplay/<width> - <cols>x<rows>/0.jpg, 1.jpg, …`.
    case jellyfin
    /// Roku/Emby BIF v0: `<stem>-<width>-<interval>.bif`, one JPEG per thumbnail.
    case bif
    /// An HLS image media playlist (`#EXT-X-IMAGES-ONLY`, `#EXT-X-TILES`) over the sheets.
    case hls
    /// A DASH thumbnail AdaptationSet (DASH-IF `thumbnail_tile`) over the sheets, as an MPD fragment.
    case dash
}

/// A storyboard, decided before any decoding: the thumbnails' times and size, the sheets they are tiled into
/// and the files written. Pure: the job samples and writes what it says.
public struct StoryboardPlan: Sendable, Equatable {
    public var format: StoryboardFormat
    public var intervalSeconds: Double
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    public var columns: Int
    public var rows: Int
    /// Thumbnail i shows the frame at i × interval (0 ≤ time < duration).
    public var timesSeconds: [Double]
    public var durationSeconds: Double
    /// Where the storyboard goes: a folder (jellyfin, hls, dash) or the BIF file.
    public var outputPath: String

    public var thumbnailCount: Int { timesSeconds.count }
    public var cellsPerSheet: Int { columns * rows }
    public var sheetCount: Int { format == .bif ? 0 : (thumbnailCount + cellsPerSheet - 1) / cellsPerSheet }
    public var sheetWidth: Int { thumbnailWidth * columns }
    public var sheetHeight: Int { thumbnailHeight * rows }
    /// A sheet's own span of time (the last one's ends with the file).
    public var sheetSeconds: Double { intervalSeconds * Double(cellsPerSheet) }

    /// Jellyfin's defaults, so its import finds the folder: 10 s, 320 px, 10×10.
    public static let defaultIntervalSeconds = 10.0
    public static let defaultWidth = 320
    public static let defaultTile = (columns: 10, rows: 10)
    /// More thumbnails than this is no storyboard (a day at one a second).
    public static let maximumThumbnails = 86_400

    public enum PlanError: Error, Equatable, CustomStringConvertible {
        case noDuration
        /// An interval, thumbnail width or tile that is no size (0, negative, not finite).
        case invalidSize(String)
        case tooMany(Int)
        case tooLarge(width: Int, height: Int)

        public var description: String {
            switch self {
            case .noDuration: return "has no duration to sample"
            case let .invalidSize(what): return what
            case let .tooMany(count): return "would need \(count) thumbnails (more than \(StoryboardPlan.maximumThumbnails)); use a larger --every"
            case let .tooLarge(width, height): return "a sheet or thumbnail would be \(width)x\(height) px, over vtrim's limit (\(ThumbsRequest.maximumSidePixels) px a side, 256 megapixels); use a smaller --tile or --width"
            }
        }
    }

    /// - Parameters:
    ///   - displayWidth, displayHeight: the picture as a player shows it (orientation and aspect applied).
    ///   - videoPath: the input; the storyboard goes beside it, or below `folder` when given (--output-dir).
    public static func make(format: StoryboardFormat, durationSeconds: Double, displayWidth: Int, displayHeight: Int,
                            intervalSeconds: Double, width: Int, columns: Int, rows: Int, outputFolder: String,
                            videoStem: String) throws(PlanError) -> StoryboardPlan {
        guard durationSeconds.isFinite, durationSeconds > 0 else { throw .noDuration }
        guard intervalSeconds.isFinite, intervalSeconds > 0 else { throw .invalidSize("the interval between thumbnails must be a positive number of seconds") }
        guard width >= 1, width <= ThumbsRequest.maximumSidePixels, columns >= 1, rows >= 1 else {
            throw .invalidSize("a thumbnail is at least 1 pixel wide (at most \(ThumbsRequest.maximumSidePixels)) and a tile at least 1x1")
        }
        let exact = durationSeconds / intervalSeconds
        guard exact.isFinite, exact < Double(maximumThumbnails) else { throw .tooMany(exact.isFinite && exact < 1e15 ? Int(exact.rounded(.up)) : Int.max) }
        let count = max(1, Int(exact.rounded(.up)))
        let times = (0..<count).map { Double($0) * intervalSeconds }
        let height = evenHeight(width: width, displayWidth: displayWidth, displayHeight: displayHeight)
        let (sheetWidth, sheetHeight) = (width.multipliedReportingOverflow(by: columns), height.multipliedReportingOverflow(by: rows))
        guard format == .bif || (!sheetWidth.overflow && !sheetHeight.overflow && sheetWidth.partialValue <= ThumbsRequest.maximumSidePixels
                                 && sheetHeight.partialValue <= ThumbsRequest.maximumSidePixels
                                 && sheetWidth.partialValue * sheetHeight.partialValue <= ThumbsRequest.maximumPixels) else {
            throw .tooLarge(width: sheetWidth.partialValue, height: sheetHeight.partialValue)
        }
        // A thumbnail over vtrim's picture budget (a crafted aspect ratio at a wide --width) is refused too.
        guard width.multipliedReportingOverflow(by: height).partialValue <= ThumbsRequest.maximumPixels else {
            throw .tooLarge(width: width, height: height)
        }
        let output = outputPath(format: format, intervalSeconds: intervalSeconds, width: width, columns: columns, rows: rows,
                                outputFolder: outputFolder, videoStem: videoStem)
        return StoryboardPlan(format: format, intervalSeconds: intervalSeconds, thumbnailWidth: width, thumbnailHeight: height,
                              columns: columns, rows: rows, timesSeconds: times, durationSeconds: durationSeconds, outputPath: output)
    }

    /// Where a storyboard goes: known from the request alone, before the video is probed.
    public static func outputPath(format: StoryboardFormat, intervalSeconds: Double, width: Int, columns: Int, rows: Int,
                                  outputFolder: String, videoStem: String) -> String {
        switch format {
        case .jellyfin: return outputFolder + "/" + videoStem + ".trickplay/\(width) - \(columns)x\(rows)"
        case .hls: return outputFolder + "/" + videoStem + ".trickplay-hls/\(width) - \(columns)x\(rows)"
        case .dash: return outputFolder + "/" + videoStem + ".trickplay-dash/\(width) - \(columns)x\(rows)"
        case .bif: return outputFolder + "/" + videoStem + "-\(width)-\(secondsText(intervalSeconds)).bif"
        }
    }

    /// The height that keeps the display aspect at `width`, rounded to an even number (at least 2).
    static func evenHeight(width: Int, displayWidth: Int, displayHeight: Int) -> Int {
        let exact = Double(width) * Double(max(1, displayHeight)) / Double(max(1, displayWidth))
        let even = (exact / 2).rounded() * 2
        return even.isFinite && even >= 2 ? Int(min(even, Double(ThumbsRequest.maximumSidePixels - 1))) : 2
    }

    /// Seconds as a name or a playlist writes them: no trailing zeros ("10", "2.5").
    static func secondsText(_ seconds: Double) -> String {
        var text = String(format: "%.3f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The sheets' file names, in order.
    public var sheetNames: [String] { (0..<sheetCount).map { "\($0).jpg" } }

    /// Where thumbnail `index` sits: its sheet and its cell's box on it (left→right, then top→bottom).
    public func place(_ index: Int) -> (sheet: Int, x: Int, y: Int) {
        let cell = index % cellsPerSheet
        return (index / cellsPerSheet, (cell % columns) * thumbnailWidth, (cell / columns) * thumbnailHeight)
    }

    /// How long sheet `index` spans on the timeline (the last one ends with the file).
    public func sheetDuration(_ index: Int) -> Double {
        min(sheetSeconds, max(0, durationSeconds - Double(index) * sheetSeconds))
    }
}
