@testable import MediaEngine
import TestSupport
import Testing

/// The pure parts of out-of-band sample entries: bit rewriting, x265's renumbered sets and slices,
/// emulation prevention, the source's sets over a range, free ids, records and the plan's choice.
struct SampleEntryUnitTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    // x265 (Debian's 3.5, 64x64, wpp=0): VPS, SPS, PPS and a TRAIL_R slice, all under id 0.
    static let vps = bytes("40010c01ffff01600000030090000003000003001e959809")
    static let sps = bytes("42010101600000030090000003000003001ea020810596566924caf0168080000003008000000f04")
    static let pps = bytes("4401c172b42240")
    static let slice = bytes("0201d0115784461040be02b7de895b6d8cae9a1827ba5a323da5c717ef7e3b6bf53d6be4f0b85931e37ef0c7ecfe0248565fea139757f680")
    // x264 with sps-id=3: SPS and PPS 3.
    static let x264SPS = bytes("6764000a22cd94426c0440000003004000000f03c4896580")
    static let x264PPS = bytes("68212be3cb22c0")

    @Test func exponentialGolombRoundTrips() async {
        var writer = RBSPWriter()
        for value in 0..<300 { writer.writeUE(value) }
        writer.write(5, bits: 3)
        var reader = RBSPBits(rbsp: writer.bytes)
        for value in 0..<300 { #expect(reader.readUE() == value) }
        #expect(reader.read(3) == 5)
        #expect((0..<64).allSatisfy { RBSPWriter.lengthOfUE($0) == 2 * (Int.bitWidth - ($0 + 1).leadingZeroBitCount) - 1 })
        #expect(RBSPWriter.lengthOfUE(0) == 1 && RBSPWriter.lengthOfUE(15) == 9 && RBSPWriter.lengthOfUE(30) == 9 && RBSPWriter.lengthOfUE(31) == 11)
    }

    @Test(arguments: [[0, 0, 0], [0, 0, 1, 0, 0, 2], [0, 0, 3, 0, 0, 0, 0], [1, 0, 0], [0, 0, 4, 0, 0]] as [[UInt8]])
    func emulationPreventionRoundTrips(_ rbsp: [UInt8]) async {
        let escaped = NALUnits.addingEmulationPrevention(rbsp)
        // No 00 00 00/01/02 left inside, and nothing ends in a zero byte.
        for index in 0..<max(0, escaped.count - 2) where escaped[index] == 0 && escaped[index + 1] == 0 {
            #expect(escaped[index + 2] >= 3, "\(escaped)")
        }
        #expect(escaped.last != 0)
        var trimmed = NALUnits.removingEmulationPrevention(escaped)
        // A final 03 guarded a zero byte: it goes away with it.
        if rbsp.last == 0, trimmed.count > rbsp.count { trimmed.removeLast() }
        #expect(trimmed == rbsp, "\(escaped)")
    }

    @Test func x265SetsAreRenumberedAndBack() async throws {
        let ids = HEVCRenumbering.Ids(vps: 3, sps: 5, pps: 17)
        let vps = try #require(HEVCRenumbering.renumber(set: Self.vps[...], to: ids))
        let sps = try #require(HEVCRenumbering.renumber(set: Self.sps[...], to: ids))
        let pps = try #require(HEVCRenumbering.renumber(set: Self.pps[...], to: ids))
        #expect(ParameterSet.parse(vps[...], codec: .hevc).map { "\($0.kind) \($0.id)" } == "vps 3")
        #expect(ParameterSet.parse(sps[...], codec: .hevc).map { [$0.id, $0.parentId ?? -1] } == [5, 3])
        #expect(ParameterSet.parse(pps[...], codec: .hevc).map { [$0.id, $0.parentId ?? -1] } == [17, 5])
        // Everything else in the SPS reads the same.
        let before = try #require(ParameterSet.parse(Self.sps[...], codec: .hevc).flatMap { SPSProfile.read($0, codec: .hevc) })
        let after = try #require(ParameterSet.parse(sps[...], codec: .hevc).flatMap { SPSProfile.read($0, codec: .hevc) })
        #expect(before == after)
        // And back to x265's ids gives x265's bytes.
        let zero = HEVCRenumbering.Ids(vps: 0, sps: 0, pps: 0)
        #expect(HEVCRenumbering.renumber(set: vps[...], to: zero) == Self.vps)
        #expect(HEVCRenumbering.renumber(set: sps[...], to: zero) == Self.sps)
        #expect(HEVCRenumbering.renumber(set: pps[...], to: zero) == Self.pps)
    }

    @Test func slicesTakeAPPSIdOfWholeBytesMore() async throws {
        #expect(NALSyntax.slicePPSId(Self.slice, hevc: true) == 0)
        for pps in [15, 22, 30] {
            let renumbered = try #require(HEVCRenumbering.renumber(slice: Self.slice[...], pps: pps))
            #expect(renumbered.count == Self.slice.count + 1)
            #expect(NALSyntax.slicePPSId(renumbered, hevc: true) == pps)
            // The slice data after the header is the same bytes.
            #expect(renumbered.suffix(Self.slice.count - 4) == Self.slice.suffix(Self.slice.count - 4))
            #expect(HEVCRenumbering.renumber(slice: renumbered[...], pps: 0) == Self.slice)
        }
        // 0 → 5 would shift the slice data by 4 bits.
        #expect(HEVCRenumbering.renumber(slice: Self.slice[...], pps: 5) == nil)
        #expect(HEVCRenumbering.renumber(slice: Self.slice[...], pps: 31) == nil)
    }

    @Test func x264SetsCarryTheirSPSId() async throws {
        #expect(ParameterSet.parse(Self.x264SPS[...], codec: .h264).map { [$0.id] } == [3])
        #expect(ParameterSet.parse(Self.x264PPS[...], codec: .h264).map { [$0.id, $0.parentId ?? -1] } == [3, 3])
        let ids = HEVCRenumbering.Ids(vps: 0, sps: 3, pps: 3)
        let extradata = [0, 0, 0, 1] + Self.x264SPS + [0, 0, 0, 1] + Self.x264PPS
        #expect(EncoderUnitRewriter.encoderSets(extradata: extradata, codec: .h264, ids: ids)?.count == 2)
        // Sets under other ids than planned are refused.
        #expect(EncoderUnitRewriter.encoderSets(extradata: extradata, codec: .h264, ids: HEVCRenumbering.Ids(vps: 0, sps: 1, pps: 1)) == nil)
    }

    static func set(_ kind: ParameterSet.Kind, _ id: Int, _ content: UInt8) -> ParameterSet {
        ParameterSet(kind: kind, id: id, parentId: kind == .pps ? 0 : nil, unit: [kind == .sps ? 0x67 : 0x68, content])
    }

    @Test func setsOverARange() async {
        var sets = SourceParameterSets(codec: .h264, record: [Self.set(.sps, 0, 1), Self.set(.pps, 0, 1)], recordBytes: nil,
                                       lengthSize: 4, sourceTag: "avc3")
        sets.scanned(Self.set(.sps, 0, 1), dts: 0, seconds: 0)
        sets.scanned(Self.set(.pps, 1, 1), dts: 50, seconds: 0.5)
        sets.scanned(Self.set(.pps, 1, 1), dts: 60, seconds: 0.6)
        sets.scanned(Self.set(.pps, 0, 2), dts: 100, seconds: 1)
        #expect(sets.occurrences.map(\.dts) == [0, 50, 100], "repeats of the same set are not kept")
        let whole = sets.restricted(startDts: 0, endDts: nil)
        #expect(whole.conflict == SourceParameterSets.Conflict(kind: .pps, id: 0, seconds: 1))
        #expect(whole.added.map(\.id) == [1])
        let before = sets.restricted(startDts: 0, endDts: 100)
        #expect(before.conflict == nil && before.all.count == 3)
        // From the change on, the changed PPS is the one in force: no conflict.
        let after = sets.restricted(startDts: 100, endDts: nil)
        #expect(after.conflict == nil && after.record.first { $0.kind == .pps && $0.id == 0 }?.unit == [0x68, 2])
    }

    @Test func freeIdsAvoidTheSource() async {
        var hevc = SourceParameterSets(codec: .hevc, record: [], recordBytes: nil, lengthSize: 4, sourceTag: "hvc1")
        for (kind, id) in [(ParameterSet.Kind.vps, 0), (.vps, 1), (.sps, 0), (.pps, 0), (.pps, 15)] {
            hevc.meet(ParameterSet(kind: kind, id: id, parentId: nil, unit: [UInt8(id)]), seconds: nil)
        }
        #expect(hevc.freeEncoderIds == HEVCRenumbering.Ids(vps: 2, sps: 1, pps: 16))
        var h264 = SourceParameterSets(codec: .h264, record: [], recordBytes: nil, lengthSize: 4, sourceTag: "avc1")
        for (kind, id) in [(ParameterSet.Kind.sps, 0), (.sps, 1), (.pps, 0), (.pps, 2)] {
            h264.meet(ParameterSet(kind: kind, id: id, parentId: 0, unit: [UInt8(id)]), seconds: nil)
        }
        #expect(h264.freeEncoderIds?.sps == 3)
        var full = SourceParameterSets(codec: .hevc, record: [], recordBytes: nil, lengthSize: 4, sourceTag: "hvc1")
        for id in 15...30 { full.meet(ParameterSet(kind: .pps, id: id, parentId: 0, unit: [UInt8(id)]), seconds: nil) }
        #expect(full.freeEncoderIds == nil)
        let (plan, notice) = SampleEntryPlan.choose(sets: full, mode: .smart, requested: .outOfBand)
        #expect(plan.type == "hev1" && notice == .sampleEntry(type: "hev1", reason: .noFreeIds))
        #expect(SampleEntryPlan.choose(sets: full, mode: .copy, requested: .outOfBand).0.type == "hvc1")
        #expect(SampleEntryPlan.choose(sets: full, mode: .smart, requested: .inBand) == (plan, nil))
    }

    @Test func recordsCoverEverySet() async throws {
        // Two H.264 SPS: x264's at level 1.0 and the same at level 4.1: the record takes the higher.
        var high = Self.x264SPS
        high[3] = 41
        let sets = [ParameterSet.parse(Self.x264SPS[...], codec: .h264), ParameterSet.parse(high[...], codec: .h264),
                    ParameterSet.parse(Self.x264PPS[...], codec: .h264)].compactMap { $0 }
        let avcC = try #require(DecoderConfiguration.record(sets, codec: .h264))
        #expect(avcC[1] == 100 && avcC[3] == 41 && avcC[5] == 0xe2)
        let parsed = try #require(NALUnits.configuration(avcC, codec: .h264))
        #expect(parsed.lengthSize == 4 && parsed.parameterSets.count == 3)
        // HEVC: x265's sets plus the same renumbered; arrays VPS, SPS, PPS, complete.
        let ids = HEVCRenumbering.Ids(vps: 1, sps: 1, pps: 15)
        let units = [Self.vps, Self.sps, Self.pps] + [Self.vps, Self.sps, Self.pps].compactMap { HEVCRenumbering.renumber(set: $0[...], to: ids) }
        let hevcSets = units.compactMap { ParameterSet.parse($0[...], codec: .hevc) }
        let hvcC = try #require(DecoderConfiguration.record(hevcSets, codec: .hevc))
        #expect(hvcC[12] == 30, "level 1.0, from the SPS")
        #expect(hvcC[22] == 3 && hvcC[23] == 0x80 | 32)
        #expect(NALUnits.configuration(hvcC, codec: .hevc)?.parameterSets.count == 6)
    }

    @Test(arguments: [[0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5, 0, 0],
                      [0, 0, 1, 0x09, 0x10, 0, 0, 0, 1, 0x41, 1, 0, 0, 3, 1, 2, 0, 0, 1],
                      [0, 0, 1], []] as [[UInt8]])
    func annexBRangesMatchTheSplit(_ stream: [UInt8]) async {
        let ranges = stream.withUnsafeBufferPointer { NALUnits.unitRanges($0, lengthSize: nil) } ?? []
        #expect(ranges.map { Array(stream[$0]) } == NALUnits.splitAnnexB(stream).map { Array($0) })
    }

    /// Bytes before the first start code (a damaged sample) are kept as a unit: a copy drops nothing.
    @Test func annexBKeepsWhatComesBeforeTheFirstStartCode() async {
        func units(_ stream: [UInt8]) -> [[UInt8]] {
            (stream.withUnsafeBufferPointer { NALUnits.unitRanges($0, lengthSize: nil) } ?? []).map { Array(stream[$0]) }
        }
        #expect(units([1, 0, 1, 0, 0, 1, 0x65, 7]) == [[1, 0, 1], [0x65, 7]])
        #expect(units([0x41, 9, 9]) == [[0x41, 9, 9]])
        #expect(units([0, 0, 0]) == [])
    }

    @Test func lengthRangesRefuseLengthsThatDoNotAddUp() async {
        let good: [UInt8] = [0, 0, 0, 2, 0x65, 1, 0, 0, 0, 1, 0x06]
        #expect(good.withUnsafeBufferPointer { NALUnits.unitRanges($0, lengthSize: 4) } == [4..<6, 10..<11])
        #expect(Array(good.dropLast()).withUnsafeBufferPointer { NALUnits.unitRanges($0, lengthSize: 4) } == nil)
    }
}
