@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// The ranges a proposal keeps: content always kept with its pads, seams moved onto clean starts only inside a gap's
/// slack, scenes splitting what is kept.
struct ProposalPlannerTests {
    static func silence(_ start: Double, _ end: Double) -> Detection {
        Detection(kind: .silence, startMicro: Int64(start * 1e6), endMicro: Int64(end * 1e6), measure: -60)
    }

    static func closedGOPs(every seconds: Double, until end: Double) -> [CleanPoint] {
        stride(from: 0.0, through: end, by: seconds).map { CleanPoint(micro: Int64(($0 * 1e6).rounded()), shownFromMicro: Int64(($0 * 1e6).rounded())) }
    }

    static func spans(_ proposal: ProposalPlanner.Proposal) -> [[Double]] { proposal.keep.map { [Double($0.startMicro) / 1e6, Double($0.endMicro) / 1e6] } }

    static let pad = ProposalPlanner.Settings(padMicro: 150_000, snapsToCleanStarts: true)

    @Test func snappingKeepsAtMostTheReachOfSilence() async {
        // Slack 0.35–9.52 s with clean starts at 4.137 and 8.575 s: the range before would keep 3.8 s of silence to
        // end at one; only the range after (0.945 s from its pad) snaps.
        let points = [0, 4_137_000, 8_575_000, 21_654_000].map { CleanPoint(micro: Int64($0), shownFromMicro: Int64($0)) }
        let analysis = ContentAnalysis(durationMicro: 30_000_000, detections: [Self.silence(0.2, 9.67)], cleanStarts: points, warnings: [])
        #expect(Self.spans(ProposalPlanner.plan(analysis, settings: Self.pad)) == [[0, 0.35], [8.575, 30]])
    }

    @Test func aClickBetweenTwoSilencesDoesNotSplitThem() async {
        let analysis = ContentAnalysis(durationMicro: 40_000_000, detections: [Self.silence(0.2, 9.67), Self.silence(9.672, 38.63)],
                                       cleanStarts: [], warnings: [])
        var settings = Self.pad
        settings.snapsToCleanStarts = false
        #expect(Self.spans(ProposalPlanner.plan(analysis, settings: settings)) == [[0, 0.35], [38.48, 40]])
    }

    @Test func aRangeShowingNoFrameOfItsOwnJoinsTheOneBefore() async {
        // One frame from 38.0 to 40.5 s: the ranges 0–38.902 and 39.41–40.35 end on it, the second shows nothing new.
        let analysis = ContentAnalysis(durationMicro: 42_000_000, detections: [Self.silence(38.752, 39.56), Self.silence(40.2, 42)],
                                       cleanStarts: [], frameStartsMicro: [0, 38_000_000, 40_500_000], warnings: [])
        var settings = Self.pad
        settings.snapsToCleanStarts = false
        #expect(Self.spans(ProposalPlanner.plan(analysis, settings: settings)) == [[0, 40.35]])
    }

    @Test func seamsMoveOntoKeyframesInsideTheSlack() async {
        let analysis = ContentAnalysis(durationMicro: 15_100_000, detections: [Self.silence(3.587, 5.087), Self.silence(8.68, 10.68)],
                                       cleanStarts: Self.closedGOPs(every: 0.5, until: 15), warnings: [])
        let proposal = ProposalPlanner.plan(analysis, settings: Self.pad)
        #expect(Self.spans(proposal) == [[0, 4], [4.5, 9], [10.5, 15.1]])
        #expect(proposal.seams == 2 && proposal.copyOnlySeams == 2 && proposal.snappedSeams == 2)
        var unsnapped = Self.pad
        unsnapped.snapsToCleanStarts = false
        let plain = ProposalPlanner.plan(analysis, settings: unsnapped)
        #expect(Self.spans(plain) == [[0, 3.737], [4.937, 8.83], [10.53, 15.1]])
        #expect(plain.copyOnlySeams == 0 && plain.remove.count == 2)
    }

    @Test func oneKeyframeInTheSlackSnapsTheSideThatRemovesMore() async {
        // Slack 2.15–3.85; the only clean start at 3.0: ranges end at 3.0 (removing 3.0–3.85) or begin there (2.15–3.0).
        let analysis = ContentAnalysis(durationMicro: 10_000_000, detections: [Self.silence(2, 4)],
                                       cleanStarts: [CleanPoint(micro: 0, shownFromMicro: 0), CleanPoint(micro: 3_200_000, shownFromMicro: 3_200_000)],
                                       warnings: [])
        let proposal = ProposalPlanner.plan(analysis, settings: Self.pad)
        #expect(Self.spans(proposal) == [[0, 2.15], [3.2, 10]])
        #expect(proposal.copyOnlySeams == 0 && proposal.snappedSeams == 1)
    }

