/// A rectangle in pixels.
public struct PixelBox: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
}

extension RGBImage {
    /// Blends `colour` through `mask`'s coverage with the mask's top-left at (x, y), clipped to `clip`
    /// and to the picture.
    public mutating func blend(_ mask: TextMask, x: Int, y: Int, colour: (UInt8, UInt8, UInt8), clip: PixelBox) {
        let x0 = max(x, clip.x, 0), y0 = max(y, clip.y, 0)
        let x1 = min(x + mask.width, clip.x + clip.width, width), y1 = min(y + mask.height, clip.y + clip.height, height)
        guard x1 > x0, y1 > y0 else { return }
        let rowStride = stride
        pixels.withUnsafeMutableBufferPointer { target in
            for row in y0..<y1 {
                for column in x0..<x1 {
                    let alpha = Int(mask.coverage[(row - y) * mask.width + (column - x)])
                    guard alpha > 0 else { continue }
                    let offset = row * rowStride + column * 3
                    for (channel, value) in [colour.0, colour.1, colour.2].enumerated() {
                        let old = Int(target[offset + channel])
                        target[offset + channel] = UInt8((old * (255 - alpha) + Int(value) * alpha + 127) / 255)
                    }
                }
            }
        }
    }
}

/// `--timestamps`: a cell's time (`TimeFormatting.truncatedClock`) in its bottom-right corner, white on a black
/// outline, sized from the cell: an eighth of its height (at least 8 px), and no wider than 3/5 of the cell, so
/// a narrow (portrait) cell keeps most of its picture.
public enum CellLabel {
    /// Draws `text` into the cell `cell` of `image`; returns the box it may have changed.
    @discardableResult
    public static func draw(_ text: String, on image: inout RGBImage, cell: PixelBox, renderer: TextRenderer) -> PixelBox {
        var size = max(8, cell.height / 8)
        var margin = max(2, size / 6)
        var mask = renderer.render(text, pixelSize: size)
        let room = min(cell.width - 2 * margin, cell.width * 3 / 5)
        if mask.width > room, mask.width > 0 {
            size = max(6, size * room / mask.width)
            margin = max(2, size / 6)
            mask = renderer.render(text, pixelSize: size)
        }
        let radius = max(1, size / 9)
        let outline = mask.dilated(radius: radius)
        let x = cell.x + cell.width - margin - outline.width, y = cell.y + cell.height - margin - outline.height
        image.blend(outline, x: x, y: y, colour: (0, 0, 0), clip: cell)
        image.blend(mask, x: x + radius, y: y + radius, colour: (255, 255, 255), clip: cell)
        let box = PixelBox(x: max(x, cell.x), y: max(y, cell.y), width: 0, height: 0)
        return PixelBox(x: box.x, y: box.y, width: min(x + outline.width, cell.x + cell.width) - box.x,
                        height: min(y + outline.height, cell.y + cell.height) - box.y)
    }
}

/// `--header`: a band above a contact sheet with lines of text about the file, light on dark grey. A line
/// wider than the sheet wraps at its " · " separators, then between characters (a long file name), so a
/// narrow (portrait) sheet shows all of it.
public enum SheetHeader {
    public static let background: (UInt8, UInt8, UInt8) = (32, 32, 32)

    /// Text size for a sheet `width` pixels wide: 1/48 of it, between 11 and 28 px.
    static func pixelSize(width: Int) -> Int { min(28, max(11, width / 48)) }

    /// The rows drawn for `lines` on a sheet `width` pixels wide, each with the index of its line (line 0,
    /// the file name, is drawn brighter).
    static func rows(_ lines: [String], width: Int, renderer: TextRenderer) -> [(text: String, line: Int)] {
        let size = pixelSize(width: width)
        let room = max(1, width - 2 * (size / 2))
        func fits(_ text: String) -> Bool { renderer.render(text, pixelSize: size).width <= room }
        var rows: [(text: String, line: Int)] = []
        for (index, line) in lines.enumerated() {
            var current = ""
            for part in line.components(separatedBy: " · ") {
                let joined = current.isEmpty ? part : current + " · " + part
                if fits(joined) { current = joined; continue }
                if !current.isEmpty { rows.append((current, index)) }
                current = ""
                for character in part {
                    let longer = current + String(character)
                    if fits(longer) || current.isEmpty { current = longer } else { rows.append((current, index)); current = String(character) }
                }
            }
            if !current.isEmpty || line.isEmpty { rows.append((current, index)) }
        }
        return rows
    }

    /// The band's height for `lines` on a sheet `width` pixels wide.
    public static func height(lines: [String], width: Int, renderer: TextRenderer) -> Int {
        let size = pixelSize(width: width)
        let count = rows(lines, width: width, renderer: renderer).count
        let lineHeight = renderer.render("Hg", pixelSize: size).height
        return 2 * (size / 2) + count * lineHeight + max(0, count - 1) * (size / 4)
    }

    /// Draws the band (the full width of `image`, `height` tall, at the top).
    public static func draw(_ lines: [String], on image: inout RGBImage, height: Int, renderer: TextRenderer) {
        let band = PixelBox(x: 0, y: 0, width: image.width, height: height)
        image.draw(RGBImage(width: image.width, height: height, fill: background), x: 0, y: 0)
        let size = pixelSize(width: image.width)
        let lineHeight = renderer.render("Hg", pixelSize: size).height
        let margin = size / 2
        var y = margin
        for row in rows(lines, width: image.width, renderer: renderer) {
            let mask = renderer.render(row.text, pixelSize: size)
            let top = y + (lineHeight - mask.height) / 2
            image.blend(mask, x: margin, y: top, colour: row.line == 0 ? (255, 255, 255) : (200, 200, 200), clip: band)
            y += lineHeight + size / 4
        }
    }
}
