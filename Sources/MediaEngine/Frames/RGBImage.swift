/// An 8-bit RGB picture in memory (3 bytes per pixel, rows `stride` bytes apart). No C types.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let stride: Int
    public var pixels: [UInt8]

    /// A picture filled with one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        self.stride = width * 3
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        if fill != (0, 0, 0) {
            for offset in Swift.stride(from: 0, to: pixels.count, by: 3) {
                pixels[offset] = fill.0
                pixels[offset + 1] = fill.1
                pixels[offset + 2] = fill.2
            }
        }
        self.pixels = pixels
    }

    public init(width: Int, height: Int, stride: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let offset = y * stride + x * 3
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// Sets one pixel; outside the picture, nothing.
    public mutating func set(x: Int, y: Int, _ colour: (UInt8, UInt8, UInt8)) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let offset = y * stride + x * 3
        pixels[offset] = colour.0
        pixels[offset + 1] = colour.1
        pixels[offset + 2] = colour.2
    }

    /// Mean colour of a rectangle (clipped to the picture).
    public func meanColor(x: Int, y: Int, width w: Int, height h: Int) -> (r: Double, g: Double, b: Double) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x1 > x0, y1 > y0 else { return (0, 0, 0) }
        var sum = (0, 0, 0)
        for row in y0..<y1 {
            for column in x0..<x1 {
                let p = pixel(x: column, y: row)
                sum.0 += Int(p.r)
                sum.1 += Int(p.g)
                sum.2 += Int(p.b)
            }
        }
        let count = Double((x1 - x0) * (y1 - y0))
        return (Double(sum.0) / count, Double(sum.1) / count, Double(sum.2) / count)
    }

    /// Copies `source` with its top-left corner at (x, y), clipped to this picture.
    public mutating func draw(_ source: RGBImage, x: Int, y: Int) {
        let columns = min(source.width, width - x), rows = min(source.height, height - y)
        guard columns > 0, rows > 0, x >= 0, y >= 0 else { return }
        pixels.withUnsafeMutableBufferPointer { target in
            source.pixels.withUnsafeBufferPointer { from in
                for row in 0..<rows {
                    let targetOffset = (y + row) * stride + x * 3
                    let sourceOffset = row * source.stride
                    for index in 0..<(columns * 3) {
                        target[targetOffset + index] = from[sourceOffset + index]
                    }
                }
            }
        }
    }

    /// The sub-rectangle (clipped).
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> RGBImage {
        let x0 = max(0, x), y0 = max(0, y), w1 = min(width, x + w) - x0, h1 = min(height, y + h) - y0
        var result = RGBImage(width: max(w1, 0), height: max(h1, 0))
        guard w1 > 0, h1 > 0 else { return result }
        for row in 0..<h1 {
            let from = (y0 + row) * stride + x0 * 3
            result.pixels.replaceSubrange(row * result.stride..<(row + 1) * result.stride,
                                          with: pixels[from..<(from + w1 * 3)])
        }
        return result
    }
}
