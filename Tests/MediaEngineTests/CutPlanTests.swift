@testable import MediaEngine
import Testing

/// CutPlan.make on packet tables: 30 fps in ticks of 1/30 s for readability, 2 B-frames, GOP of 30.
struct CutPlanTests {
    /// Decode order I P B B P B B …, pts of the B-frames before their P; dts = decode position − 2.
    static func gop(from first: Int64, count: Int = 30) -> [CutPlan.VideoPacket] {
        var packets: [CutPlan.VideoPacket] = []
        var decode = first - 2
        func add(_ pts: Int64, key: Bool = false) {
            packets.append(CutPlan.VideoPacket(pts: pts, dts: decode, duration: 1, isKeyframe: key))
            decode += 1
        }
        add(first, key: true)
        var next = first + 1
        while next < first + Int64(count) {
            let anchor = min(next + 2, first + Int64(count) - 1)
            add(anchor)
            var b = next
            while b < anchor { add(b); b += 1 }
            next = anchor + 1
        }
        return packets
    }

    static let twoGOPs = gop(from: 0) + gop(from: 30)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let start: Int64
        let mode: CutPlan.Mode
        let editLists: Bool
        let keyframe: Int64
        let shift: Int64
        let presented: Int64
        let after: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "copy mid-GOP with edit list: shift to start", start: 45, mode: .copy, editLists: true,
             keyframe: 30, shift: 45, presented: 45, after: false),
        Case(name: "copy on the keyframe", start: 30, mode: .copy, editLists: true,
             keyframe: 30, shift: 30, presented: 30, after: false),
        Case(name: "copy without edit lists starts at the keyframe's decode time", start: 45, mode: .copy, editLists: false,
             keyframe: 30, shift: 28, presented: 30, after: false),
        Case(name: "keyframe mode in MP4", start: 45, mode: .keyframe, editLists: true,
             keyframe: 30, shift: 30, presented: 30, after: false),
        Case(name: "exact mid-GOP", start: 45, mode: .exact, editLists: true,
             keyframe: 30, shift: 45, presented: 45, after: false),
        Case(name: "one tick before the next keyframe", start: 29, mode: .copy, editLists: true,
             keyframe: 0, shift: 29, presented: 29, after: false),
    ]

    @Test(arguments: cases)
    func plans(_ example: Case) throws {
        let plan = try #require(CutPlan.make(packets: Self.twoGOPs, start: example.start, mode: example.mode, editLists: example.editLists))
        #expect(plan.keyframe.pts == example.keyframe)
        #expect(plan.shift == example.shift)
        #expect(plan.presentedStart == example.presented)
        #expect(plan.startsAfterRequest == example.after)
    }

    @Test func exactCutBetweenFramesStartsWithTheFrameShownThen() throws {
        // Frames every 2 ticks: a start at 5 shows the frame at 4.
        let packets = (0..<10).map { CutPlan.VideoPacket(pts: Int64($0) * 2, dts: Int64($0) * 2, duration: 2, isKeyframe: $0 == 0) }
        let plan = try #require(CutPlan.make(packets: packets, start: 5, mode: .exact, editLists: true))
        #expect(plan.presentedStart == 4)
        #expect(plan.preRollTicks() == 4)
        #expect(plan.shift == 5)
        // A stream copy starts its edit list on that frame's own time, so every player shows it first.
        let copy = try #require(CutPlan.make(packets: packets, start: 5, mode: .copy, editLists: true))
        #expect(copy.shift == 4 && copy.presentedStart == 4)
        // So does a smart cut, whose copied frames keep their own times.
        let smart = try #require(CutPlan.make(packets: packets, start: 5, mode: .smart, editLists: true))
        #expect(smart.shift == 4 && smart.presentedStart == 4)
    }

    @Test func noKeyframeBeforeStartUsesTheNextOne() throws {
        // A stream whose first packets are not keyframes (a cut transport stream).
        var packets = (0..<5).map { CutPlan.VideoPacket(pts: Int64($0), dts: Int64($0), duration: 1, isKeyframe: false) }
        packets.append(CutPlan.VideoPacket(pts: 5, dts: 5, duration: 1, isKeyframe: true))
        let plan = try #require(CutPlan.make(packets: packets, start: 2, mode: .copy, editLists: true))
        #expect(plan.keyframe.pts == 5)
        #expect(plan.startsAfterRequest)
        #expect(plan.presentedStart == 5)
    }

    @Test func noKeyframeAtAll() {
        let packets = [CutPlan.VideoPacket(pts: 0, dts: 0, duration: 1, isKeyframe: false)]
        #expect(CutPlan.make(packets: packets, start: 0, mode: .copy, editLists: true) == nil)
    }
}

/// Where a stream copy stops, on the same packet tables (decode order I P B B P B B …).
struct CopyTailTests {
    static func run(_ packets: [CutPlan.VideoPacket], end: Int64) -> (kept: [Int64], end: Int64) {
        var tail = CopyTail<Int64>(end: end)
        var kept: [Int64] = []
        for packet in packets {
            guard let ready = tail.offer(packet, packet.pts) else { break }
            kept += ready
        }
        kept += tail.finish()
        return (kept.sorted(), tail.latestEnd)
    }

    @Test func gopBoundaryEndsExactly() {
        let result = Self.run(CutPlanTests.twoGOPs, end: 30)
        #expect(result.kept == Array(0..<30))
        #expect(result.end == 30)
    }

    @Test func insideBFramesKeepsTheirReferenceAndFillsTheGap() {
        // Frames shown before 5 are 0…4; B4 references P6, and B5 (shown before P6) fills the gap.
        let result = Self.run(CutPlanTests.twoGOPs, end: 5)
        #expect(result.kept == Array(0...6))
        #expect(result.end == 7)
    }

    @Test func everythingBeforeTheEndIsKept() {
        for end in Int64(1)...59 {
            let kept = Self.run(CutPlanTests.twoGOPs, end: end).kept
            #expect(Set(0..<end).isSubset(of: Set(kept)), "end \(end)")
            #expect(kept.count <= Int(end) + 3, "end \(end): \(kept.count) frames")
        }
    }
}
