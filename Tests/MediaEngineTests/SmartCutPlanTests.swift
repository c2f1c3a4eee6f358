@testable import MediaEngine
import Testing

/// SmartCutPlan.make on packet tables: ticks of 1/30 s, GOPs of 30 (decode order I P B B P B B …).
struct SmartCutPlanTests {
    static let fourGOPs = CutPlanTests.gop(from: 0) + CutPlanTests.gop(from: 30) + CutPlanTests.gop(from: 60) + CutPlanTests.gop(from: 90)
    static let allClean = fourGOPs.map(\.isKeyframe)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let start: Int64
        let end: Int64
        let frameAtStart: Int64
        let firstCopied: Int64
        let copyEnd: Int64
        let tailStart: Int64?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "on keyframes: all copied", start: 30, end: 90, frameAtStart: 30, firstCopied: 30, copyEnd: 90, tailStart: nil),
        Case(name: "one frame after a keyframe", start: 31, end: 90, frameAtStart: 31, firstCopied: 60, copyEnd: 90, tailStart: nil),
        Case(name: "one frame before the next keyframe", start: 29, end: 89, frameAtStart: 29, firstCopied: 30, copyEnd: 60, tailStart: 60),
        Case(name: "mid-GOP both ends", start: 15, end: 100, frameAtStart: 15, firstCopied: 30, copyEnd: 90, tailStart: 90),
        Case(name: "end one frame past a keyframe", start: 0, end: 61, frameAtStart: 0, firstCopied: 0, copyEnd: 60, tailStart: 60),
    ]

    @Test(arguments: cases)
    func plans(_ example: Case) throws {
        let made = try SmartCutPlan.make(packets: Self.fourGOPs, clean: Self.allClean, start: example.start, end: example.end).get()
        #expect(made.frameAtStart == example.frameAtStart)
        #expect(made.firstCopied.pts == example.firstCopied)
        #expect(made.copyEnd.pts == example.copyEnd)
        #expect(made.tailStart == example.tailStart)
        #expect(made.hasHead == (example.frameAtStart < example.firstCopied))
        #expect(!made.copiesToEnd)
    }

    @Test func wholeRestOfTheStreamIsCopiedWithoutATail() throws {
        let plan = try SmartCutPlan.make(packets: Self.fourGOPs, clean: Self.allClean, start: 45, end: 500, reachesEndOfStream: true).get()
        #expect(plan.copiesToEnd && !plan.hasTail)
        #expect(plan.firstCopied.pts == 60)
    }

    @Test func fallsBackWithoutTwoCleanPoints() {
        // One GOP boundary inside the range and the end mid-GOP: nothing whole to copy.
        #expect(SmartCutPlan.make(packets: Self.fourGOPs, clean: Self.allClean, start: 31, end: 89) == .failure(.nothingToCopy))
        // Keyframes that are not clean (open-GOP I-frames) are not copy points.
        let openGOPs = Self.fourGOPs.indices.map { $0 == 0 }
        #expect(SmartCutPlan.make(packets: Self.fourGOPs, clean: openGOPs, start: 15, end: 100) == .failure(.noCleanKeyframe))
    }

    /// HEVC CRA with leading pictures (shown before it, decoded after it): they belong to the tail, and
    /// the tail decodes from the point before, which they refer to.
    @Test func leadingPicturesOfTheLastPointGoToTheTail() throws {
        var packets: [CutPlan.VideoPacket] = []
        var dts: Int64 = -1
        func add(_ pts: Int64, key: Bool = false) {
            packets.append(CutPlan.VideoPacket(pts: pts, dts: dts, duration: 1, isKeyframe: key))
            dts += 1
        }
        for gop in 0..<3 {
            let base = Int64(gop) * 10
            add(base, key: true)
            // Leading pictures of every point but the first: shown just before it.
            if gop > 0 { add(base - 1) }
            for pts in (base + 1)..<(base + 9) { add(pts) }
        }
        add(29)
        let plan = try SmartCutPlan.make(packets: packets, clean: packets.map(\.isKeyframe), start: 0, end: 25).get()
        #expect(plan.firstCopied.pts == 0)
        #expect(plan.copyEnd.pts == 20)
        #expect(plan.tailStart == 19)
        #expect(plan.tailDecodeFrom.pts == 10)
    }
}

struct NALUnitsTests {
    @Test func annexBRoundTripsToLengthPrefixed() throws {
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

    @Test func randomAccessTypes() {
        func unit(_ type: UInt8) -> ArraySlice<UInt8> { [type << 1, 1][...] }
        #expect(NALUnits.isInstantaneousRefresh([unit(19)], codec: .hevc))   // IDR_W_RADL
        #expect(NALUnits.isInstantaneousRefresh([unit(16)], codec: .hevc))   // BLA_W_LP
        #expect(!NALUnits.isInstantaneousRefresh([unit(21)], codec: .hevc))  // CRA
        #expect(NALUnits.isCleanRandomAccessCandidate([unit(21)], codec: .hevc))
        #expect(!NALUnits.isInstantaneousRefresh([[0x41, 0][...]], codec: .h264)) // non-IDR slice
    }

    @Test func parameterSetsOfAnAvcCRecord() throws {
        let record: [UInt8] = [1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, 3, 0x67, 9, 9, 1, 0, 2, 0x68, 7]
        let configuration = try #require(NALUnits.configuration(record, codec: .h264))
        #expect(configuration.lengthSize == 4)
        #expect(configuration.parameterSets.map(Array.init) == [[0x67, 9, 9], [0x68, 7]])
        #expect(NALUnits.configuration(Array(record.prefix(10)), codec: .h264) == nil)
    }
}
