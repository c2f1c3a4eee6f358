@testable import MediaEngine
import Testing

/// Each step of a range's plan on its own (`RangePlanner`): the truncation rule, the edges, smart's split, each
/// mode's timing, the companion window and the sample entry; and the edit's stream selection, made once.
struct PlannerStepTests {
    static let ibbp = SyntheticStream.ibbp(gops: 4)

    static func edges(_ start: Int64, _ end: Int64, mode: CutMode = .copy, container: Container = .mp4) throws -> (RangeEdges, CutFacts) {
        let facts = syntheticFacts(ibbp, start: start, end: end, mode: mode, container: container)
        return (try RangeEdges.make(try #require(facts.video), facts: facts), facts)
    }

    /// A truncated input: a range past what can be read is refused; one that reaches it is warned of; one before it
    /// says the damage lies after it.
    @Test(arguments: [(Int64(100), Int64(300), "truncated_after_range"), (100, 900, "past_readable_end"), (700, 900, "refused")])
    func truncation(start: Int64, end: Int64, expected: String) async throws {
        var facts = syntheticFacts(Self.ibbp, start: start, end: end, mode: .copy)
        facts.readableEnd = (600_000, "the index promises more than the file holds")
        if expected == "refused" {
            #expect(throws: MediaError.self) { try RangePlanner.truncation(facts) }
        } else {
            #expect(try RangePlanner.truncation(facts).map(\.code) == [expected == "truncated_after_range" ? "input_truncated" : "truncated"])
        }
    }

    /// The edges: the keyframe and the frame at `start`, the end moved in by the source's own edit list and by a
    /// truncated file; a start past every frame is refused.
    @Test func edgesOfARange() async throws {
        let (middle, _) = try Self.edges(700, 1060)
        #expect(middle.start.keyframe.pts == 480 && middle.start.frameAtStart == 680)
        #expect(middle.end.lastWanted == 1040 && middle.endTicks == 1060 && !middle.stopsShort)
        var facts = syntheticFacts(Self.ibbp, start: 100, end: 1500, mode: .copy, shownUntil: 1000)
        facts.readableEnd = (900_000, "cut short")
        let short = try RangeEdges.make(try #require(facts.video), facts: facts)
        #expect(short.endTicks == 900 && short.stopsShort)
        // Past the last frame, the last frame (DESIGN.md); a range before the video's first keyframe is refused.
        #expect(try Self.edges(5000, 6000).0.start.frameAtStart == 1880)
        var late = Self.ibbp
        for index in late.indices { late[index].pts += 3000; late[index].dts += 3000 }
        let early = syntheticFacts(late, start: 0, end: 500, mode: .copy)
        #expect(throws: MediaError.self) { try RangeEdges.make(try #require(early.video), facts: early) }
    }

    /// Smart's split: head, copied GOPs and tail; a range inside one GOP falls back alone, but in a join is re-encoded
    /// whole so the rest stays smart; a refusal of the whole stream is kept.
    @Test func smartSplit() async throws {
        let (edges, facts) = try Self.edges(700, 1500, mode: .smart)
        let video = try #require(facts.video)
        let (split, fallback) = RangePlanner.smartSplit(video, edges: edges, joins: false)
        #expect(split?.firstCopied.pts == 960 && split?.copyEnd.pts == 1440 && fallback == nil)
        let (inside, insideFacts) = try Self.edges(500, 900, mode: .smart)
        #expect(RangePlanner.smartSplit(try #require(insideFacts.video), edges: inside, joins: false).1 == .nothingToCopy)
        #expect(RangePlanner.smartSplit(try #require(insideFacts.video), edges: inside, joins: true).0?.reencodesWhole == true)
        var refused = video
        refused.smartRefusal = .interlaced
        #expect(RangePlanner.smartSplit(refused, edges: edges, joins: false).1 == .interlaced)
    }

    /// Each mode's timing from the same edges (start 700 in the GOP from 480, end 1060): what is shown first, what
    /// moves the packets, where presenting stops, the MP4 edit, and the notes.
    @Test(arguments: [
        (CutMode.copy, Container.mp4, Int64(680), Int64(680), Int64(1080), Int64?(400), ["lead_in_hidden"]),
        (.copy, .mkv, 480, 480, 1120, nil, ["starts_at_keyframe", "frames_past_end"]),
        (.keyframe, .mp4, 480, 480, 1080, 600, ["starts_at_keyframe"]),
        (.exact, .mp4, 680, 680, 1080, 400 * 16, []),
    ] as [(CutMode, Container, Int64, Int64, Int64, Int64?, [String])])
    func modeTiming(mode: CutMode, container: Container, firstShown: Int64, shift: Int64, presentedEnd: Int64, edit: Int64?,
                    codes: [String]) async throws {
        let (edges, facts) = try Self.edges(700, 1060, mode: mode, container: container)
        var notices: [CutNotice] = []
        let cut = ModeTiming.cut(mode, video: try #require(facts.video), edges: edges, smart: nil, facts: facts, notices: &notices)
        #expect(cut.firstShown == firstShown && cut.shift == shift && cut.presentedEnd == presentedEnd && cut.editDuration == edit)
        #expect(notices.map(\.code) == codes)
        #expect((cut.exact != nil) == (mode == .exact))
    }

    /// A smart range presents its frames' whole span (the last frame, at 1480, to its end at 1520), and names what it
    /// re-encodes.
    @Test func smartTiming() async throws {
        let (edges, facts) = try Self.edges(700, 1500, mode: .smart)
        let video = try #require(facts.video)
        let split = try #require(RangePlanner.smartSplit(video, edges: edges, joins: false).0)
        var notices: [CutNotice] = []
        let cut = ModeTiming.cut(.smart, video: video, edges: edges, smart: split, facts: facts, notices: &notices)
        #expect(cut.presentedEnd == 1520 && cut.editDuration == 840)
        #expect(notices.map(\.code) == ["head_reencoded", "tail_reencoded"])
    }

    /// The companion window: from the first frame shown, with its own zero (an exact cut's too: the span of its frames,
    /// not `start`), to where the video stops presenting.
    @Test(arguments: [(CutMode.copy, Container.mp4, Int64(680_000), Int64(680_000)), (.copy, .mkv, 480_000, 480_000),
                      (.exact, .mp4, 680_000, 680_000)] as [(CutMode, Container, Int64, Int64)])
    func companionWindow(mode: CutMode, container: Container, start: Int64, zero: Int64) async throws {
        let (edges, facts) = try Self.edges(700, 1060, mode: mode, container: container)
        let video = try #require(facts.video)
        var notices: [CutNotice] = []
        let cut = ModeTiming.cut(mode, video: video, edges: edges, smart: nil, facts: facts, notices: &notices)
        let window = RangePlanner.companions(video, cut: cut)
        #expect(window.startMicro == start && window.zeroSourceMicro == zero && window.endMicro == video.micro(cut.presentedEnd))
        #expect(window.zeroOutputMicro == 0)
    }

    /// The range's sample entry: an exact cut's from its encoder, a copy's from the sets its samples see (none read:
    /// none planned), and nothing into Matroska for a copy.
    @Test func sampleEntryOfARange() async throws {
        let (edges, facts) = try Self.edges(700, 1060, mode: .exact)
        let video = try #require(facts.video)
        var notices: [CutNotice] = []
        let cut = ModeTiming.cut(.exact, video: video, edges: edges, smart: nil, facts: facts, notices: &notices)
        #expect(SampleEntryPlan.forRange(video, mode: .exact, cut: cut, smart: nil, facts: facts)?.0.type == "avc1")
        var withSets = video
        withSets.parameterSets = SourceParameterSets(codec: .h264, record: [SampleEntryUnitTests.set(.sps, 0, 1), SampleEntryUnitTests.set(.pps, 0, 1)],
                                                     recordBytes: nil, lengthSize: 4, sourceTag: "avc1")
        let copy = SampleEntryPlan.forRange(withSets, mode: .copy, cut: cut, smart: nil, facts: facts)?.0
        #expect(copy?.type == "avc1" && copy?.placement == .outOfBand && copy?.sourceSets?.record.count == 2)
        let (_, matroska) = try Self.edges(700, 1060, mode: .copy, container: .mkv)
        #expect(SampleEntryPlan.forRange(withSets, mode: .copy, cut: cut, smart: nil, facts: matroska) == nil)
    }

    /// Streams are chosen once per edit: the main video, audio and subtitles the container holds (AMR split into
    /// frames), the rest left out with a reason; a timecode track becomes the output's timecode, GoPro telemetry is
    /// kept in MP4/MOV only.
    @Test func streamSelection() async throws {
        var facts = syntheticFacts(Self.ibbp, start: 480, end: 960, mode: .copy, streams: [
            StreamFacts(index: 1, kind: .audio, codec: "aac"),
            StreamFacts(index: 2, kind: .audio, codec: "pcm_s16be", containerCanHold: false),
            StreamFacts(index: 3, kind: .video, codec: "mjpeg", isAttachedPicture: true),
            StreamFacts(index: 4, kind: .data, codec: "none", tag: "tmcd"),
            StreamFacts(index: 5, kind: .subtitle, codec: "mov_text"),
            StreamFacts(index: 6, kind: .audio, codec: "amr_nb", isAMRNarrowband: true),
            StreamFacts(index: 7, kind: .data, codec: "bin_data", tag: "gpmd"),
        ])
        facts.startTimecode = StartTimecode(text: "01:00:00:00", rate: Rational(25, 1))
        let chosen = try StreamSelection.choose(facts)
        #expect(chosen.streams.map(\.index) == [0, 1, 5, 6, 7])
        #expect(chosen.streams.first { $0.index == 6 }?.splitsAudioFrames == true)
        #expect(chosen.notices.map(\.code) == ["stream_dropped", "stream_left_out", "audio_packets_split", "telemetry_kept"])
        facts.container = Container.mkv.facts
        #expect(try StreamSelection.choose(facts).streams.map(\.index) == [0, 1, 5, 6])
    }
}
