/// The size a player shows a video at, from the stored size, the sample aspect ratio and the rotation —
/// validated where it enters: every layout, crop and scale downstream divides by these numbers. Pure.
struct DisplaySize: Equatable {
    /// The largest side vtrim accepts (stored or shown): 2^15 − 1, as the H.264/HEVC level limits and
    /// every muxer's 16-bit width fields allow.
    static let maximumSidePixels = 32767
    /// Players ignore sample aspect ratios outside 1:16…16:1 (a one-byte `pasp` edit can claim 1:1000).
    static let sampleAspectBounds = (low: 1.0 / 16, high: 16.0)

    var width: Int
    var height: Int
    /// The ratio used: the stored one, or 1:1 when it was absent, invalid or ignored.
    var sampleAspectRatio: Rational
    /// The stored size is usable (1…32767 on both sides); when not, `width`/`height` are placeholders.
    var storedSizeValid: Bool
    var warnings: [MediaWarning]

    /// A stated ratio (both terms positive) inside 1:16…16:1.
    static func isPlausibleSampleAspect(_ numerator: Int, _ denominator: Int) -> Bool {
        guard numerator > 0, denominator > 0 else { return false }
        let ratio = Double(numerator) / Double(denominator)
        return ratio >= sampleAspectBounds.low && ratio <= sampleAspectBounds.high
    }

    /// - Parameters:
    ///   - sar: the stored ratio (numerator, denominator); zero or negative means "not stated".
    static func resolve(codedWidth: Int, codedHeight: Int, sar: (Int, Int), swapsDimensions: Bool) -> DisplaySize {
        var warnings: [MediaWarning] = []
        let range = 1...maximumSidePixels
        guard range.contains(codedWidth), range.contains(codedHeight) else {
            warnings.append(MediaWarning(code: "size_invalid",
                                         message: "the video's stored size \(codedWidth)x\(codedHeight) is outside 1–\(maximumSidePixels) pixels"))
            return DisplaySize(width: 1, height: 1, sampleAspectRatio: Rational(1, 1), storedSizeValid: false, warnings: warnings)
        }
        var used = Rational(1, 1)
        var displayWidth = codedWidth
        if sar.0 > 0, sar.1 > 0, sar.0 != sar.1 {
            let ratio = Double(sar.0) / Double(sar.1)
            let scaled = (Double(codedWidth) * ratio).rounded()
            if !isPlausibleSampleAspect(sar.0, sar.1) {
                warnings.append(MediaWarning(code: "sar_ignored",
                                             message: "the sample aspect ratio \(sar.0):\(sar.1) is outside 1:16–16:1; shown with square pixels, as players do"))
            } else if scaled < 1 || scaled > Double(maximumSidePixels) {
                warnings.append(MediaWarning(code: "sar_ignored",
                                             message: "the sample aspect ratio \(sar.0):\(sar.1) would show \(codedWidth) pixels \(Int(scaled)) wide, outside 1–\(maximumSidePixels); shown with square pixels"))
            } else {
                used = Rational(sar.0, sar.1)
                displayWidth = Int(scaled)
            }
        }
        var width = displayWidth, height = codedHeight
        if swapsDimensions { swap(&width, &height) }
        return DisplaySize(width: width, height: height, sampleAspectRatio: used, storedSizeValid: true, warnings: warnings)
    }
}
