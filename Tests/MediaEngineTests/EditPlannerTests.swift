@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// Joins planned from synthetic streams (ticks in ms, 40 ms frames, GOPs of 480 ms, two frames of decode
/// delay): where each range lands on the output's timeline, what is re-encoded, what is refused.
struct EditPlannerTests {
    /// Each range's facts and draft.
    static func plans(_ packets: [VideoPacket], _ ranges: [(Int64, Int64)], mode: CutMode, container: Container = .mp4) throws -> [(CutFacts, RangeDraft)] {
        try ranges.map { range in
            let facts = syntheticFacts(packets, start: range.0, end: range.1, mode: mode, container: container)
            return (facts, try RangePlanner.plan(facts, joins: ranges.count > 1))
        }
    }

    static func join(_ plans: [(CutFacts, RangeDraft)], labels: [String?] = []) throws -> EditPlanner.Decision {
        let source = try #require(plans.first?.0)
        let selection = try StreamSelection.choose(source)
        return try EditPlanner.plan(plans.map(\.1), edit: .init(source: source, streams: selection.streams, streamNotices: selection.notices,
                                                                labels: labels))
    }

    static func joined(_ plans: [(CutFacts, RangeDraft)]) throws -> EditPlan {
        guard case let .plan(plan) = try join(plans) else { throw MediaError(.invalidRange, path: "", operation: "test", reason: "replanned") }
        return plan
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [VideoPacket]
        let ranges: [(Int64, Int64)]
        let mode: CutMode
        let container: Container
        /// Where each range begins on the output (µs) and how long it lasts there (µs).
        let starts: [Int64]
        let durations: [Int64]
        /// Per range: re-encoded whole (smart), the tail's decode delay (ticks).
        var whole: [Bool] = []
        var tailDelays: [Int64] = []
        var testDescription: String { name }
    }

    static let ibbp = SyntheticStream.ibbp(gops: 4)
    static let pyramid = SyntheticStream.pyramid(gops: 3)

    static let cases: [Case] = [
        // Range 1 shows frame 2 (80) whole: head 80–480, copy 480–960, tail 960–1000 → 920 ms. Range 2 (adjacent,
        // inside the GOP from 960) has no GOP to copy: re-encoded whole, 1000–1120 (its last frame, 1080, whole),
        // decode times 80 ms early as the copied keyframes' are; so are range 1's tail's, which the next range follows.
        Case(name: "smart: adjacent ranges, the second inside one GOP", packets: ibbp, ranges: [(100, 1000), (1000, 1100)], mode: .smart,
             container: .mp4, starts: [0, 920_000], durations: [920_000, 120_000], whole: [false, true], tailDelays: [80, 80]),
        Case(name: "smart: ranges at the file's ends (the last copied to the end)", packets: ibbp, ranges: [(0, 600), (1000, 1920)],
             mode: .smart, container: .mp4, starts: [0, 600_000], durations: [600_000, 920_000], whole: [false, false], tailDelays: [80, 0]),
        // The last range lies inside the last GOP and asks past the stream's end: re-encoded whole, to the last frame's end.
        Case(name: "smart: a last range inside the last GOP, past the end", packets: ibbp, ranges: [(0, 600), (1500, 5000)],
             mode: .smart, container: .mp4, starts: [0, 600_000], durations: [600_000, 440_000], whole: [false, true], tailDelays: [80, 80]),
        // Exact ranges last their frames' spans: 480–720 and 800–920, each first and last frame whole.
        Case(name: "exact: ranges shorter than a GOP last their frames' spans", packets: ibbp, ranges: [(500, 700), (810, 900)], mode: .exact,
             container: .mkv, starts: [0, 240_000], durations: [240_000, 120_000]),
        // Copy into MKV shows each range from its keyframe through the frames its end needs (B-pyramid: 7 and 8).
        Case(name: "copy into MKV: a range inside a B-pyramid keeps what its frames need", packets: pyramid, ranges: [(0, 260), (700, 900)],
             mode: .copy, container: .mkv, starts: [0, 360_000], durations: [360_000, 360_000]),
    ]

