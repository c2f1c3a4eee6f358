import Foundation
import MediaEngine
import WorkerProtocol

/// A piece of a VideoLine strip: cells `first ..< first + count` of the strip `vtrim thumbs --strip-width
/// … --thumb-size …` lays out (the same cells, times and pixels), for a page that loads only what scrolls
/// into view — a 10-minute clip has over a thousand cells, wider than any single PNG may be.
public enum FilmstripTile {
    /// The cells to draw (the worker protocol's value: `vtrim serve` asks for tiles).
    public typealias Request = TileRequest

    /// What was drawn: the tile's size and each cell's requested and shown time.
    public struct Tile: Sendable {
        public var widthPixels: Int
        public var heightPixels: Int
        public var cellCount: Int
        public var failedCells: Int
    }

    /// How far past its time a cell looks for a frame that is not dull (`skipDull`): a fade or a slate, not a clip.
    static let dullSearchSeconds = 5.0

    /// The largest tile drawn (pixels): 64 cells of 256×256 at scale 2.
    static let maximumPixels = 16 << 20

    /// Renders the tile into `output` (PNG, written atomically). Cells past the strip's end are left out.
    /// A clip without pictures but with sound gets its waveform in the same cells (`Waveform`).
    public static func render(path: String, request: Request, output: String, decoderThreads: Int = 1) throws(MediaError) -> Tile {
        let sampler: FrameSampler
        do {
            sampler = try FrameSampler(path: path)
        } catch where error.code == .noVideo {
            let info = try Probe.probe(path: path)
            guard !info.audio.isEmpty else { throw error }
            return try Waveform.render(path: path, request: request, durationSeconds: info.durationSeconds, output: output)
        }
        let plan = try ThumbsPlan.videoLine(request.layout, duration: sampler.info.durationSeconds, path: path)
        let (cells, left, last) = try tileCells(plan, request: request, path: path)
        let width = try tileWidth(plan, left: left, last: last, path: path)
        var sampling = SampleRequest(
            timesSeconds: cells.map(\.timeSeconds), mode: request.sampling == .fast ? .fast : .accurate, cellWidthPixels: plan.cellWidthPixels,
            cellHeightPixels: plan.cellHeightPixels, fit: plan.fit, decoderThreads: decoderThreads)
        if request.skipDull == true, request.sampling == .accurate {
            // Bounded: a clip dark throughout would otherwise decode a third of itself for one poster.
            sampling.dullSearchEndsSeconds = cells.map { min($0.windowEndSeconds, $0.timeSeconds + Self.dullSearchSeconds) }
        }
        let frames = try sampler.sample(sampling, workers: request.workers)
        let image = Filmstrip.compose(zip(cells, frames).map { cell, frame in
            Filmstrip.Cell(x: cell.x - left, y: 0, width: cell.width, height: cell.height, image: frame.image)
        }, width: width, height: plan.heightPixels)
        let target = OutputTarget(path: output, overwrite: true)
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            try PNGFile.write(image, to: temporary, text: [("Software", "vtrim"), ("vtrim:source", path),
                                                           ("vtrim:times", frames.map { JSON.format($0.requestedSeconds) }.joined(separator: ","))])
        }
        return Tile(widthPixels: width, heightPixels: plan.heightPixels, cellCount: cells.count,
                    failedCells: frames.filter { $0.image == nil }.count)
    }

    /// The request's cells of the strip, with the first one's x and the last one.
    static func tileCells(_ plan: ThumbsPlan, request: Request, path: String) throws(MediaError) -> ([ThumbsPlan.Cell], Int, ThumbsPlan.Cell) {
        let first = max(0, min(request.first, plan.cells.count))
        // The count a request gives may be any Int: taken up to the cells there are, never added to `first`.
        let cells = Array(plan.cells[first..<(first + min(max(0, request.count), plan.cells.count - first))])
        guard let left = cells.first?.x, let last = cells.last else {
            throw MediaError(.invalidRange, path: path, operation: "tile",
                             reason: "the strip has \(plan.cells.count) cells; cell \(request.first) is past its end")
        }
        return (cells, left, last)
    }

    /// A tile is a few cells of a page's strip; past this it can only be a request for gigabytes.
    static func tileWidth(_ plan: ThumbsPlan, left: Int, last: ThumbsPlan.Cell, path: String) throws(MediaError) -> Int {
        let width = last.x + last.width - left
        guard width >= 1 else {
            throw MediaError(.invalidRange, path: path, operation: "tile", reason: "the cells asked for are no pixels wide; ask for others")
        }
        let area = width.multipliedReportingOverflow(by: plan.heightPixels)
        guard width <= ThumbsRequest.maximumSidePixels, !area.overflow, area.partialValue <= Self.maximumPixels else {
            throw MediaError(.tooLarge, path: path, operation: "tile",
                             reason: "the tile would be \(width)x\(plan.heightPixels) px; ask for fewer or smaller cells")
        }
        return width
    }
}
