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
