import CFreeType
import Foundation

/// A line of text as coverage (0–255 per pixel), ready to blend onto a picture.
public struct TextMask: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Distance from the top of the mask to the baseline.
    public var baseline: Int
    public var coverage: [UInt8]

    /// The mask grown by `radius` pixels in every direction (a max filter): the outline drawn under the text.
    public func dilated(radius: Int) -> TextMask {
        guard radius > 0 else { return self }
        let outWidth = width + 2 * radius, outHeight = height + 2 * radius
        // Separable max filter: rows, then columns (a square neighbourhood).
        var rows = [UInt8](repeating: 0, count: outWidth * height)
        for y in 0..<height {
            for x in 0..<outWidth {
                var best: UInt8 = 0
                for dx in -radius...radius {
                    let sx = x - radius + dx
                    if sx >= 0, sx < width { best = max(best, coverage[y * width + sx]) }
                }
                rows[y * outWidth + x] = best
            }
        }
        var result = [UInt8](repeating: 0, count: outWidth * outHeight)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                var best: UInt8 = 0
                for dy in -radius...radius {
                    let sy = y - radius + dy
                    if sy >= 0, sy < height { best = max(best, rows[sy * outWidth + x]) }
                }
                result[y * outWidth + x] = best
            }
        }
        return TextMask(width: outWidth, height: outHeight, baseline: baseline + radius, coverage: result)
    }
}

/// Renders text with FreeType in DejaVu Sans Bold (found through fontconfig). A character the font lacks
/// comes from the font fontconfig picks for it; when no installed font has it, the font's replacement
/// glyph (a box) is drawn instead — text never fails. One renderer per thread (FreeType objects are not
/// shared).
public final class TextRenderer {
    private var library: FT_Library?
    private var faces: [String: FT_Face] = [:]
    private let primaryPath: String
    private var fallbackPaths: [UInt32: String?] = [:]

    /// nil when no usable font is installed.
    public init?() {
        guard FT_Init_FreeType(&library) == 0 else { return nil }
        guard let path = Self.fontPath(pattern: "DejaVu Sans:style=Bold", character: nil)
                ?? Self.existing(["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"]) else {
            FT_Done_FreeType(library)
            return nil
        }
        primaryPath = path
        guard face(path) != nil else {
            FT_Done_FreeType(library)
            return nil
        }
    }

    deinit {
        for face in faces.values { FT_Done_Face(face) }
        FT_Done_FreeType(library)
    }

    /// The font file used for most text (for reports and tests).
    public var fontPath: String { primaryPath }

    /// `text` at `pixelSize` (the em size in pixels), as coverage.
    public func render(_ text: String, pixelSize: Int) -> TextMask {
        struct Placed { var x: Int; var top: Int; var width: Int; var rows: Int; var pitch: Int; var pixels: [UInt8] }
        var placed: [Placed] = []
        var penX = 0, ascent = 0, descent = 0
        for scalar in text.unicodeScalars {
            guard let (face, glyph) = glyph(for: scalar), FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(1, pixelSize))) == 0,
                  FT_Load_Glyph(face, glyph, Int32(CFT_LOAD_RENDER)) == 0, let slot = face.pointee.glyph else { continue }
            let bitmap = slot.pointee.bitmap
            let rows = Int(bitmap.rows), width = Int(bitmap.width), pitch = Int(bitmap.pitch)
            var pixels: [UInt8] = []
            if rows > 0, width > 0, pitch > 0, let buffer = bitmap.buffer, bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) {
                pixels = Array(UnsafeBufferPointer(start: buffer, count: rows * pitch))
            }
            let top = Int(slot.pointee.bitmap_top)
            placed.append(Placed(x: penX + Int(slot.pointee.bitmap_left), top: top, width: pixels.isEmpty ? 0 : width,
                                 rows: pixels.isEmpty ? 0 : rows, pitch: pitch, pixels: pixels))
            ascent = max(ascent, top)
            descent = max(descent, rows - top)
            // Advance is 26.6 fixed point.
            penX += Int((slot.pointee.advance.x + 32) >> 6)
        }
        // Line metrics of the primary font, so every label of a size has the same height.
        if let face = face(primaryPath), FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(1, pixelSize))) == 0, let size = face.pointee.size {
            ascent = max(ascent, Int((size.pointee.metrics.ascender + 63) >> 6))
            descent = max(descent, Int((-size.pointee.metrics.descender + 63) >> 6))
        }
        let right = placed.map { $0.x + $0.width }.max() ?? 0
        let width = max(penX, right), height = ascent + descent
        var coverage = [UInt8](repeating: 0, count: max(0, width * height))
        for glyph in placed {
            for row in 0..<glyph.rows {
                let y = ascent - glyph.top + row
                guard y >= 0, y < height else { continue }
                for column in 0..<glyph.width {
                    let x = glyph.x + column
                    guard x >= 0, x < width else { continue }
                    coverage[y * width + x] = max(coverage[y * width + x], glyph.pixels[row * glyph.pitch + column])
                }
            }
        }
        return TextMask(width: width, height: height, baseline: ascent, coverage: coverage)
    }

    /// The face and glyph index that draw `scalar`: the primary font's, a fallback font's, or the primary
    /// font's replacement glyph (index 0).
    private func glyph(for scalar: Unicode.Scalar) -> (FT_Face, FT_UInt)? {
        guard let primary = face(primaryPath) else { return nil }
        let code = FT_ULong(scalar.value)
        let index = FT_Get_Char_Index(primary, code)
        if index != 0 || scalar.value < 0x20 { return (primary, index) }
        if fallbackPaths[scalar.value] == nil {
            fallbackPaths[scalar.value] = .some(Self.fontPath(pattern: "sans-serif", character: scalar.value))
        }
        if let path = fallbackPaths[scalar.value] ?? nil, let fallback = face(path) {
            let fallbackIndex = FT_Get_Char_Index(fallback, code)
            if fallbackIndex != 0 { return (fallback, fallbackIndex) }
        }
        return (primary, 0)
    }

    private func face(_ path: String) -> FT_Face? {
        if let face = faces[path] { return face }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else { return nil }
        faces[path] = face
        return face
    }

    /// fontconfig's best match for a pattern (and, when given, a character it must cover).
    private static func fontPath(pattern text: String, character: UInt32?) -> String? {
        guard let pattern = FcNameParse(text) else { return nil }
        defer { FcPatternDestroy(pattern) }
        if let character, let set = FcCharSetCreate() {
            FcCharSetAddChar(set, character)
            FcPatternAddCharSet(pattern, FC_CHARSET, set)
            FcCharSetDestroy(set)
        }
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let match = FcFontMatch(nil, pattern, &result) else { return nil }
        defer { FcPatternDestroy(match) }
        if let character {
            var set: OpaquePointer?
            guard FcPatternGetCharSet(match, FC_CHARSET, 0, &set) == FcResultMatch, FcCharSetHasChar(set, character) != 0 else {
                return nil
            }
        }
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        return String(cString: file)
    }

    private static func existing(_ paths: [String]) -> String? {
        paths.first { FileManager.default.fileExists(atPath: $0) }
    }
}
