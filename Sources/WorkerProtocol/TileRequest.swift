import Foundation

/// The strip `vtrim thumbs --strip-width … --thumb-size …` lays out (VideoLine's geometry), in points.
public struct VideoLineLayout: Sendable, Hashable, Codable {
    public var stripWidthPoints: Double
    public var thumbWidthPoints: Double
    public var thumbHeightPoints: Double
    public var minDurationSeconds: Double?
    public var maxDurationSeconds: Double?
    public var pixelsPerPoint: Double

    public init(stripWidthPoints: Double, thumbWidthPoints: Double, thumbHeightPoints: Double,
                minDurationSeconds: Double?, maxDurationSeconds: Double?, pixelsPerPoint: Double) {
        self.stripWidthPoints = stripWidthPoints
        self.thumbWidthPoints = thumbWidthPoints
        self.thumbHeightPoints = thumbHeightPoints
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.pixelsPerPoint = pixelsPerPoint
    }
}

/// A piece of a VideoLine strip: cells `first ..< first + count`, for a page that loads only what scrolls into view.
public struct TileRequest: Sendable, Hashable, Codable {
    /// `accurate`: each cell the frame shown at its time; `fast`: the keyframe at or before it (a first
    /// picture while the accurate tile is made).
    public enum Sampling: String, Sendable, Hashable, Codable { case accurate, fast }

    public var layout: VideoLineLayout
    public var first: Int
    public var count: Int
    public var sampling: Sampling
    /// Decoders working on the tile's cells at once.
    public var workers: Int
    /// Each cell the first frame from its time on that is not dull (black, white, one colour: a fade-in, a slate),
    /// searched up to the next cell's time (at most 5 s on), as `vtrim thumbs --skip-dull` does (accurate sampling
    /// only): posters.
    public var skipDull: Bool?

    public init(layout: VideoLineLayout, first: Int, count: Int, sampling: Sampling = .accurate, workers: Int = 1, skipDull: Bool = false) {
        self.layout = layout
        self.first = first
        self.count = count
        self.sampling = sampling
        self.workers = workers
        self.skipDull = skipDull ? true : nil
    }
}
