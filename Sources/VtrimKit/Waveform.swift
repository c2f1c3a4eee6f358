import Foundation
import MediaEngine

/// The filmstrip of a clip without pictures: its waveform in the cells a video's thumbnails would fill
/// (the same strip geometry, so the page's handles and tiles work unchanged). Each pixel column is the
/// loudest sample of the time it covers on the strip, drawn as a bar mirrored about the middle.
enum Waveform {
    static let background: (UInt8, UInt8, UInt8) = (31, 38, 48)
    static let bar: (UInt8, UInt8, UInt8) = (120, 190, 255)
    static let cellEdge: (UInt8, UInt8, UInt8) = (18, 22, 28)

    static func render(path: String, request: FilmstripTile.Request, durationSeconds: Double, output: String) throws(MediaError) -> FilmstripTile.Tile {
        let plan = try ThumbsPlan.videoLine(request.layout, duration: durationSeconds, path: path)
        let (cells, left, last) = try FilmstripTile.tileCells(plan, request: request, path: path)
        let width = try FilmstripTile.tileWidth(plan, left: left, last: last, path: path)
        // The strip's content width stands for the whole clip.
        let secondsPerPixel = durationSeconds / Double(max(1, plan.widthPixels))
        let start = Double(left) * secondsPerPixel, end = min(durationSeconds, Double(left + width) * secondsPerPixel)
        var peaks = [Float](repeating: 0, count: width)
        if end > start {
            peaks = try AudioPeaks.read(path: path, startSeconds: start, endSeconds: start + Double(width) * secondsPerPixel, columns: width)
        }
        let height = plan.heightPixels
        var image = RGBImage(width: width, height: height, fill: background)
        let middle = Double(height - 1) / 2
        for x in 0..<width {
            let reach = Double(peaks[x]) * middle
            let top = Int((middle - reach).rounded(.down)), bottom = Int((middle + reach).rounded(.up))
            for y in max(0, top)...min(height - 1, max(top, bottom)) { image.set(x: x, y: y, bar) }
        }
        for cell in cells.dropFirst() where cell.x - left < width {
            for y in 0..<height { image.set(x: cell.x - left, y: y, cellEdge) }
        }
        let target = OutputTarget(path: output, overwrite: true)
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            try PNGFile.write(image, to: temporary, text: [("Software", "vtrim"), ("vtrim:source", path), ("vtrim:waveform", "1")])
        }
        return FilmstripTile.Tile(widthPixels: width, heightPixels: height, cellCount: cells.count, failedCells: 0)
    }
}
