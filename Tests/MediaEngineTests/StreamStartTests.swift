@testable import MediaEngine
import Testing

/// The byte-level readers behind stream-start state and clean starts: x264's version SEI, recovery
/// points, emulation prevention, Exp-Golomb fields.
struct StreamStartTests {
    /// An SEI NAL unit (H.264 type 6) of unregistered user data: 16-byte UUID, then the text.
    static func x264SEI(_ text: String) -> [UInt8] {
        let payload = [UInt8](repeating: 0xAB, count: 16) + Array(text.utf8) + [0]
        return [0x06, 0x05, UInt8(payload.count)] + payload + [0x80]
    }

    @Test(arguments: [("x264 - core 142 r2431 ac76440 - H.264/MPEG-4 AVC codec", 142), ("x264 - core 83", 83),
                      ("x264 - core 1642", 1642), ("x264 - core ", nil), ("Lavc60 libx265", nil)] as [(String, Int?)])
    func buildFromTheSEI(text: String, build: Int?) async {
        #expect(StreamBeginning.x264Build(inSEI: Self.x264SEI(text)[...]) == build)
    }

    @Test func buildReadThroughEmulationPrevention() async {
        // 00 00 03 inside the payload: the 03 is not data.
        let unit: [UInt8] = [0x06, 0x05, 0x20, 0, 0, 3, 1] + Array("x264 - core 151".utf8)
        #expect(StreamBeginning.x264Build(inSEI: unit[...]) == 151)
        #expect(NALUnits.removingEmulationPrevention([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]) == [0, 0, 1, 0, 0, 0, 0])
    }

    @Test func seiGoesBeforeTheFirstSliceOnce() async {
        let sei = Self.x264SEI("x264 - core 142")
        let beginning = StreamBeginning(x264Build: 142, x264SEI: sei, firstDecodeTicks: 0, lengthSize: 4)
        let aud: [UInt8] = [0x09, 0xF0], slice: [UInt8] = [0x65, 0x88, 0x84]
        let sample = NALUnits.lengthPrefixed([aud[...], slice[...]], lengthSize: 4)
        let carried = beginning.carried(into: sample)
        let units = NALUnits.splitLengthPrefixed(carried, lengthSize: 4)?.map(Array.init)
        #expect(units == [aud, sei, slice])
        #expect(beginning.carried(into: carried) == carried)
        #expect(beginning.mustCarry)
        #expect(!StreamBeginning(x264Build: 164, x264SEI: sei).mustCarry)
        #expect(beginning.decoderOptions == ["x264_build": "142"])
    }

    /// DESIGN.md's clean start, and the stricter splice point of smart cuts, on Annex B access units.
    @Test(arguments: [
        ("H.264 IDR", NALUnits.Codec.h264, [0x65, 0x88], true, true),
        ("H.264 I with recovery point 0", .h264, [0x06, 0x06, 0x01, 0x84, 0x80, 0, 0, 0, 1, 0x41, 0x88], true, false),
        ("H.264 I with recovery point 4", .h264, [0x06, 0x06, 0x02, 0x2C, 0x40, 0x80, 0, 0, 0, 1, 0x41, 0x88], false, false),
        ("H.264 I without a recovery point", .h264, [0x41, 0x88], false, false),
        ("HEVC IDR_W_RADL", .hevc, [0x26, 0x01, 0xAF], true, true),
        ("HEVC CRA", .hevc, [0x2A, 0x01, 0xAF], true, true),
        ("HEVC BLA", .hevc, [0x20, 0x01, 0xAF], true, true),
        ("HEVC TRAIL_R I slice", .hevc, [0x02, 0x01, 0xAF], false, false),
    ] as [(String, NALUnits.Codec, [UInt8], Bool, Bool)])
    func cleanStartsAndSplicePoints(name: String, codec: NALUnits.Codec, unit: [UInt8], clean: Bool, splice: Bool) async {
        let rule = CleanStart(codec: codec, lengthSize: nil)
        let sample = [0, 0, 0, 1] + unit
        #expect(rule.isClean(bytes: sample) == clean, "\(name)")
        #expect(rule.isSplicePoint(bytes: sample) == splice, "\(name)")
    }

    @Test func recoveryPointWithZeroFramesIsACleanStart() async {
        // SEI payload type 6 (recovery point), size 1: recovery_frame_cnt ue(v) = 0 is a single 1 bit.
        #expect(CleanStart.hasRecoveryPointZero([0x06, 0x06, 0x01, 0x84, 0x80][...]))
        // recovery_frame_cnt = 1 (bits 010): not clean.
        #expect(!CleanStart.hasRecoveryPointZero([0x06, 0x06, 0x01, 0x44, 0x80][...]))
        // Another payload first (user data, 3 bytes), then the recovery point.
        #expect(CleanStart.hasRecoveryPointZero([0x06, 0x05, 0x03, 1, 2, 3, 0x06, 0x01, 0x84, 0x80][...]))
        #expect(!CleanStart.hasRecoveryPointZero([0x06, 0x05, 0x03, 1, 2, 3, 0x80][...]))
    }

    @Test func expGolombFields() async {
        // 1 | 010 | 011 | 00100 | 1010 (4 bits) → ue 0, 1, 2, 3, then 10.
        var bits = RBSPBits([0b1010_0110, 0b0100_1010])
        #expect(bits.readUE() == 0)
        #expect(bits.readUE() == 1)
        #expect(bits.readUE() == 2)
        #expect(bits.readUE() == 3)
        #expect(bits.read(4) == 10)
        #expect(bits.read(1) == nil)
    }
}
