/// `--skip-dull`'s rule: a picture is dull when it is nearly one flat tone — a black or white fade, a
/// blank slate — measured as the standard deviation of its luma (BT.709 weights, 0–255) being below
/// `maximumLumaDeviation`. Real scenes, even dark ones, vary far more across a frame than that.
public enum DullFrame {
    public static let maximumLumaDeviation = 10.0

    public static func lumaDeviation(_ image: RGBImage) -> Double {
        guard image.width > 0, image.height > 0 else { return 0 }
        var sum = 0.0, squares = 0.0
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<image.height {
                var offset = row * image.stride
                for _ in 0..<image.width {
                    let luma = 0.2126 * Double(pixels[offset]) + 0.7152 * Double(pixels[offset + 1]) + 0.0722 * Double(pixels[offset + 2])
                    sum += luma
                    squares += luma * luma
                    offset += 3
                }
            }
        }
        let count = Double(image.width * image.height)
        let mean = sum / count
        return max(0, squares / count - mean * mean).squareRoot()
    }

    public static func isDull(_ image: RGBImage) -> Bool {
        lumaDeviation(image) < maximumLumaDeviation
    }
}
