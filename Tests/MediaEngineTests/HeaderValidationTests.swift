import Foundation
@testable import MediaEngine
import Testing

/// What enters from a file's header is validated where it enters: display sizes, aspect ratios, the crop
/// a filling cell takes, hvcC records, and the plan that crosses from one serve worker to another.
struct HeaderValidationTests {
    /// (coded width, coded height, SAR, turned sideways) → (display size, SAR used, warning).
    @Test(arguments: [
        (320, 240, (1, 1), false, 320, 240, Rational(1, 1), nil),
        (720, 576, (16, 15), false, 768, 576, Rational(16, 15), nil),
        (1440, 1080, (4, 3), false, 1920, 1080, Rational(4, 3), nil),
        (320, 240, (1, 1), true, 240, 320, Rational(1, 1), nil),
        (320, 240, (0, 1), false, 320, 240, Rational(1, 1), nil),
        (320, 240, (1, 0), false, 320, 240, Rational(1, 1), nil),
        (320, 240, (1, 1000), false, 320, 240, Rational(1, 1), "sar_ignored"),
        (320, 240, (65535, 1), false, 320, 240, Rational(1, 1), "sar_ignored"),
        (320, 240, (2_147_483_647, 3), false, 320, 240, Rational(1, 1), "sar_ignored"),
        (320, 240, (1, 16), false, 20, 240, Rational(1, 16), nil),
        (320, 240, (16, 1), true, 240, 5120, Rational(16, 1), nil),
        (8000, 100, (16, 1), false, 8000, 100, Rational(1, 1), "sar_ignored"),
        (1, 1, (1, 16), false, 1, 1, Rational(1, 1), "sar_ignored"),
        (0, 240, (1, 1), false, 1, 1, Rational(1, 1), "size_invalid"),
        (40000, 240, (1, 1), false, 1, 1, Rational(1, 1), "size_invalid"),
        (320, -5, (1, 1), false, 1, 1, Rational(1, 1), "size_invalid"),
    ] as [(Int, Int, (Int, Int), Bool, Int, Int, Rational, String?)])
    func displaySize(width: Int, height: Int, sar: (Int, Int), sideways: Bool, shownWidth: Int, shownHeight: Int,
                     used: Rational, warning: String?) async {
        let size = DisplaySize.resolve(codedWidth: width, codedHeight: height, sar: sar, swapsDimensions: sideways)
        #expect(size.width == shownWidth && size.height == shownHeight, "\(width)x\(height) \(sar): \(size)")
        #expect(size.sampleAspectRatio == used)
        #expect(size.warnings.map(\.code) == (warning.map { [$0] } ?? []))
        #expect((1...DisplaySize.maximumSidePixels).contains(size.width) && (1...DisplaySize.maximumSidePixels).contains(size.height))
    }

    /// The centre crop of a filling cell: what stays has the cell's aspect, at least one pixel, whatever
    /// the aspect asked (NaN and infinities included).
    @Test(arguments: [
        (320, 240, 40.0 / 60, 1.0, FrameCropRect(left: 80, right: 80, top: 0, bottom: 0)),
        (320, 240, 4.0 / 3, 1.0, FrameCropRect(left: 0, right: 0, top: 0, bottom: 0)),
        (320, 240, 16.0 / 9, 1.0, FrameCropRect(left: 0, right: 0, top: 30, bottom: 30)),
        (720, 576, 1.0, 16.0 / 15, FrameCropRect(left: 90, right: 90, top: 0, bottom: 0)),
        (320, 240, 1e-9, 1.0, FrameCropRect(left: 159, right: 160, top: 0, bottom: 0)),
        (320, 240, 1e9, 1.0, FrameCropRect(left: 0, right: 0, top: 119, bottom: 120)),
        (320, 240, .infinity, 1.0, FrameCropRect(left: 0, right: 0, top: 119, bottom: 120)),
        (1, 1, 0.001, 1.0, FrameCropRect(left: 0, right: 0, top: 0, bottom: 0)),
    ] as [(Int, Int, Double, Double, FrameCropRect)])
    func fillCrop(width: Int, height: Int, aspect: Double, sar: Double, expected: FrameCropRect) async {
        let crop = FrameCropRect.centre(width: width, height: height, aspect: aspect, sampleAspectRatio: sar)
        #expect(crop == expected)
        let keptWidth = width - crop.left - crop.right, keptHeight = height - crop.top - crop.bottom
        #expect(keptWidth >= 1)
        #expect(keptHeight >= 1)
    }

