import CAV

/// Scene cuts in decoded video by a content measure, as PySceneDetect 0.7's content detector: each frame is scaled
/// so its longer side is 256 pixels (swscale, bilinear), converted to HSV as OpenCV does for 8-bit pictures
/// (H 0…179, S and V 0…255), and scored by the mean absolute difference of H, S and V against the frame before,
/// averaged over the three. Cuts pass its merge filter: a score at or above the threshold is a cut when the minimum
/// scene length has passed since the last frame above it; within that length, cuts after the first merge until the
/// scores stay under the threshold for the length, and the merged run's last frame above it is the cut (an animated
/// shot is one scene). FFmpeg's `scdet` is not used: it fired every 0.2 s on an animated shot and scored a real cut
/// lower (measured on this platform).
final class SceneDetector {
    private let query: ContentQuery.Scenes
    /// Bilinear, as PySceneDetect's resize (OpenCV's INTER_LINEAR); swscale's fast variant costs a fraction of area
    /// averaging at these ratios.
    private let converter = FrameConverter(flags: SWS_FAST_BILINEAR)
    private var previous: [UInt8] = []
    private var current: [UInt8] = []
    /// The merge filter's state (PySceneDetect's `FlashFilter`, mode MERGE).
    private var lastAbove: (micro: Int64, score: Double)?
    private var mergeEnabled = false
    private var mergeStart: Int64?
    /// Cut times (µs) and their scores; the first scene starts at the first frame.
    private(set) var cuts: [(micro: Int64, score: Double)] = []
    private(set) var firstMicro: Int64?
    private(set) var lastEndMicro: Int64?

    init(_ query: ContentQuery.Scenes) {
        self.query = query
    }

    /// One decoded frame shown at `micro` (vtrim's timeline), lasting `durationMicro`; whether its score reaches the
    /// threshold (a cut, or one the merge filter may yet let through).
    @discardableResult
    func take(_ frame: Frame, micro: Int64, durationMicro: Int64) throws(AVFailure) -> Bool {
        let width = Int(frame.pointer.pointee.width), height = Int(frame.pointer.pointee.height)
        guard width > 0, height > 0 else { return false }
        // PySceneDetect's downscale: the longer side to 256 pixels, never up.
        let factor = max(1.0, Double(max(width, height)) / 256)
        let image = try converter.rgbImage(frame, width: max(1, Int((Double(width) / factor).rounded())),
                                           height: max(1, Int((Double(height) / factor).rounded())))
        HSV.fill(&current, from: image)
        if firstMicro == nil { firstMicro = micro }
        lastEndMicro = micro.plus(max(0, durationMicro))
        defer { swap(&previous, &current) }
        // The first frame scores 0 (nothing to compare with), as there.
        let score = previous.count == current.count && !current.isEmpty ? HSV.meanDifference(previous, current) : 0
        if let cut = filter(micro: micro, score: score) { cuts.append((cut.micro, (cut.score * 100).rounded() / 100)) }
        return score >= query.threshold
    }

    /// PySceneDetect's merge filter on one frame's score; the cut it lets through, if any.
    private func filter(micro: Int64, score: Double) -> (micro: Int64, score: Double)? {
        let above = score >= query.threshold
        // Times in µs may be a rounding short of the frame count they stand for: 1 ms of tolerance.
        let length = Int64((query.minSeconds * 1e6).rounded()) - 1000
        if lastAbove == nil { lastAbove = (micro, 0) }
        let lengthMet = micro.minus(lastAbove?.micro ?? micro) >= length
        if above { lastAbove = (micro, score) }
        if let start = mergeStart {
            if lengthMet, !above, let last = lastAbove, last.micro.minus(start) >= length {
                mergeStart = nil
                return last
            }
            return nil
        }
        guard above else { return nil }
        if lengthMet {
            mergeEnabled = true
            return (micro, score)
        }
        if mergeEnabled { mergeStart = micro }
        return nil
    }

    /// The scenes: from the first frame to each cut, from the last cut to the end of the last frame.
    func scenes(durationMicro: Int64) -> [Detection] {
        guard let first = firstMicro else { return [] }
        let end = max(lastEndMicro ?? durationMicro, cuts.last?.micro ?? first)
        var starts: [(Int64, Double?)] = [(first, nil)]
        starts += cuts.map { ($0.micro, $0.score) }
        return starts.enumerated().compactMap { index, start in
            let stop = index + 1 < starts.count ? starts[index + 1].0 : end
            return stop > start.0 ? Detection(kind: .scene, startMicro: start.0, endMicro: stop, measure: start.1) : nil
        }
    }
}

