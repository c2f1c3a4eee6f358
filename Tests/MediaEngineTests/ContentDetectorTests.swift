import CAV
@testable import MediaEngine
import Testing

/// The detectors' arithmetic against their references: OpenCV's HSV (PySceneDetect's content score rests on it) and
/// silencedetect's idea of a loud sample.
struct ContentDetectorTests {
    /// cv2.cvtColor(…, COLOR_BGR2HSV) of these colours (OpenCV 5.0, as PySceneDetect 0.7 runs it).
    static let openCV: [((Int, Int, Int), (UInt8, UInt8, UInt8))] = [
        ((200, 100, 102), (179, 127, 200)), ((0, 0, 0), (0, 0, 0)), ((255, 255, 255), (0, 0, 255)), ((10, 200, 30), (63, 242, 200)),
        ((30, 10, 200), (123, 242, 200)), ((255, 0, 0), (0, 255, 255)), ((12, 250, 249), (90, 243, 250)), ((128, 64, 200), (134, 173, 200)),
        ((1, 2, 3), (105, 170, 3)), ((250, 3, 240), (151, 252, 250)),
    ]

    @Test(arguments: openCV.indices)
    func hsvIsOpenCVs(_ index: Int) async {
        let ((r, g, b), expected) = Self.openCV[index]
        let got = HSV.pixel(r, g, b)
        #expect(got == expected, "RGB(\(r), \(g), \(b)): \(got), OpenCV \(expected)")
    }

    /// Every colour converts without trapping, hue in 0…179.
    @Test func everyColourHasAHue() async {
        for r in stride(from: 0, through: 255, by: 5) {
            for g in stride(from: 0, through: 255, by: 5) {
                for b in stride(from: 0, through: 255, by: 5) { #expect(HSV.pixel(r, g, b).0 < 180) }
            }
        }
    }

    /// The per-pixel conversion (branchless, wrapping arithmetic) against OpenCV's RGB2HSV_b written plainly, with
    /// checked arithmetic, for every one of the 2^24 colours.
    @Test func hsvMatchesThePlainConversionForEveryColour() async {
        func plain(_ r: Int, _ g: Int, _ b: Int) -> (UInt8, UInt8, UInt8) {
            let value = max(r, g, b), spread = value - min(r, g, b)
            let saturation = (spread * HSV.saturationDivisors[value] + 2048) >> 12
            var hue = value == r ? g - b : value == g ? b - r + 2 * spread : r - g + 4 * spread
            hue = (hue * HSV.hueDivisors[spread] + 2048) >> 12
            if hue < 0 { hue += 180 }
            return (UInt8(hue), UInt8(saturation), UInt8(value))
        }
        var mismatches = 0
        HSV.saturationDivisors.withUnsafeBufferPointer { sdiv in
            HSV.hueDivisors.withUnsafeBufferPointer { hdiv in
                for r in 0...255 {
                    for g in 0...255 {
                        for b in 0...255 where HSV.pixel(r, g, b, sdiv, hdiv) != plain(r, g, b) { mismatches += 1 }
                    }
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// The content score's mean difference (wrapping sums) equals a plain sum of |a − b| over random pictures,
    /// extremes included.
    @Test func meanDifferenceIsThePlainMean() async {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 3, 17, 255, 4096, 110_592] {
            for _ in 0..<4 {
                let a = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let b = (0..<count).map { index in index % 5 == 0 ? (a[index] < 128 ? 255 : 0) : UInt8.random(in: 0...255, using: &generator) }
                let plain = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                #expect(HSV.meanDifference(a, b) == Double(plain) / Double(count))
            }
        }
        #expect(HSV.meanDifference([], []) == 0)
        #expect(HSV.meanDifference([1], [1, 2]) == 0)
    }

    /// NaN and infinity are loud (silencedetect's comparisons fail for them), in float and double samples.
    @Test func nonFiniteSamplesAreLoud() async {
        var floats: [Float] = [0, .nan, -.infinity, 0.001]
        var doubles: [Double] = [0, .nan, .infinity, 0.001]
        var magnitudes: [Float] = []
        floats.withUnsafeMutableBytes { bytes in
            var plane: UnsafeMutablePointer<UInt8>? = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            AudioMagnitudes.loudest(data: &plane, format: AV_SAMPLE_FMT_FLT, samples: 4, channels: 1, into: &magnitudes)
        }
        #expect(Array(magnitudes.prefix(4)) == [0, 1, 1, 0.001])
        doubles.withUnsafeMutableBytes { bytes in
            var plane: UnsafeMutablePointer<UInt8>? = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            AudioMagnitudes.loudest(data: &plane, format: AV_SAMPLE_FMT_DBL, samples: 4, channels: 1, into: &magnitudes)
        }
        #expect(Array(magnitudes.prefix(4)) == [0, 1, 1, 0.001])
    }
}
