import CAV
@testable import MediaEngine
import Testing

/// Synthetic video streams for the planner: ticks are milliseconds (time base 1/1000), frames 40 ms
/// apart (frame n shown at 40·n), decode order as encoders write it.
enum SyntheticStream {
    static let frame: Int64 = 40

    /// Closed GOPs of `length` frames, two B-frames between anchors: I P B B P B B …; every I an IDR.
    static func ibbp(gops: Int, length: Int = 12) -> [VideoPacket] {
        var order: [(Int, Bool)] = []
        for gop in 0..<gops {
            let base = gop * length
            order.append((base, true))
            var next = 1
            while next < length {
                let anchor = min(next + 2, length - 1)
                order.append((base + anchor, false))
                for b in next..<anchor { order.append((base + b, false)) }
                next = anchor + 1
            }
        }
        return packets(order, delay: 2)
    }

    /// Hierarchical B-frames in mini-GOPs of 4 (as x264's b-pyramid and the bikes.mp4 clip):
    /// I0 P4 B2 b1 b3 P8 B6 b5 b7 …
    static func pyramid(gops: Int, length: Int = 16) -> [VideoPacket] {
        var order: [(Int, Bool)] = []
        for gop in 0..<gops {
            let base = gop * length
            order.append((base, true))
            for mini in stride(from: 0, to: length - 1, by: 4) {
                let p = min(mini + 4, length - 1)
                order.append((base + p, false))
                if mini + 2 < p { order.append((base + mini + 2, false)) }
                if mini + 1 < p { order.append((base + mini + 1, false)) }
                if mini + 3 < p { order.append((base + mini + 3, false)) }
            }
        }
        return packets(order, delay: 2)
    }

    /// Open GOPs (H.264 I-frames that are not IDRs, or HEVC CRAs when `cleanPoints`): every I after the
    /// first has two leading B-frames, shown before it and decoded after it.
    static func openGOP(gops: Int, length: Int = 12, cleanPoints: Bool = false) -> [VideoPacket] {
        var order: [(Int, Bool)] = []
        for gop in 0..<gops {
            let base = gop * length
            order.append((base, true))
            if gop > 0 { order.append((base - 2, false)); order.append((base - 1, false)) }
            var next = 1
            let last = gop == gops - 1 ? length : length - 2
            while next < last {
                let anchor = min(next + 2, last - 1)
                order.append((base + anchor, false))
                for b in next..<anchor { order.append((base + b, false)) }
                next = anchor + 1
            }
        }
        var made = packets(order, delay: 2)
        for index in made.indices where made[index].isKeyframe {
            made[index].isClean = cleanPoints || made[index].pts == 0
            made[index].isSplicePoint = made[index].isClean
        }
        return made
    }

    /// No B-frames, variable frame rate: the durations given (ms), a keyframe every `keyEvery` frames.
    static func vfr(durations: [Int64], keyEvery: Int = 10) -> [VideoPacket] {
        var pts: Int64 = 0
        return durations.enumerated().map { index, duration in
            defer { pts += duration }
            return VideoPacket(pts: pts, dts: pts, duration: duration, isKeyframe: index % keyEvery == 0, isClean: index % keyEvery == 0)
        }
    }

    /// Frames in decode order (frame index, keyframe), dts = (decode position − delay) frames.
    private static func packets(_ order: [(Int, Bool)], delay: Int) -> [VideoPacket] {
        order.enumerated().map { position, entry in
            VideoPacket(pts: Int64(entry.0) * frame, dts: Int64(position - delay) * frame, duration: frame,
                        isKeyframe: entry.1, isClean: entry.1)
        }
    }
}

enum Container {
    case mp4, mkv, avi

    var facts: ContainerFacts {
        switch self {
        case .mp4: return ContainerFacts(formatName: "mp4", editLists: true, storesDecodeTimesOnly: false)
        case .mkv: return ContainerFacts(formatName: "matroska", editLists: false, storesDecodeTimesOnly: false)
        case .avi: return ContainerFacts(formatName: "avi", editLists: false, storesDecodeTimesOnly: true)
        }
    }
}