/// OpenCV's 8-bit RGB → HSV (its fixed-point tables, so the scores are PySceneDetect's), and the content score between
/// two pictures.
enum HSV {
    /// round(255·4096 / v) and round(180·4096 / (6·d)), as OpenCV's RGB2HSV_b builds them.
    static let saturationDivisors: [Int] = (0...255).map { $0 == 0 ? 0 : Int((Double(255 << 12) / Double($0)).rounded()) }
    static let hueDivisors: [Int] = (0...255).map { $0 == 0 ? 0 : Int((Double(180 << 12) / Double(6 * $0)).rounded()) }

    /// `pixels` as H, S, V bytes per pixel (H 0…179).
    static func fill(_ out: inout [UInt8], from image: RGBImage) {
        let count = image.width * image.height
        if out.count != count * 3 { out = [UInt8](repeating: 0, count: count * 3) }
        saturationDivisors.withUnsafeBufferPointer { sdiv in
            hueDivisors.withUnsafeBufferPointer { hdiv in
                image.pixels.withUnsafeBufferPointer { pixels in
                    out.withUnsafeMutableBufferPointer { hsv in
                        var target = 0
                        for row in 0..<image.height {
                            var source = row * image.stride
                            for _ in 0..<image.width {
                                let (h, s, v) = pixel(Int(pixels[source]), Int(pixels[source + 1]), Int(pixels[source + 2]), sdiv, hdiv)
                                source &+= 3
                                hsv[target] = h
                                hsv[target + 1] = s
                                hsv[target + 2] = v
                                target &+= 3
                            }
                        }
                    }
                }
            }
        }
    }

    static func pixel(_ r: Int, _ g: Int, _ b: Int) -> (UInt8, UInt8, UInt8) {
        saturationDivisors.withUnsafeBufferPointer { sdiv in hueDivisors.withUnsafeBufferPointer { hdiv in pixel(r, g, b, sdiv, hdiv) } }
    }

    /// One pixel, as OpenCV computes it: hue from the channel that is the maximum, scaled by the table and shifted with
    /// rounding (an arithmetic shift: floor), wrapped into 0…179. The channels are bytes (0…255) and the tables' entries
    /// at most 255·4096, so no product passes 2^30: wrapping arithmetic, without overflow checks in this per-pixel loop.
    @inline(__always)
    static func pixel(_ r: Int, _ g: Int, _ b: Int, _ sdiv: UnsafeBufferPointer<Int>, _ hdiv: UnsafeBufferPointer<Int>) -> (UInt8, UInt8, UInt8) {
        let value = max(r, g, b), spread = value &- min(r, g, b)
        let saturation = (spread &* sdiv[value] &+ (1 << 11)) >> 12
        // All three candidates, then selects (no branch for grain to mispredict on).
        let fromRed = g &- b, fromGreen = b &- r &+ 2 &* spread, fromBlue = r &- g &+ 4 &* spread
        var hue = value == r ? fromRed : value == g ? fromGreen : fromBlue
        hue = (hue &* hdiv[spread] &+ (1 << 11)) >> 12
        hue &+= hue < 0 ? 180 : 0
        return (UInt8(clamping: hue), UInt8(clamping: saturation), UInt8(clamping: value))
    }

    /// The mean of |ΔH|, |ΔS| and |ΔV| over every pixel, averaged over the three (equal weights, PySceneDetect's
    /// default; hue differences are not wrapped, as there).
    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        // Each term is at most 255 and an image's bytes number far under Int.max / 255: wrapping sums, which the
        // compiler vectorises (overflow checks kept this loop scalar).
        var total = 0
        a.withUnsafeBufferPointer { left in
            b.withUnsafeBufferPointer { right in
                for index in 0..<left.count {
                    let difference = Int32(left[index]) &- Int32(right[index])
                    total &+= Int(difference < 0 ? 0 &- difference : difference)
                }
            }
        }
        return Double(total) / Double(a.count)
    }
}