    @Test func anOpenGOPsRangeEndsWhereItsLeadingPicturesAreShown() async {
        let points = [CleanPoint(micro: 0, shownFromMicro: 0), CleanPoint(micro: 2_500_000, shownFromMicro: 2_420_000),
                      CleanPoint(micro: 3_500_000, shownFromMicro: 3_420_000)]
        let analysis = ContentAnalysis(durationMicro: 8_000_000, detections: [Self.silence(2, 4)], cleanStarts: points, warnings: [])
        let proposal = ProposalPlanner.plan(analysis, settings: Self.pad)
        #expect(Self.spans(proposal) == [[0, 2.42], [3.5, 8]])
        #expect(proposal.copyOnlySeams == 1)
    }

    @Test func aGapOpeningTheFileIsRemovedEvenWithoutAKeyframeInIt() async {
        // Black lead-in 0–1.2 s; the only clean start in it is at 0, which would remove nothing: the pad's edge is kept.
        let analysis = ContentAnalysis(durationMicro: 5_000_000,
                                       detections: [Detection(kind: .black, startMicro: 0, endMicro: 1_200_000, measure: 0.01)],
                                       cleanStarts: [CleanPoint(micro: 0, shownFromMicro: 0), CleanPoint(micro: 2_000_000, shownFromMicro: 2_000_000)],
                                       warnings: [])
        #expect(Self.spans(ProposalPlanner.plan(analysis, settings: Self.pad)) == [[1.05, 5]])
    }

    @Test func scenesSplitTheKeptRangesButNotTheirPads() async {
        let detections = [Detection(kind: .black, startMicro: 0, endMicro: 1_200_000, measure: 0.01),
                          Detection(kind: .scene, startMicro: 0, endMicro: 1_200_000, measure: nil),
                          Detection(kind: .scene, startMicro: 1_200_000, endMicro: 4_200_000, measure: 80),
                          Detection(kind: .scene, startMicro: 4_200_000, endMicro: 6_000_000, measure: 40)]
        var settings = Self.pad
        settings.minSceneMicro = 600_000
        let proposal = ProposalPlanner.plan(ContentAnalysis(durationMicro: 6_000_000, detections: detections, cleanStarts: [], warnings: []),
                                            settings: settings)
        #expect(Self.spans(proposal) == [[1.05, 4.2], [4.2, 6]])
    }

    static let detection = zip(Gen.int(in: 0...2), Gen.int64(in: -2_000_000...40_000_000), Gen.int64(in: -1_000_000...6_000_000))
        .map { kind, start, length in
            Detection(kind: [Detection.Kind.silence, .black, .scene][kind], startMicro: start, endMicro: start + length, measure: kind == 2 ? 30 : -50)
        }
    static let cleanPoint = zip(Gen.int64(in: -1_000_000...40_000_000), Gen.int64(in: 0...200_000))
        .map { micro, leading in CleanPoint(micro: micro, shownFromMicro: micro - leading) }

    /// For any detections, clean starts, duration and pad: the kept and removed ranges tile [0, duration) in order;
    /// nothing outside a gap is removed and no removal reaches into a pad; every gap whose slack holds two closed-GOP
    /// clean starts is a copy-only seam.
    @Test func keptRangesAlwaysHoldTheContentAndTheirPads() async {
        await propertyCheck(count: 400, input: Self.detection.array(of: 0...12), Self.cleanPoint.array(of: 0...30),
                            Gen.int64(in: 0...40_000_000), Gen.int64(in: 0...2_000_000), Gen.bool) { detections, points, duration, pad, snaps in
            Self.checkKept(detections, points, duration, pad, snaps)
        }
    }

    /// With the video's frame times known, every kept range after the first shows a frame the range before did not:
    /// a frame starts between the end of the one before and its own end (a join never meets an empty range).
    @Test func everyKeptRangeShowsAFrameOfItsOwn() async {
        await propertyCheck(count: 300, input: Self.detection.array(of: 0...12), Gen.int64(in: 20_000...3_000_000), Gen.int64(in: 0...20_000_000)) {
            detections, frameLength, duration in
            let frames = Array(stride(from: Int64(0), to: duration + 1, by: Int(frameLength)))
            let analysis = ContentAnalysis(durationMicro: duration, detections: detections, cleanStarts: [], frameStartsMicro: frames, warnings: [])
            let keep = ProposalPlanner.plan(analysis, settings: Self.pad).keep
            for (before, range) in zip(keep, keep.dropFirst()) {
                #expect(frames.contains { $0 >= before.endMicro && $0 < range.endMicro }, "\(range) after \(before) shows no frame of its own (frames every \(frameLength) µs)")
            }
        }
    }