/// Facts for a synthetic stream, with both windows the whole list (the reader's windows are checked
/// against this in `windowsGiveTheSamePlan`).
func syntheticFacts(_ packets: [VideoPacket], start: Int64, end: Int64, mode: CutMode, container: Container = .mp4,
                    startPackets: [VideoPacket]? = nil, endPackets: [VideoPacket]? = nil, reachesEnd: Bool = true,
                    shownUntil: Int64? = nil, orientation: Orientation = .upright,
                    streams extra: [StreamFacts] = [StreamFacts(index: 1, kind: .audio, codec: "aac")]) -> CutFacts {
    let video = VideoFacts(index: 0, timeBase: Rational(1, 1000), codec: "h264", width: 320, height: 240, orientation: orientation,
                           decoderAvailable: true, startTicks: start, endTicks: end,
                           fineTimeBase: Rational(1, MovieHeaderPatch.trackTimescale(Rational(1, 1000))),
                           startPackets: startPackets ?? packets,
                           endPackets: endPackets ?? packets, endReachesEndOfStream: reachesEnd, sourceShownUntil: shownUntil)
    return CutFacts(path: "in.mp4", requestedMode: mode, startMicro: start * 1000, endMicro: end * 1000, originMicro: 0,
                    container: container.facts, streams: [StreamFacts(index: 0, kind: .video, codec: "h264")] + extra,
                    video: video, threads: ThreadBudget(decoder: 1, encoder: 1), crf: 20, preset: "veryfast", faststart: false)
}

/// One range planned as an edit of its own: its streams chosen, the range decided, the output decided.
func planned(_ facts: CutFacts) throws(MediaError) -> EditPlan {
    let selection = try StreamSelection.choose(facts)
    let draft = try RangePlanner.plan(facts)
    let edit = EditPlanner.Edit(source: facts, streams: selection.streams, streamNotices: selection.notices)
    guard case let .plan(plan) = try EditPlanner.plan([draft], edit: edit) else { throw MediaError(.decodeFailed, path: facts.path, operation: "plan", reason: "replanned") }
    return plan
}