    @Test(arguments: cases)
    func rangesLandBackToBack(_ example: Case) async throws {
        let plan = try Self.joined(try Self.plans(example.packets, example.ranges, mode: example.mode, container: example.container))
        #expect(plan.output.mode == example.mode)
        #expect(plan.ranges.map(\.outputStartMicro) == example.starts)
        #expect(plan.ranges.map(\.durationMicro) == example.durations)
        #expect(plan.durationMicro == example.durations.reduce(0, +))
        for (range, start) in zip(plan.ranges, example.starts) {
            // Each range's own timeline moved by where it begins (the companions with it).
            #expect(range.companions.zeroOutputMicro == start)
            if let exact = range.video?.exact, let grid = plan.output.video?.exactTimeBase {
                #expect(exact.outputStart.value == Rescale.ticks(start, from: Rational(1, 1_000_000), to: grid))
            } else {
                #expect(range.video?.outputStart.value == start / 1000)
            }
        }
        if !example.whole.isEmpty { #expect(plan.ranges.map { $0.smart?.reencodesWhole ?? false } == example.whole) }
        if !example.tailDelays.isEmpty { #expect(plan.ranges.map { $0.video?.tailDecodeDelay ?? -1 } == example.tailDelays) }
        // Smart and exact joins into MP4: one edit, the ranges' total.
        if example.container == .mp4, let edit = plan.output.video?.editDuration, let unit = plan.output.video?.editTimeBase {
            #expect(Rescale.ticks(edit, from: unit, to: Rational(1, 1_000_000)) == plan.durationMicro)
        }
    }

    /// Smart joins of open GOPs whose I-frames are clean starts (MPEG-2, HEVC CRAs): a range that ends after K2's leading
    /// pictures hands its tail one of them; the next range's head then follows it. Wherever the ranges fall, the planned
    /// join either writes decode times that rise packet by packet and never pass their presentation times — head frames
    /// at `pts − head delay`, copied packets at their own, tail frames at `pts − tail delay`, all on the output — or is
    /// replanned exactly.
    @Test func openGOPSmartJoinsKeepDecodeTimesInOrder() async {
        let packets = SyntheticStream.openGOP(gops: 6, cleanPoints: true)
        let streamEnd: Int64 = (packets.map(\.pts).max() ?? 0) + SyntheticStream.frame
        var joinedSmartly = 0
        await propertyCheck(count: 300, input: Gen.int(in: 0...2400), Gen.int(in: 40...1400), Gen.int(in: 0...400), Gen.int(in: 40...1400)) { from, length, gap, second in
            let first = (Int64(from), min(streamEnd, Int64(from + length)))
            let next = (first.1 + Int64(gap), min(streamEnd, first.1 + Int64(gap + second)))
            guard next.0 < next.1, let plans = try? Self.plans(packets, [first, next], mode: .smart),
                  case let .plan(plan)? = try? Self.join(plans), plan.output.mode == .smart else { return }
            joinedSmartly += 1
            var written: [(pts: Int64, dts: Int64)] = []
            for range in plan.ranges {
                guard let video = range.video, let smart = range.smart else { continue }
                let shift = video.packetShift
                func shown(_ from: Int64, _ to: Int64) -> [Int64] { packets.map(\.pts).filter { $0 >= from && $0 < to }.sorted() }
                if !smart.reencodesWhole {
                    let delay = video.headDecodeDelay ?? video.copiedKeyframeDelay(smart)
                    // The head's first frame is shown at the range's start on the output (`StartFrameHold`).
                    let head = shown(smart.frameAtStart, smart.firstCopied.pts).enumerated().map { $0.offset == 0 ? video.outputStart.value : $0.element - shift }
                    written += head.map { (pts: $0, dts: $0 - delay) }
                    let start = packets.firstIndex { $0.isSame(as: smart.firstCopied) } ?? 0
                    let stop = smart.copiesToEnd ? packets.count : packets.firstIndex { $0.isSame(as: smart.copyEnd) } ?? packets.count
                    written += packets[start..<stop].filter { $0.pts >= smart.firstCopied.pts }.map { (pts: $0.pts - shift, dts: $0.dts - video.copiedDecodeLead - shift) }
                }
                if let tail = smart.tailStart {
                    written += shown(tail, smart.end).map { (pts: $0 - shift, dts: $0 - video.tailDecodeDelay - shift) }
                }
            }
            let order = zip(written, written.dropFirst()).first { $0.1.dts <= $0.0.dts }
            #expect(order == nil, "\(first), \(next): decode times \(written.map(\.dts))")
            #expect(written.allSatisfy { $0.dts <= $0.pts }, "\(first), \(next): \(written)")
        }
        #expect(joinedSmartly > 50, "only \(joinedSmartly) joins were smart")
    }

    /// A constant-rate smart join decodes on one grid (issue 50): every range — one re-encoded whole among them — gets
    /// the same frame and the largest copied keyframe's delay; a variable-rate source gets none (each range's own times).
    @Test(arguments: [Int64?(40), nil])
    func aSmartJoinDecodesOnOneGrid(frameTicks: Int64?) async throws {
        var plans = try Self.plans(Self.ibbp, [(100, 1000), (1000, 1100), (1500, 1900)], mode: .smart)
        plans[0].0.video?.constantFrameTicks = frameTicks
        guard case let .plan(plan) = try Self.join(plans) else { Issue.record("replanned"); return }
        #expect(plan.output.mode == .smart && plan.ranges.contains { $0.smart?.reencodesWhole == true })
        let delays = plan.ranges.compactMap(\.smart).filter { !$0.reencodesWhole }.map { $0.firstCopied.pts - $0.firstCopied.dts }
        let expected = frameTicks.flatMap { ticks in delays.max().map { DecodeGrid(frameTicks: ticks, delay: $0) } }
        #expect(plan.ranges.map(\.video?.decodeGrid) == Array(repeating: expected, count: plan.ranges.count))
    }

    /// A range copied to the stream's end followed by one re-encoding the last frame again (found by the property
    /// test above): the second decodes after the first's last copied packet, not its own reorder delay early.
    @Test func rangeAfterACopyToTheEndDecodesAfterIt() async throws {
        let packets = SyntheticStream.openGOP(gops: 6, cleanPoints: true)
        let plan = try Self.joined(try Self.plans(packets, [(2005, 2841), (2841, 2880)], mode: .smart))
        let first = try #require(plan.ranges.first), second = try #require(plan.ranges.last)
        #expect(first.smart?.copiesToEnd == true && second.smart?.reencodesWhole == true)
        let lastCopied = try #require(first.smart?.copyEnd.dts).minus(try #require(first.video?.packetShift))
        let firstWhole = try #require(second.smart?.tailStart).minus(try #require(second.video?.packetShift))
        #expect(firstWhole - (second.video?.tailDecodeDelay ?? .max) > lastCopied)
    }

    /// Every range of a smart join inside one GOP: nothing is copied anywhere, so the join is made exactly.
    @Test func smartWithNothingToCopyIsReplannedExact() async throws {
        let decision = try Self.join(try Self.plans(Self.ibbp, [(500, 700), (700, 900)], mode: .smart))
        guard case let .replanExact(why) = decision else { Issue.record("joined smartly"); return }
        #expect(why == .nothingToCopy)
    }

    /// A copy join into MP4/MOV: each range's packets follow the ones written before it in the media (decode and
    /// presentation times in order), and one edit per range shows its frames, as long as the range; a warning says so.
    @Test(arguments: [CutMode.copy, .keyframe])
    func copyJoinIntoMP4GetsAnEditPerRange(_ mode: CutMode) async throws {
        let plan = try Self.joined(try Self.plans(Self.ibbp, [(100, 500), (900, 1300), (1300, 1500)], mode: mode))
        let edits = try #require(plan.output.video?.edits)
        #expect(edits.count == 3)
        #expect(edits.map(\.duration) == plan.ranges.map { $0.durationMicro / 1000 })
        #expect(edits.first?.mediaStart == 0)
        for (before, after) in zip(plan.ranges, plan.ranges.dropFirst()) {
            let early = try #require(before.video), late = try #require(after.video)
            let writtenEnd = early.output(early.writtenEnd ?? early.presentedEnd)
            #expect(late.output(late.keyframe.dts) >= writtenEnd)
            #expect(late.output(late.keyframe.pts) >= writtenEnd)
        }
        for (edit, range) in zip(edits, plan.ranges) {
            let video = try #require(range.video)
            #expect(edit.mediaStart == video.output(video.firstShown).value)
        }
        #expect(plan.warnings.contains { $0.code == "multiple_edits" })
        // Into Matroska: no edits; each range is shown from its keyframe.
        let mkv = try Self.joined(try Self.plans(Self.ibbp, [(100, 500), (900, 1300)], mode: mode, container: .mkv))
        #expect(mkv.output.video?.edits == nil && !mkv.warnings.contains { $0.code == "multiple_edits" })
    }

    /// A copy join into Matroska names what it shows beyond the ranges: a lead-in from the keyframe that no range
    /// asked for, and the part of it that the range before asked for (shown twice).
    @Test func copyJoinIntoMatroskaNamesExtraAndRepeatedFootage() async throws {
        // GOPs start at 0, 480, 960 ms; range 2 (600–1000) starts at the keyframe at 480, inside range 1 (100–520).
        let plan = try Self.joined(try Self.plans(Self.ibbp, [(100, 520), (600, 1000)], mode: .copy, container: .mkv))
        let spans = try #require(plan.output.notices.lazy.compactMap { notice -> [JoinExtraSpan]? in
            if case let .joinExtraFootage(spans, _) = notice { return spans } else { return nil }
        }.first)
        let twice = spans.filter(\.repeated), outside = spans.filter { !$0.repeated }
        #expect(twice.contains { $0.range == 2 && abs($0.fromSeconds - 0.48) < 1e-9 && abs($0.toSeconds - 0.52) < 1e-9 }, "\(spans)")
        #expect(outside.contains { $0.range == 2 && abs($0.fromSeconds - 0.52) < 1e-9 && abs($0.toSeconds - 0.6) < 1e-9 }, "\(spans)")
        #expect(plan.warnings.first { $0.code == "join_extra_footage" }?.message.contains("twice") == true)
    }