    static func checkKept(_ detections: [Detection], _ points: [CleanPoint], _ duration: Int64, _ pad: Int64, _ snaps: Bool) {
        let analysis = ContentAnalysis(durationMicro: duration, detections: detections, cleanStarts: points.sorted(), warnings: [])
        let settings = ProposalPlanner.Settings(padMicro: pad, snapsToCleanStarts: snaps, minSceneMicro: 600_000)
        let proposal = ProposalPlanner.plan(analysis, settings: settings)
        let end = max(0, duration, detections.map(\.endMicro).max() ?? 0)
        let tiles = (proposal.keep + proposal.remove).sorted { $0.startMicro < $1.startMicro }
        #expect(tiles.allSatisfy { $0.endMicro > $0.startMicro })
        #expect(zip(tiles, tiles.dropFirst()).allSatisfy { $0.0.endMicro == $0.1.startMicro })
        #expect((tiles.first?.startMicro ?? 0) == 0 && (tiles.last?.endMicro ?? 0) == end)
        #expect(proposal.seams == max(0, proposal.keep.count - 1) && proposal.copyOnlySeams <= proposal.seams && proposal.snappedSeams <= proposal.seams)
        let gaps = ProposalPlanner.gaps(detections, duration: end, minContentMicro: settings.minContentMicro)
        for removal in proposal.remove {
            // A gap within a click of the file's start or end reaches it.
            let edge = settings.minContentMicro
            let gap = gaps.first { ($0.startMicro <= removal.startMicro || $0.startMicro <= edge) && (removal.endMicro <= $0.endMicro || $0.endMicro >= end - edge) }
            #expect(gap != nil, "\(removal) lies outside every gap \(gaps)")
            guard let gap else { continue }
            if gap.startMicro > settings.minContentMicro { #expect(removal.startMicro >= gap.startMicro + pad, "\(removal) reaches into the pad of \(gap)") }
            if gap.endMicro < end - settings.minContentMicro { #expect(removal.endMicro <= gap.endMicro - pad, "\(removal) reaches into the pad of \(gap)") }
        }
        guard snaps else { return }
        let closed = points.filter { $0.shownFromMicro == $0.micro }
        for gap in gaps where gap.startMicro > settings.minContentMicro && gap.endMicro < end - settings.minContentMicro {
            let low = gap.startMicro + pad, high = gap.endMicro - pad, reach = settings.snapWithinMicro
            // Two closed-GOP clean starts, each within the snap's reach of its side of the slack.
            let times = closed.map(\.micro)
            guard let first = times.filter({ $0 >= low && $0 < high && $0 - low <= reach }).min(),
                  let last = times.filter({ $0 > low && $0 <= high && high - $0 <= reach }).max(), first < last,
                  points.allSatisfy({ $0.shownFromMicro == $0.micro || $0.micro < low || $0.shownFromMicro > high }) else { continue }
            let seam = zip(proposal.keep, proposal.keep.dropFirst()).first { $0.0.endMicro >= low && $0.1.startMicro <= high }
            #expect(seam.map { closed.map(\.micro).contains($0.0.endMicro) && closed.map(\.micro).contains($0.1.startMicro) } ?? false,
                    "gap \(gap) holds two clean starts but its seam is \(String(describing: seam))")
        }
    }

    /// Values no sane file gives (times at the extremes, ends before starts) give ranges, never a trap.
    @Test func wildTimesNeverTrap() async {
        await propertyCheck(count: 300, input: Wild.int64, Wild.int64, Wild.int64, Wild.int64, Gen.bool) { start, end, duration, pad, snaps in
            let analysis = ContentAnalysis(durationMicro: duration, detections: [Detection(kind: .silence, startMicro: start, endMicro: end, measure: nil),
                                                                                  Detection(kind: .scene, startMicro: end, endMicro: start, measure: 1)],
                                           cleanStarts: [CleanPoint(micro: start, shownFromMicro: end), CleanPoint(micro: end, shownFromMicro: start)], warnings: [])
            let proposal = ProposalPlanner.plan(analysis, settings: .init(padMicro: pad, snapsToCleanStarts: snaps, minSceneMicro: pad))
            #expect(proposal.keep.allSatisfy { $0.endMicro > $0.startMicro })
        }
    }
}
