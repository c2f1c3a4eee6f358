/// Lays sampled pictures into one picture: cells at given positions, placeholders where a sample failed.
public struct Filmstrip: Sendable {
    public struct Cell: Sendable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
        public var image: RGBImage?

        public init(x: Int, y: Int, width: Int, height: Int, image: RGBImage?) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.image = image
        }
    }

    /// Background between cells of a grid with empty slots.
    public static let background: (UInt8, UInt8, UInt8) = (0, 0, 0)
    /// A failed sample: mid grey, so it is visibly not a video frame and never shifts its neighbours.
    public static let placeholder: (UInt8, UInt8, UInt8) = (128, 128, 128)

    public static func compose(_ cells: [Cell], width: Int, height: Int) -> RGBImage {
        var strip = RGBImage(width: width, height: height, fill: background)
        for cell in cells {
            if let image = cell.image {
                // A partial last cell shows the left part of its picture, as a scrolled strip would.
                strip.draw(image.cropped(x: 0, y: 0, width: cell.width, height: cell.height), x: cell.x, y: cell.y)
            } else {
                strip.draw(RGBImage(width: cell.width, height: cell.height, fill: placeholder), x: cell.x, y: cell.y)
            }
        }
        return strip
    }
}