    /// Audio alone: ranges back to back in µs.
    @Test func audioOnlyRangesLandBackToBack() async throws {
        let ranges: [(Int64, Int64)] = [(1000, 2500), (4000, 4600)]
        let plans = try ranges.map { range -> (CutFacts, RangeDraft) in
            var facts = syntheticFacts([], start: range.0, end: range.1, mode: .copy, container: .mkv)
            facts.video = nil
            facts.streams = [StreamFacts(index: 1, kind: .audio, codec: "aac")]
            return (facts, try RangePlanner.plan(facts, joins: true))
        }
        let plan = try Self.joined(plans)
        #expect(plan.ranges.map(\.outputStartMicro) == [0, 1_500_000])
        #expect(plan.ranges.map(\.companions.zeroOutputMicro) == [0, 1_500_000])
        #expect(plan.durationMicro == 2_100_000)
    }

    /// Chapters split by a seam become one again; others stay as they are.
    @Test func chaptersSplitAtASeamMerge() async {
        let merged = OutputPlanner.merged([
            Chapter(startMicro: 0, endMicro: 100_000, title: "A"), Chapter(startMicro: 100_000, endMicro: 300_000, title: "B"),
            Chapter(startMicro: 300_000, endMicro: 500_000, title: "B"), Chapter(startMicro: 500_000, endMicro: 600_000, title: "A"),
        ])
        #expect(merged.map(\.title) == ["A", "B", "A"] && merged[1].endMicro == 500_000)
    }
}
