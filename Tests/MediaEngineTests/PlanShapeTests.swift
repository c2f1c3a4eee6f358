@testable import MediaEngine
import Foundation
import Testing

/// A plan holds each fact once: what is alike in every range is the output's, and a range holds only its own timing.
struct PlanShapeTests {
    /// Keys only the output's plan may hold (`OutputPlan`, `OutputVideo`, and what they hold): a range that carried
    /// any of them would be carrying the output again.
    static let outputKeys: Set<String> = [
        "requestedMode", "mode", "smartFallback", "container", "originMicro", "streams", "sampleEntry", "encoder", "reencoding",
        "threads", "faststart", "chapters", "timecode", "movieMetadata", "sharesEncoder", "notices", "streamIndex", "codec",
        "timeBase", "editTimeBase", "exactTimeBase", "edits", "beginning", "packedFrames", "decodeDelayFrames", "streamConfiguration",
        "edgeHeader", "x264SEI", "sourceSets", "options", "pixelFormat",
    ]

    /// Every key of a JSON value, at any depth.
    static func keys(_ value: Any) -> Set<String> {
        if let object = value as? [String: Any] { return Set(object.keys).union(object.values.flatMap(keys)) }
        if let array = value as? [Any] { return Set(array.flatMap(keys)) }
        return []
    }

    /// An x264 SEI of the size the issue measured (its option string, 702 bytes), no two bytes alike in a row.
    static let sei: [UInt8] = (0..<702).map { UInt8(truncatingIfNeeded: $0 * 7 + 6) }

    /// 400 ranges, one a GOP, of a long stream whose first access unit carries an x264 SEI.
    static func join(_ count: Int, mode: CutMode, container: Container) throws -> EditPlan {
        let packets = SyntheticStream.ibbp(gops: count + 1)
        let plans = try (0..<count).map { index -> (CutFacts, RangeDraft) in
            let start = Int64(index) * 480 + 100
            var facts = syntheticFacts(packets, start: start, end: start + 300, mode: mode, container: container)
            facts.video?.beginning = StreamBeginning(x264Build: 148, x264SEI: Self.sei, firstDecodeTicks: -80, lengthSize: 4)
            return (facts, try RangePlanner.plan(facts, joins: true))
        }
        return try EditPlannerTests.joined(plans)
    }

    @Test(arguments: [(CutMode.copy, Container.mp4), (.copy, .mkv), (.exact, .mp4), (.keyframe, .mkv)])
    func rangesHoldNoOutputLevelField(mode: CutMode, container: Container) async throws {
        let plan = try Self.join(400, mode: mode, container: container)
        #expect(plan.ranges.count == 400)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(plan)) as? [String: Any]
        let ranges = try #require(json?["ranges"] as? [Any])
        let found = Self.keys(ranges).intersection(Self.outputKeys)
        #expect(found.isEmpty, "ranges hold output-level fields: \(found.sorted())")
        // The SEI is said once, as base64, not once per range as an array of numbers.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let text = String(decoding: try encoder.encode(plan), as: UTF8.self)
        #expect(text.components(separatedBy: Data(Self.sei).base64EncodedString()).count == 2)
        // A range is its timing: well under a kilobyte each.
        let perRange = try JSONEncoder().encode(plan.ranges).count / 400
        #expect(perRange < 1000, "\(perRange) bytes a range")
        // What is left out when unset (a packet's false flags) comes back as it was.
        #expect(try JSONDecoder().decode(EditPlan.self, from: JSONEncoder().encode(plan)) == plan)
    }

    @Test(arguments: [false, true], [false, true])
    func packetsRoundTripWithTheirFlagsLeftOutWhenUnset(keyframe: Bool, clean: Bool) throws {
        for splice in [false, true] {
            let packet = VideoPacket(pts: -3, dts: Int64.min, duration: Int64.max, isKeyframe: keyframe, isClean: clean, isSplicePoint: splice)
            let data = try JSONEncoder().encode(packet)
            #expect(try JSONDecoder().decode(VideoPacket.self, from: data) == packet)
            #expect(!String(decoding: data, as: UTF8.self).contains("false"))
        }
    }

    /// Only the edit writer sees every range: a writer is made with the output's plan and its own range's
    /// (`EditWriter` hands a smart edit's next range to the edges it starts early, nothing else), so a writer that
    /// read another range's plan would have to name it here.
    @Test func writersReadTheirOwnRangeOnly() async throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/MediaEngine/Write")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            let ranges = code.filter { $0.contains("ranges[") || $0.contains("plan.ranges") || $0.contains("EditPlan") }
            if file == "EditOutput.swift" {
                continue  // The entry point: it hands the whole plan to the edit writer.
            } else if file == "EditWriter.swift" {
                // Its own list, the next range's edges, and the report's times of the range written.
                #expect(ranges.allSatisfy { $0.contains("ranges[safe: number + 1]") || $0.contains("plan.ranges") || $0.contains("EditPlan") },
                        "\(file): \(ranges)")
            } else {
                #expect(ranges.isEmpty, "\(file) reads the edit's ranges: \(ranges)")
            }
        }
    }
}
