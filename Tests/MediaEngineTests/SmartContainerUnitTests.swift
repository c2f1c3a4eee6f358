import CAV
@testable import MediaEngine
import Testing

/// The pure decisions behind smart cuts into Matroska and MPEG-TS: which containers take them and how each
/// holds parameter sets, what the edges' SPS declares of reordering, and when an edge read back differs from the
/// source's picture.
struct SmartContainerUnitTests {
    @Test(arguments: [("mp4", ParameterSetCarriage.sampleEntry), ("mov", .sampleEntry), ("matroska", .codecPrivate), ("mpegts", .annexB)])
    func containersCarryTheirSetsTheirOwnWay(_ muxer: String, _ carriage: ParameterSetCarriage) async {
        #expect(ParameterSetCarriage(muxer: muxer) == carriage)
    }

    @Test(arguments: ["avi", "webm", "flv", "mxf", ""])
    func otherContainersTakeNoSmartCut(_ muxer: String) async {
        #expect(ParameterSetCarriage(muxer: muxer) == nil)
    }

    /// x264 edges declare the source's reorder depth in Matroska (0: no B-frames; 1: B-frames; 2: a pyramid).
    @Test(arguments: [(0, "bframes=0:"), (1, "bframes=1:b-pyramid=none:"), (2, "bframes=3:b-pyramid=normal:")])
    func x264EdgesDeclareTheSourcesReorderDepth(_ depth: Int, _ expected: String) async throws {
        let match = SmartEncoding.Match(encoder: "libx264", profile: "high", level: 31, lossless: false, hdrParameters: [], declaredReorder: depth)
        let parameters = try #require(SmartEncoding.options(match, crf: 16, preset: "veryfast", threads: 1)["x264-params"])
        #expect(parameters.hasPrefix(expected), "\(parameters)")
    }

    /// A byte stream keeps every set in band, under the trial's ids when it has them.
    @Test func annexBKeepsTheEncodersSetsInBandUnderTheirOwnIds() async throws {
        let sps = try #require(ParameterSet.parse([0x67, 0x64, 0x00, 0x1f, 0xac][...], codec: .h264))
        let sets = SourceParameterSets(codec: .h264, record: [sps], recordBytes: nil, lengthSize: nil, sourceTag: nil)
        let ids = HEVCRenumbering.Ids(vps: 1, sps: 1, pps: 1)
        let (plan, notice) = SampleEntryPlan.choose(sets: sets, mode: .smart, requested: .outOfBand, trial: (ids, [sps]), carriage: .annexB)
        #expect(notice == nil)
        #expect(plan.placement == .inBand && plan.type == "annex_b" && plan.encoderIds == ids && plan.record == nil)
        let matroska = SampleEntryPlan.choose(sets: sets, mode: .smart, requested: .outOfBand, trial: (ids, [sps]), carriage: .codecPrivate).0
        #expect(matroska.placement == .outOfBand && matroska.type == "codec_private" && matroska.record != nil)
    }

    static let source = EdgeReadBack.Decoded(format: AV_PIX_FMT_YUV420P10LE, range: AVCOL_RANGE_MPEG, primaries: AVCOL_PRI_BT2020,
                                             transfer: AVCOL_TRC_SMPTE2084, matrix: AVCOL_SPC_BT2020_NCL, masteringDisplay: true, lightLevel: true)

    @Test func anEdgeLikeTheSourcePasses() async {
        #expect(EdgeReadBack.compare(Self.source, source: Self.source) == nil)
        // What the source's bitstream leaves unstated the edge may state; an unstated range is limited.
        let unstated = EdgeReadBack.Decoded(format: AV_PIX_FMT_YUV420P, range: AVCOL_RANGE_UNSPECIFIED, primaries: AVCOL_PRI_UNSPECIFIED,
                                            transfer: AVCOL_TRC_UNSPECIFIED, matrix: AVCOL_SPC_UNSPECIFIED)
        let stated = EdgeReadBack.Decoded(format: AV_PIX_FMT_YUV420P, range: AVCOL_RANGE_MPEG, primaries: AVCOL_PRI_BT709,
                                          transfer: AVCOL_TRC_BT709, matrix: AVCOL_SPC_BT709)
        #expect(EdgeReadBack.compare(stated, source: unstated) == nil)
    }

    @Test func eachDifferenceIsNamed() async {
        func edge(_ change: (inout EdgeReadBack.Decoded) -> Void) -> String? {
            var edge = Self.source
            change(&edge)
            guard case let .parameterMismatch(field, _, _)? = EdgeReadBack.compare(edge, source: Self.source) else { return nil }
            return field
        }
        #expect(edge { $0.format = AV_PIX_FMT_YUV420P } == "pixel format")
        #expect(edge { $0.range = AVCOL_RANGE_JPEG } == "range")
        #expect(edge { $0.primaries = AVCOL_PRI_BT709 } == "primaries")
        #expect(edge { $0.transfer = AVCOL_TRC_BT709 } == "transfer")
        #expect(edge { $0.transfer = AVCOL_TRC_UNSPECIFIED } == "transfer")
        #expect(edge { $0.matrix = AVCOL_SPC_BT709 } == "matrix")
        #expect(edge { $0.masteringDisplay = false } == "mastering display metadata (SEI)")
        #expect(edge { $0.lightLevel = false } == "content light level (SEI)")
    }
}
