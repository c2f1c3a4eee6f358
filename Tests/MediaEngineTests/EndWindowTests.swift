@testable import MediaEngine
import Testing

/// When the packets read back from a smart cut's end hold enough for its tail (`SmartCutPlan.endWindowSuffices`):
/// one clean point shown before the end will do if nothing is shown before it from after it (an IDR) and the
/// container gave the decode times; otherwise two (a CRA's leading pictures decode from the point before it).
struct EndWindowTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let name: String
        /// Decode order: (pts in 40-tick frames, a clean point).
        let order: [(Int, Bool)]
        let endFrame: Int
        let decodeTimesDerived: Bool
        let suffices: Bool
        var testDescription: String { name }
    }

    static let examples: [Example] = [
        Example(name: "an IDR, then P-frames", order: [(10, true), (11, false), (12, false), (13, false)], endFrame: 12,
                decodeTimesDerived: false, suffices: true),
        Example(name: "an IDR, decode times derived (Matroska)", order: [(10, true), (11, false), (12, false)], endFrame: 12,
                decodeTimesDerived: true, suffices: false),
        Example(name: "a CRA with leading pictures", order: [(10, true), (8, false), (9, false), (13, false)], endFrame: 12,
                decodeTimesDerived: false, suffices: false),
        Example(name: "two clean points", order: [(4, true), (5, false), (10, true), (8, false), (9, false)], endFrame: 12,
                decodeTimesDerived: true, suffices: true),
        Example(name: "the only clean point at the end", order: [(12, true), (13, false)], endFrame: 12,
                decodeTimesDerived: false, suffices: false),
        Example(name: "no clean point", order: [(10, false), (11, false)], endFrame: 12, decodeTimesDerived: false, suffices: false),
    ]

    @Test(arguments: examples)
    func endWindowSuffices(_ example: Example) async {
        let packets = example.order.enumerated().map { position, entry in
            VideoPacket(pts: Int64(entry.0) * 40, dts: Int64(position) * 40, duration: 40, isKeyframe: entry.1, isClean: entry.1)
        }
        #expect(SmartCutPlan.endWindowSuffices(packets, end: Int64(example.endFrame) * 40,
                                               decodeTimesDerived: example.decodeTimesDerived) == example.suffices)
    }
}