struct CutPlannerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let packets: [VideoPacket]
        let start: Int64
        let end: Int64
        let mode: CutMode
        let container: Container
        var ran: CutMode
        var keyframe: Int64
        var firstShown: Int64
        var lastNeeded: Int64
        var presentedEnd: Int64
        var shift: Int64
        var edit: Int64?
        var codes: [String]
        var testDescription: String { name }
    }

    static let ibbp = SyntheticStream.ibbp(gops: 4)
    static let pyramid = SyntheticStream.pyramid(gops: 3)
    static let open = SyntheticStream.openGOP(gops: 4)
    /// Open GOPs whose I-frames are clean starts (HEVC CRAs, H.264 recovery points).
    static let openClean = SyntheticStream.openGOP(gops: 4, cleanPoints: true)
    static let vfr = SyntheticStream.vfr(durations: [40, 40, 40, 100, 100, 100, 20, 20, 20, 20, 40, 40, 40, 40])

    static let cases: [Case] = [
        // IBBP, GOPs of 12 frames (480 ms). Start 700 shows frame 17 (680); end 1060: frames up to 26 (1040),
        // the last of them in decode order B26, after P27 (1080), which a copy writes but an edit list hides.
        Case(name: "copy into MP4 mid-GOP: edit list hides lead-in and the P-frame past the end", packets: ibbp, start: 700, end: 1060,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 480, firstShown: 680, lastNeeded: 1040, presentedEnd: 1080,
             shift: 680, edit: 400, codes: ["lead_in_hidden"]),
        // Matroska stores presentation times only: the keyframe is shown at 0 (AVI and MPEG-TS: from its decode time).
        Case(name: "copy into MKV: from the keyframe, the P-frame past the end shown", packets: ibbp, start: 700, end: 1060,
             mode: .copy, container: .mkv, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 1040, presentedEnd: 1120,
             shift: 480, edit: nil, codes: ["starts_at_keyframe", "frames_past_end"]),
        Case(name: "copy into AVI: the keyframe after its decode delay", packets: ibbp, start: 700, end: 1060,
             mode: .copy, container: .avi, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 1040, presentedEnd: 1120,
             shift: 400, edit: nil, codes: ["starts_at_keyframe", "frames_past_end"]),
        Case(name: "copy on a keyframe, end on a GOP boundary: nothing extra", packets: ibbp, start: 480, end: 960,
             mode: .copy, container: .mkv, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 880, presentedEnd: 960,
             shift: 480, edit: nil, codes: []),
        Case(name: "copy end exactly on a frame excludes it", packets: ibbp, start: 480, end: 1080,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 1040, presentedEnd: 1080,
             shift: 480, edit: 600, codes: []),
        Case(name: "copy end one tick past a frame keeps it", packets: ibbp, start: 480, end: 1081,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 1040, presentedEnd: 1120,
             shift: 480, edit: 640, codes: []),
        // B-pyramid: end 260 wants frames 0–6; the decode-order prefix through b5 holds P8 but not b7, so a
        // container without edit lists must take b7 too (no gap), and shows frames 7 and 8 past the end.
        Case(name: "pyramid copy into MKV stays contiguous", packets: pyramid, start: 0, end: 260,
             mode: .copy, container: .mkv, ran: .copy, keyframe: 0, firstShown: 0, lastNeeded: 280, presentedEnd: 360,
             shift: 0, edit: nil, codes: ["frames_past_end"]),
        Case(name: "pyramid copy into MP4 shows exactly frames 0–6", packets: pyramid, start: 0, end: 260,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 0, firstShown: 0, lastNeeded: 200, presentedEnd: 280,
             shift: 0, edit: 280, codes: []),
        Case(name: "keyframe mode in MP4 shows the lead-in, ends as a copy", packets: ibbp, start: 700, end: 1060,
             mode: .keyframe, container: .mp4, ran: .keyframe, keyframe: 480, firstShown: 480, lastNeeded: 1040, presentedEnd: 1080,
             shift: 480, edit: 600, codes: ["starts_at_keyframe"]),
        // Exact: start 700 falls 20 ms into frame 17 (680), end 1100 20 ms into frame 27 (1080): both are kept whole,
        // so the output is their span, 680–1120 (DESIGN.md's ideal cut), never a sliver.
        Case(name: "exact between frames: the whole span of its frames", packets: ibbp, start: 700, end: 1100,
             mode: .exact, container: .mp4, ran: .exact, keyframe: 480, firstShown: 680, lastNeeded: 1040, presentedEnd: 1120,
             shift: 680, edit: 440, codes: []),
        Case(name: "exact on frame boundaries", packets: ibbp, start: 680, end: 1080,
             mode: .exact, container: .mkv, ran: .exact, keyframe: 480, firstShown: 680, lastNeeded: 1040, presentedEnd: 1080,
             shift: 680, edit: nil, codes: []),
        Case(name: "exact past the end of the stream ends with the last frame's own end", packets: ibbp, start: 1800, end: 2000,
             mode: .exact, container: .mp4, ran: .exact, keyframe: 1440, firstShown: 1800, lastNeeded: 1840, presentedEnd: 1920,
             shift: 1800, edit: 120, codes: []),
        // Smart: IDRs every 480 ms. Head 680–960, copy 960–1440, tail 1440–1520 (the last frame, 1480, whole).
        Case(name: "smart: head, copied middle, tail", packets: ibbp, start: 700, end: 1500,
             mode: .smart, container: .mp4, ran: .smart, keyframe: 480, firstShown: 680, lastNeeded: 1480, presentedEnd: 1520,
             shift: 680, edit: 840, codes: ["head_reencoded", "tail_reencoded"]),
        Case(name: "smart inside one GOP falls back to exact", packets: ibbp, start: 500, end: 900,
             mode: .smart, container: .mp4, ran: .exact, keyframe: 480, firstShown: 480, lastNeeded: 880, presentedEnd: 920,
             shift: 480, edit: 440, codes: ["smart_fallback"]),
        Case(name: "smart of open-GOP H.264 falls back (no IDR inside)", packets: open, start: 100, end: 1700,
             mode: .smart, container: .mp4, ran: .exact, keyframe: 0, firstShown: 80, lastNeeded: 1640, presentedEnd: 1720,
             shift: 80, edit: 1640, codes: ["smart_fallback"]),
        Case(name: "smart to the end of the stream copies the rest", packets: ibbp, start: 700, end: 5000,
             mode: .smart, container: .mp4, ran: .smart, keyframe: 480, firstShown: 680, lastNeeded: 1840, presentedEnd: 1920,
             shift: 680, edit: 1240, codes: ["head_reencoded"]),
        // Open GOP: the keyframe at 480 has leading pictures 400 and 440, which a copy leaves out.
        Case(name: "copy from an open-GOP clean start leaves its leading pictures out", packets: openClean, start: 500, end: 700,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 480, firstShown: 480, lastNeeded: 680, presentedEnd: 720,
             shift: 480, edit: 240, codes: ["leading_frames_left_out"]),
        // VFR, no B-frames: frames at 0 40 80 120 220 320 420 440 460 480 500 540 580 620.
        Case(name: "VFR copy ends at the next frame's time", packets: vfr, start: 130, end: 430,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 0, firstShown: 120, lastNeeded: 420, presentedEnd: 440,
             shift: 120, edit: 320, codes: ["lead_in_hidden"]),
        Case(name: "past the end: the last frame for its own duration", packets: vfr, start: 480, end: 9000,
             mode: .copy, container: .mp4, ran: .copy, keyframe: 0, firstShown: 480, lastNeeded: 620, presentedEnd: 660,
             shift: 480, edit: 180, codes: ["lead_in_hidden"]),
    ]

    @Test(arguments: cases)
    func plans(_ example: Case) async throws {
        let plan = try planned(syntheticFacts(example.packets, start: example.start, end: example.end, mode: example.mode,
                                                      container: example.container))
        let video = try #require(plan.ranges[0].video)
        let stream = try #require(plan.output.video)
        #expect(plan.output.mode == example.ran)
        #expect(video.keyframe.pts == example.keyframe)
        #expect(video.firstShown == example.firstShown)
        #expect(video.lastNeeded.pts == example.lastNeeded)
        #expect(video.presentedEnd == example.presentedEnd)
        // Exact cuts time their frames on a finer grid (16 kHz for this 1 kHz stream): compared in ms.
        func ms(_ ticks: Int64?, _ base: Rational) -> Int64? { ticks.map { Rescale.ticks($0, from: base, to: Rational(1, 1000)) } }
        let grid = stream.exactTimeBase ?? stream.timeBase
        #expect((video.exact.map { ms($0.shift, grid) } ?? video.shift) == example.shift)
        #expect(ms(video.editDuration, stream.editTimeBase) == example.edit)
        if plan.output.mode == .exact {
            let exact = try #require(video.exact)
            #expect(stream.exactTimeBase == Rational(1, 16000))
            #expect(ms(exact.end.minus(exact.zero), grid) == example.presentedEnd - example.firstShown)
        }
        #expect(plan.notices.map(\.code) == example.codes)
        #expect(plan.warnings.allSatisfy { $0.timing == .plan })
    }

    /// I-frames that are not clean starts (open GOPs without recovery points) are passed over: the cut
    /// decodes from the clean start before them, silently for up to two of them, with `clean_start_far`
    /// beyond (the stream's only clean start is its first frame).
    @Test func uncleanKeyframesArePassedOver() async throws {
        let near = try planned(syntheticFacts(Self.open, start: 500, end: 700, mode: .copy, container: .mp4))
        #expect(near.ranges[0].video?.keyframe.pts == 0)
        #expect(near.warnings.isEmpty)
        let far = try planned(syntheticFacts(Self.open, start: 1500, end: 1700, mode: .copy, container: .mp4))
        #expect(far.ranges[0].video?.keyframe.pts == 0)
        #expect(far.warnings.map(\.code) == ["clean_start_far"])
        #expect(far.warnings.first?.timing == .plan)
    }

    @Test func noKeyframeBeforeStartStartsLateWithAWarning() async throws {
        // A stream that begins mid-GOP (a cut transport stream): three frames before the first keyframe.
        var packets = SyntheticStream.ibbp(gops: 2)
        for index in packets.indices { packets[index].pts += 120; packets[index].dts += 120 }
        let leading = (0..<3).map { VideoPacket(pts: Int64($0) * 40, dts: Int64($0) * 40 - 80, duration: 40, isKeyframe: false) }
        let plan = try planned(syntheticFacts(leading + packets, start: 0, end: 400, mode: .copy))
        #expect(plan.ranges[0].video?.keyframe.pts == 120)
        #expect(plan.ranges[0].video?.firstShown == 120)
        #expect(plan.notices.map(\.code) == ["starts_late"])
        #expect(plan.warnings.first?.timing == .plan)
    }

    @Test func sourceEditListEndHidesFrames() async throws {
        let plan = try planned(syntheticFacts(Self.ibbp, start: 0, end: 1200, mode: .copy, shownUntil: 1000))
        #expect(plan.ranges[0].video?.presentedEnd == 1000)
        #expect(plan.ranges[0].video?.lastWanted == 960)
    }

    @Test func emptyRangeOfVideoIsInvalid() async {
        var packets = SyntheticStream.ibbp(gops: 1)
        for index in packets.indices { packets[index].pts += 2000; packets[index].dts += 2000 }
        #expect(throws: MediaError.self) {
            try planned(syntheticFacts(packets, start: 0, end: 500, mode: .copy))
        }
    }

    @Test func streamsKeptAndLeftOutWithReasons() async throws {
        let streams = [
            StreamFacts(index: 1, kind: .audio, codec: "aac"),
            StreamFacts(index: 2, kind: .audio, codec: "pcm_s16be", containerCanHold: false),
            StreamFacts(index: 3, kind: .video, codec: "mjpeg", isAttachedPicture: true),
            StreamFacts(index: 4, kind: .data, codec: "none", tag: "tmcd"),
            StreamFacts(index: 5, kind: .subtitle, codec: "mov_text"),
            StreamFacts(index: 6, kind: .audio, codec: "amr_nb", isAMRNarrowband: true),
        ]
        let plan = try planned(syntheticFacts(Self.ibbp, start: 480, end: 960, mode: .copy, streams: streams))
        #expect(plan.output.streams.map(\.index) == [0, 1, 5, 6])
        #expect(plan.output.streams.first { $0.index == 6 }?.splitsAudioFrames == true)
        #expect(plan.notices.map(\.code) == ["stream_dropped", "stream_left_out", "stream_left_out", "audio_packets_split"])
        #expect(plan.warnings.map(\.code) == ["stream_dropped"])
    }

    @Test func subtitlesAloneCannotBeCut() async {
        var facts = syntheticFacts(Self.ibbp, start: 0, end: 400, mode: .copy, streams: [])
        facts.video = nil
        facts.streams = [StreamFacts(index: 0, kind: .subtitle, codec: "subrip")]
        #expect(throws: MediaError.self) { try planned(facts) }
        do {
            _ = try planned(facts)
        } catch {
            #expect(error.code == .noVideo)
            #expect(!error.reason.contains("tmp"))
        }
    }

    @Test func orientationDecidesBetweenRefusingAndTurning() async throws {
        let rotated = Orientation(rotationDegrees: 90, mirrored: false, matrix: nil)
        #expect(throws: MediaError.self) {
            try planned(syntheticFacts(Self.ibbp, start: 0, end: 400, mode: .copy, container: .mkv, orientation: rotated))
        }
        let exact = try planned(syntheticFacts(Self.ibbp, start: 0, end: 400, mode: .exact, container: .mkv, orientation: rotated))
        #expect(exact.notices.map(\.code) == ["turned_upright"])
        let mp4 = try planned(syntheticFacts(Self.ibbp, start: 0, end: 400, mode: .copy, container: .mp4, orientation: rotated))
        #expect(mp4.notices.isEmpty)
    }

    @Test func smartRefusalFallsBackWithItsReason() async throws {
        var facts = syntheticFacts(Self.ibbp, start: 700, end: 1500, mode: .smart)
        facts.video?.smartRefusal = .interlaced
        let plan = try planned(facts)
        #expect(plan.output.mode == .exact)
        #expect(plan.output.smartFallback == .interlaced)
        #expect(plan.warnings.map(\.code) == ["smart_fallback"])
    }

    /// The plan carries how re-encoded frames are made: the exact encoder with the job's threads; a smart
    /// cut's edges matching the source (no B-frames, its level), half the threads each when both are encoded.
    @Test func reencodingIsPlanned() async throws {
        var facts = syntheticFacts(Self.ibbp, start: 700, end: 1500, mode: .smart)
        facts.threads = ThreadBudget(decoder: 2, encoder: 4)
        facts.video?.exactPicture = ExactPicture(pixelFormat: "yuv420p", tagsLimitedRange: false, bakedOrientation: nil,
                                                 hdrParameters: [], sourcePixelFormat: "yuvj420p")
        facts.video?.smartMatch = SmartEncoding.Match(encoder: "libx264", profile: "high", level: 31, lossless: false, hdrParameters: [])
        let smart = try #require(try planned(facts).output.reencoding)
        #expect(smart.encoder == "libx264")
        #expect(smart.threads == 2)
        #expect(smart.pixelFormat == "yuvj420p")
        #expect(smart.options["level"] == "3.1")
        #expect(smart.options["x264-params"]?.contains("bframes=0") == true)

        facts.requestedMode = .exact
        facts.video?.exactPicture?.tagsLimitedRange = true
        let exact = try #require(try planned(facts).output.reencoding)
        #expect(exact.threads == 4)
        #expect(exact.pixelFormat == "yuv420p")
        #expect(exact.tagsLimitedRange)
        #expect(exact.options["crf"] == "20")
        #expect(exact.options["x264-params"] == EncoderChoice.x264Parameters([]))
    }

    /// x264 runs without its AVX-512 routines where the CPU has them (they make encodes irreproducible), and with
    /// every other routine it detects.
    @Test func x264IsKeptFromAVX512() {
        let avx512 = cav_cpu_has_avx512() != 0
        #expect(EncoderChoice.x264Parameters([]) == (avx512 ? "asm=AVX2" : nil))
        #expect(EncoderChoice.x264Parameters(["bframes=0"]) == (avx512 ? "bframes=0:asm=AVX2" : "bframes=0"))
    }

    /// A smart cut that falls back encodes as `--mode exact` would: exact's quality (crf 20 unless asked), not the edges'
    /// finer default (16), which cost 1.2× an exact cut's time and 1.4× its size.
    @Test func aFallbackEncodesAtExactsQuality() async throws {
        var facts = syntheticFacts(Self.ibbp, start: 500, end: 900, mode: .smart)
        facts.crf = 16
        facts.exactCRF = 20
        facts.video?.exactPicture = ExactPicture(pixelFormat: "yuv420p", tagsLimitedRange: false, bakedOrientation: nil, hdrParameters: [])
        let plan = try planned(facts)
        #expect(plan.output.mode == .exact && plan.warnings.map(\.code) == ["smart_fallback"])
        #expect(plan.output.reencoding?.options["crf"] == "20")
    }

    /// An edge's encoder looks no further ahead than the longest edge (each frame of lookahead is a picture held):
    /// shorter than the preset's own lookahead, it is the edge's length; longer, the preset's is kept.
    @Test(arguments: [
        ("libx264", "veryfast", 4, "rc-lookahead=4"), ("libx264", "veryfast", 45, nil), ("libx264", "medium", 39, "rc-lookahead=39"),
        ("libx264", "ultrafast", 3, nil), ("libx265", "medium", 12, "rc-lookahead=12"), ("libx265", "medium", 20, nil),
        ("libx264", "veryfast", 0, "rc-lookahead=1"), ("libx264", "unknownpreset", 2, nil),
    ] as [(String, String, Int, String?)])
    func edgeLookaheadIsNoLongerThanTheEdge(encoder: String, preset: String, frames: Int, expected: String?) async {
        let match = SmartEncoding.Match(encoder: encoder, profile: "main", level: 0, lossless: false, hdrParameters: [])
        let options = SmartEncoding.options(match, crf: 16, preset: preset, threads: 1, edgeFrames: frames)
        let parameters = (options[encoder == "libx264" ? "x264-params" : "x265-params"] ?? "").split(separator: ":").map(String.init)
        #expect(parameters.first { $0.hasPrefix("rc-lookahead=") } == expected)
    }

    /// HEVC CRAs with leading pictures: the last point's leading pictures belong to the tail, which decodes
    /// from the point before (they refer to it); the first point's are re-encoded in the head.
    @Test func smartWithLeadingPicturesOfCleanPoints() async throws {
        let packets = SyntheticStream.openGOP(gops: 4, cleanPoints: true)
        let plan = try planned(syntheticFacts(packets, start: 100, end: 1500, mode: .smart))
        let smart = try #require(plan.ranges[0].smart)
        #expect(smart.firstCopied.pts == 480)
        #expect(smart.copyEnd.pts == 1440)
        #expect(smart.tailStart == 1360)
        #expect(smart.tailDecodeFrom.pts == 960)
        #expect(smart.headFrames == 10) // 80 … 440, with 400 and 440 the leading pictures of 480
    }

    /// A single range whose last group needs nothing decoded after the end (no B-frames) copies it too: no tail, and its
    /// last frame lasts until the end of the span; with B-frames shown before the end but decoded after one shown past
    /// it, the tail stays. A join's ranges keep their tails (their seams are planned on them).
    @Test func aSingleRangeCopiesItsLastGroupWhereNothingReferencesPastTheEnd() throws {
        let plain = SyntheticStream.vfr(durations: Array(repeating: 40, count: 60)).map { packet -> VideoPacket in
            var made = packet
            made.isSplicePoint = made.isClean
            return made
        }
        let through = try #require(try planned(syntheticFacts(plain, start: 100, end: 1300, mode: .smart, reachesEnd: false)).ranges[0].smart)
        #expect(through.copiesThrough && !through.hasTail && through.firstCopied.pts == 400, "\(through)")
        #expect(through.copyEnd.pts == 1280 && through.copyLastShown == 1280 && through.end == 1320, "\(through)")
        let reordered = try #require(try planned(syntheticFacts(Self.ibbp, start: 700, end: 1500, mode: .smart)).ranges[0].smart)
        #expect(reordered.hasTail && !reordered.copiesThrough, "\(reordered)")
        let draft = try RangePlanner.plan(syntheticFacts(plain, start: 100, end: 1300, mode: .smart, reachesEnd: false), joins: true)
        #expect(draft.range.smart?.hasTail == true, "\(String(describing: draft.range.smart))")
    }

    @Test func startEdgeSettlesOnlyOnceEverythingShownAtStartIsRead() async {
        let packets = Self.pyramid
        // Start 100 shows frame 2 (80); the frame after it (b3, 120) is read fifth, but only once a packet
        // decodes at or after 120 (P8) is nothing shown between them still to come.
        let settledAt = (1...packets.count).first { StartEdge.isSettled(Array(packets.prefix($0)), start: 100, end: 600, smart: false) }
        #expect(settledAt == 6) // I0 P4 B2 b1 b3 P8
        let edge = StartEdge.make(packets: Array(packets.prefix(5)), start: 100)
        #expect(edge?.frameAtStart == 80)
        #expect(edge?.nextFrame == 120)
    }

    /// The reader's windows (a GOP or two around each edge, as `PacketReader` cuts them) give the same
    /// plan as the whole stream, for every mode, container and a spread of ranges on and between frames.
    @Test(arguments: [CutMode.copy, .keyframe, .exact, .smart])
    func windowsGiveTheSamePlan(_ mode: CutMode) async throws {
        let streams: [[VideoPacket]] = [Self.ibbp, Self.pyramid, Self.open, SyntheticStream.openGOP(gops: 4, cleanPoints: true), Self.vfr]
        var compared = 0
        for packets in streams {
            let last = packets.map(\.pts).max() ?? 0
            for start in stride(from: Int64(0), through: last, by: 37) {
                for length in [Int64(13), 90, 333, 800, 5000] {
                    let end = start + length
                    for container in [Container.mp4, .mkv] {
                        let whole = try? planned(syntheticFacts(packets, start: start, end: end, mode: mode, container: container))
                        let windows = ReaderWindows(packets: packets, start: start, end: end, smart: mode == .smart)
                        let windowed = try? planned(syntheticFacts(packets, start: start, end: end, mode: mode, container: container,
                                                                           startPackets: windows.start, endPackets: windows.end,
                                                                           reachesEnd: windows.endReachesEnd))
                        #expect(whole == windowed, "\(mode) \(container) \(start)–\(end)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 200)
    }
}

/// The windows `PacketReader` reads, cut from a whole stream by the same rules (no demuxer).
struct ReaderWindows {
    var start: [VideoPacket]
    var end: [VideoPacket]
    var endReachesEnd: Bool

    init(packets: [VideoPacket], start: Int64, end: Int64, smart: Bool) {
        // Start: from the last clean start at or before `start` (else the first), until settled.
        let keyframe = packets.lastIndex { $0.isKeyframe && $0.isClean && $0.pts <= start }
            ?? packets.firstIndex { $0.isKeyframe && $0.isClean } ?? 0
        var count = 1
        while keyframe + count < packets.count,
              !StartEdge.isSettled(Array(packets[keyframe..<(keyframe + count)]), start: start, end: end, smart: smart) {
            count += 1
        }
        let startWindow = Array(packets[keyframe..<(keyframe + count)])
        let startReachesEnd = keyframe + count >= packets.count
        self.start = startWindow
        let edge = StartEdge.make(packets: startWindow, start: start)
        let firstWanted = edge?.frameAtStart ?? start
        func settled(_ window: ArraySlice<VideoPacket>, _ reachesEnd: Bool) -> Bool {
            EndEdge.make(packets: Array(window), firstWanted: firstWanted, end: end, reachesEndOfStream: reachesEnd) != nil
        }
        if settled(startWindow[...], startReachesEnd) {
            self.end = startWindow
            endReachesEnd = startReachesEnd
            return
        }
        // End: from the last keyframe shown before `end` (for a smart cut, back to two clean points),
        // never before the cut's keyframe (then one read from it).
        var from = packets.lastIndex { $0.isKeyframe && $0.pts < end } ?? keyframe
        if smart {
            while from > keyframe, !SmartCutPlan.endWindowSuffices(Array(packets[from...]), end: end, decodeTimesDerived: false) {
                from = packets[..<from].lastIndex(where: \.isKeyframe) ?? keyframe
            }
        }
        if from <= keyframe { from = keyframe }
        var through = from + 1
        while through < packets.count, !settled(packets[from..<through], false) { through += 1 }
        self.end = Array(packets[from..<through])
        endReachesEnd = through >= packets.count
    }
}
