@testable import MediaEngine
import Testing

struct NALUnitsTests {
    @Test func annexBRoundTripsToLengthPrefixed() async throws {
        let annexB: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5, 6]
        let units = NALUnits.splitAnnexB(annexB)
        #expect(units.map(Array.init) == [[0x67, 1, 2], [0x68, 3], [0x65, 4, 5, 6]])
        let prefixed = NALUnits.lengthPrefixed(units, lengthSize: 4)
        #expect(prefixed == [0, 0, 0, 3, 0x67, 1, 2, 0, 0, 0, 2, 0x68, 3, 0, 0, 0, 4, 0x65, 4, 5, 6])
        let back = try #require(NALUnits.splitLengthPrefixed(prefixed, lengthSize: 4))
        #expect(back.map(Array.init) == units.map(Array.init))
        #expect(NALUnits.isInstantaneousRefresh(back, codec: .h264))
        // Lengths that run past the sample are refused, not read.
        #expect(NALUnits.splitLengthPrefixed([0, 0, 0, 9, 1], lengthSize: 4) == nil)
    }

    @Test func randomAccessTypes() async {
        func unit(_ type: UInt8) -> ArraySlice<UInt8> { [type << 1, 1][...] }
        #expect(NALUnits.isInstantaneousRefresh([unit(19)], codec: .hevc))   // IDR_W_RADL
        #expect(NALUnits.isInstantaneousRefresh([unit(16)], codec: .hevc))   // BLA_W_LP
        #expect(!NALUnits.isInstantaneousRefresh([unit(21)], codec: .hevc))  // CRA
        #expect(NALUnits.isCleanRandomAccessCandidate([unit(21)], codec: .hevc))
        #expect(!NALUnits.isInstantaneousRefresh([[0x41, 0][...]], codec: .h264)) // non-IDR slice
    }

    @Test func parameterSetsOfAnAvcCRecord() async throws {
        let record: [UInt8] = [1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, 3, 0x67, 9, 9, 1, 0, 2, 0x68, 7]
        let configuration = try #require(NALUnits.configuration(record, codec: .h264))
        #expect(configuration.lengthSize == 4)
        #expect(configuration.parameterSets.map(Array.init) == [[0x67, 9, 9], [0x68, 7]])
        #expect(NALUnits.configuration(Array(record.prefix(10)), codec: .h264) == nil)
    }
}