    /// hvcC in hvc1: the VPS, SPS and PPS arrays are marked complete (FFmpeg 5.1 writes 0); SEI arrays and
    /// a record whose lengths run past its end are left as they are.
    @Test func hevcRecordArraysAreMarkedComplete() async {
        func array(_ type: UInt8, _ units: [[UInt8]]) -> [UInt8] {
            [type, 0, UInt8(units.count)] + units.flatMap { [0, UInt8($0.count)] + $0 }
        }
        let header: [UInt8] = [1] + Array(repeating: 0, count: 20) + [0xF3, 4]
        var record = header + array(32, [[0x40, 1, 2]]) + array(33, [[0x42, 1]]) + array(34, [[0x44, 1]]) + array(39, [[0x4E, 1]])
        #expect(HEVCRecordPatch.markComplete(&record, recordStart: 0, recordEnd: record.count) == 3)
        let offsets = [23, 31, 38, 45]
        let marked: [UInt8] = offsets.map { record[$0] }
        let expected: [UInt8] = [0xA0, 0xA1, 0xA2, 39]
        #expect(marked == expected)
        #expect(HEVCRecordPatch.markComplete(&record, recordStart: 0, recordEnd: record.count) == 0)
        // A unit length past the end: the arrays before it are marked, nothing is read past it.
        var damaged = header + array(32, [[0x40, 1]]) + [33, 0, 1, 0xFF, 0xFF]
        damaged[22] = 2
        #expect(HEVCRecordPatch.markComplete(&damaged, recordStart: 0, recordEnd: damaged.count) == 2)
        var short: [UInt8] = [1, 2, 3]
        #expect(HEVCRecordPatch.markComplete(&short, recordStart: 0, recordEnd: 3) == 0)
    }

    /// MP4 box walking over sizes a file may claim: nothing reads past the bytes, nothing traps.
    @Test func boxWalkersStopAtImpossibleSizes() async {
        let sizes: [UInt32] = [0, 1, 7, 8, 9, 0x7FFF_FFFF, 0xFFFF_FFFF]
        for size in sizes {
            let bytes: [UInt8] = [UInt8(size >> 24), UInt8((size >> 16) & 0xff), UInt8((size >> 8) & 0xff), UInt8(size & 0xff)]
                + Array("moov".utf8) + [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
            let boxes = MovieBoxes.boxes(in: bytes, from: 0, to: bytes.count)
            #expect(boxes.allSatisfy { $0.end <= bytes.count && $0.start >= 0 }, "size \(size)")
            var moov = bytes
            _ = HEVCRecordPatch.patch(&moov)
        }
        // A 64-bit size near Int64's limit.
        let large: [UInt8] = [0, 0, 0, 1] + Array("moov".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(MovieBoxes.boxes(in: large, from: 0, to: large.count).isEmpty)
        #expect(MovieBoxes.read([1, 2], at: Int.max - 1, bytes: 4) == 0)
        #expect(MovieBoxes.read([1, 2], at: 0, bytes: -1) == 0)
    }

    /// A plan survives the trip between serve workers unchanged (JSON, as `PlannedEdit` carries it).
    @Test(arguments: [CutMode.copy, .keyframe, .exact, .smart])
    func plansRoundTripThroughJSON(mode: CutMode) async throws {
        let packets = SyntheticStream.openGOP(gops: 4, cleanPoints: true)
        var facts = syntheticFacts(packets, start: 700, end: 1500, mode: mode)
        // Bytes ride as base64: an x264 SEI the stream begins with.
        facts.video?.beginning = StreamBeginning(x264Build: 148, x264SEI: [6, 5, 0x10, 0xFF, 0x00, 0x80], firstDecodeTicks: -80, lengthSize: 4)
        let plan = try planned(facts)
        let decoded = try JSONDecoder().decode(EditPlan.self, from: JSONEncoder().encode(plan))
        #expect(decoded == plan)
    }
}
