@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// The plan of a cut of sound, from packets made by hand: which packets are copied, what the container is told to
/// hide, and what FFmpeg 5.1 decodes — for every format's row of the issue's table, and for any numbers a file holds.
@Suite struct SoundPlannerTests {
    /// `count` packets of `frame` samples from sample `from` (timestamps in samples: time base 1/rate).
    static func packets(_ count: Int, frame: Int64, from: Int64 = 0) -> [SoundFacts.PacketSpan] {
        (0..<Int64(count)).map { SoundFacts.PacketSpan(pts: from + $0 * frame, start: from + $0 * frame, count: frame) }
    }

    static func facts(codec: String, container: SoundContainer, rate: Int = 44100, frame: Int64, packets count: Int = 500,
                      lossless: Bool = false, origin: Int64 = 0) -> SoundFacts {
        let all = packets(count, frame: frame)
        var facts = SoundFacts(streamIndex: 0, codec: codec, sampleRate: rate, timeBaseNum: 1, timeBaseDen: Int32(rate), originSample: origin,
                          endSample: Int64(count) * frame, container: container, outputName: "out", lossless: lossless,
                          encoders: ["libmp3lame", "aac", "flac", "libopus", "libvorbis", "pcm_s16le"], ownEncoder: lossless ? codec : ["mp3": "libmp3lame", "aac": "aac", "opus": "libopus", "vorbis": "libvorbis"][codec],
                          edges: [SoundFacts.RangeEdges(head: all, tail: all, headFromFirst: true)])
        if ["mp3", "aac"].contains(codec) { facts.fixedFrame = frame }
        return facts
    }

    static func range(_ start: Int64, _ end: Int64) -> [SoundPlan.SampleRange] { [SoundPlan.SampleRange(start: start, end: end)] }

    /// MP3: one frame of preroll after a frame of silence carrying the bit reservoir, both hidden by the LAME tag.
    @Test func mp3KeepsOnePrerollFrameAfterAReservoirCarrier() throws {
        let plan = try SoundPlanner.plan(Self.facts(codec: "mp3", container: .mp3, frame: 1152, origin: 1105), ranges: Self.range(146_630, 296_570), path: "a.mp3")
        guard case let .copy(copy) = plan.method else { Issue.record("not copied: \(plan.method)"); return }
        // 146630 lies in frame 127 (146304…147456): frame 126 is copied first, after the carrier's 1152 samples.
        #expect(copy.signal == .lameTag && copy.prerollPackets == 1 && copy.carrierFrom == SoundSeams.Entry(pts: 110 * 1152, position: -1))
        #expect(copy.firstPts == 126 * 1152 && copy.skipStart == 146_630 - 126 * 1152 + 1152)
        #expect(copy.lastPts == 257 * 1152 && copy.skipEnd == 258 * 1152 - 296_570)
        #expect(plan.decodedSamples == 296_570 - 146_630 && plan.decodedStartErrorSamples == 0 && plan.warnings.isEmpty)
        // From the stream's first frame nothing is carried: the source's own decode starts there too.
        let atStart = try SoundPlanner.plan(Self.facts(codec: "mp3", container: .mp3, frame: 1152, origin: 1105), ranges: Self.range(1105, 9000), path: "a.mp3")
        guard case let .copy(first) = atStart.method else { Issue.record("not copied"); return }
        #expect(first.carrierFrom == nil && first.firstPts == 0 && first.skipStart == 1105)
    }

    @Test func aacInMP4HidesOnePrimingFrameAndFFmpegPlaysPastTheEditEnd() throws {
        let plan = try SoundPlanner.plan(Self.facts(codec: "aac", container: .mp4, frame: 1024), ranges: Self.range(145_530, 295_470), path: "a.m4a")
        guard case let .copy(copy) = plan.method else { Issue.record("not copied"); return }
        #expect(copy.signal == .editList && copy.prerollPackets == 1 && copy.firstPts == 141 * 1024)
        #expect(copy.skipStart == 145_530 - 141 * 1024 && copy.skipEnd == 289 * 1024 - 295_470)
        #expect(plan.decodedSamples == 295_470 - 145_530 + copy.skipEnd)
        #expect(plan.notices.contains { $0.code == "sound_signalled_only" } && plan.warnings.isEmpty)
    }

    @Test func opusDecodesAtLeast200MillisecondsBeforeTheRange() throws {
        let plan = try SoundPlanner.plan(Self.facts(codec: "opus", container: .ogg, rate: 48000, frame: 960), ranges: Self.range(158_400, 321_600), path: "a.opus")
        guard case let .copy(copy) = plan.method else { Issue.record("not copied"); return }
        #expect(copy.signal == .preSkip && copy.skipStart >= SoundPlanner.opusPrerollSamples && copy.skipStart < SoundPlanner.opusPrerollSamples + 960)
        #expect(plan.decodedSamples == 321_600 - 158_400 && plan.decodedStartErrorSamples == 0)
    }

    @Test func vorbisStartsAtItsPacketInFFmpegAndSaysSo() throws {
        let plan = try SoundPlanner.plan(Self.facts(codec: "vorbis", container: .ogg, frame: 1024), ranges: Self.range(145_530, 295_470), path: "a.ogg")
        #expect(plan.decodedStartErrorSamples == -(145_530 - 142 * 1024))
        #expect(plan.decodedSamples == 295_470 - 142 * 1024)
        #expect(plan.notices.contains { $0.code == "sound_signalled_only" })
    }

    @Test func containersThatCannotSignalKeepWholeFramesWithAWarning() throws {
        let plan = try SoundPlanner.plan(Self.facts(codec: "aac", container: .adts, frame: 1024), ranges: Self.range(145_530, 295_470), path: "a.aac")
        #expect(plan.warnings.map(\.code) == ["sound_inexact"])
        #expect(plan.decodedSamples == 289 * 1024 - 142 * 1024)
    }

    @Test func losslessCodecsOtherCodecsAndJoinsAreEncodedAgain() throws {
        let flac = try SoundPlanner.plan(Self.facts(codec: "flac", container: .flac, frame: 4608, lossless: true), ranges: Self.range(1000, 90_000), path: "a")
        #expect(flac.method == .reencode(SoundReencode(encoder: "flac", bitRate: 0, why: .lossless)) && flac.decodedSamples == 89_000)
        let other = try SoundPlanner.plan(Self.facts(codec: "aac", container: .mp3, frame: 1024), ranges: Self.range(1000, 90_000), path: "a")
        #expect(other.method == .reencode(SoundReencode(encoder: "libmp3lame", bitRate: 0, why: .otherCodec)))
        let joined = try SoundPlanner.plan(Self.facts(codec: "mp3", container: .mp3, frame: 1152),
                                           ranges: [SoundPlan.SampleRange(start: 0, end: 10_000), SoundPlan.SampleRange(start: 20_000, end: 30_000)], path: "a")
        #expect(joined.method == .reencode(SoundReencode(encoder: "libmp3lame", bitRate: 0, why: .join)) && joined.decodedSamples == 20_000)
        #expect(throws: MediaError.self) {
            try SoundPlanner.plan(Self.facts(codec: "mp3", container: .mp3, frame: 1152),
                                  ranges: [SoundPlan.SampleRange(start: 0, end: 20_000), SoundPlan.SampleRange(start: 10_000, end: 30_000)], path: "a")
        }
    }

    @Test func aTruncatedInputEndsWhereItCanBeRead() throws {
        var facts = Self.facts(codec: "mp3", container: .mp3, frame: 1152)
        facts.readableEnd = 100_000
        facts.truncation = "it ends early"
        let plan = try SoundPlanner.plan(facts, ranges: Self.range(50_000, 200_000), path: "a")
        #expect(plan.ranges.last?.end == 100_000 && plan.warnings.contains { $0.code == "truncated" })
        #expect(throws: MediaError.self) { try SoundPlanner.plan(facts, ranges: Self.range(150_000, 200_000), path: "a") }
    }

    /// Any packets, ranges and rates a file can hold: a plan or a typed error, and a plan copies what holds the range.
    @Test func anyNumbersGiveAPlanOrAnError() async {
        let containers = SoundContainer.allCases, codecs = ["mp3", "aac", "opus", "vorbis", "flac", "pcm_s16le", "ac3"]
        await propertyCheck(count: 400, input: Gen.int(in: 0...6), Gen.int(in: 0...6), Wild.int64, Wild.int64, Gen.int(in: 0...40),
                            Gen.int64(in: -5000...5000), Wild.int, Gen.bool) { codecIndex, containerIndex, start, end, count, frame, rate, joined in
            let codec = codecs[codecIndex], container = containers[containerIndex]
            var facts = Self.facts(codec: codec, container: container, rate: rate.clamped(to: -10...200_000), frame: frame, packets: count,
                                   lossless: codec.hasPrefix("pcm") || codec == "flac")
            facts.endSample = Int64(count).times(frame)
            let ranges = joined ? [SoundPlan.SampleRange(start: start, end: end), SoundPlan.SampleRange(start: end, end: end.plus(1000))]
                : [SoundPlan.SampleRange(start: start, end: end)]
            do {
                let plan = try SoundPlanner.plan(facts, ranges: ranges, path: "any")
                #expect(plan.decodedSamples >= 0 && plan.ranges.allSatisfy { $0.end > $0.start })
                if case let .copy(copy) = plan.method {
                    #expect(copy.skipStart >= 0 && copy.skipEnd >= 0 && copy.firstPts <= copy.lastPts)
                }
            } catch {
                #expect(!((error as? MediaError)?.reason.isEmpty ?? true), "\(error)")
            }
        }
    }

    /// A frame made without a reservoir is rewritten at a bit rate whose frame holds its own main data and, at its end,
    /// the bytes the next frame reaches back for; its header and side information stay, and its own data too.
    @Test func anMP3FrameCarriesTheNextFramesReservoir() throws {
        // MPEG-1 layer III, 128 kb/s, 44.1 kHz, stereo, no CRC: 417 bytes; main_data_begin 0; granules of 600 bits.
        var frame = [UInt8](repeating: 0, count: 417)
        frame[0] = 0xFF; frame[1] = 0xFB; frame[2] = 0x90; frame[3] = 0x00
        var bits = [Int](repeating: 0, count: 32 * 8)
        func put(_ value: Int, at: Int, width: Int) { for i in 0..<width { bits[at + i] = (value >> (width - 1 - i)) & 1 } }
        // main_data_begin 9, private 3, scfsi 8, then four 59-bit blocks starting with part2_3_length.
        for block in 0..<4 { put(600, at: 20 + block * 59, width: 12) }
        for (index, bit) in bits.enumerated() where bit == 1 { frame[4 + index / 8] |= UInt8(0x80 >> (index % 8)) }
        for index in 36..<(36 + 300) { frame[index] = UInt8(index % 251) }
        let reservoir = [UInt8](repeating: 0xAB, count: 300)
        let repacked = try #require(MP3Frame.repack(frame, reservoir: reservoir))
        let header = try #require(MP3Frame.header(repacked))
        #expect(header.bitRateIndex > 9 && repacked.count == header.size(bitRateIndex: header.bitRateIndex))
        #expect(Array(repacked[4..<36]) == Array(frame[4..<36]) && Array(repacked[36..<336]) == Array(frame[36..<336]))
        #expect(Array(repacked.suffix(300)) == reservoir)
        // A frame that uses a reservoir of its own, or needs more room than any bit rate has, is refused.
        var borrowing = frame
        borrowing[4] = 0x80
        #expect(MP3Frame.repack(borrowing, reservoir: reservoir) == nil)
        #expect(MP3Frame.repack(frame, reservoir: [UInt8](repeating: 1, count: 512)) == nil)
    }

    /// A seam-only join for any ranges and packets a file can hold: a plan or nil (encoded again whole), and a plan's
    /// pieces follow one another on the output without gaps, copies before and after every window, each seam moved by at
    /// most half a frame.
    @Test func anyJoinGivesSeamsOrNone() async {
        await propertyCheck(count: 300, input: Gen.bool, Gen.int(in: 2...5), Gen.int64(in: 0...400_000), Gen.int64(in: 1...200_000),
                            Gen.int64(in: 0...100_000), Gen.int(in: 0...600)) { mp3, count, firstStart, length, gap, packets in
            let frame: Int64 = mp3 ? 1152 : 1024
            var facts = Self.facts(codec: mp3 ? "mp3" : "aac", container: mp3 ? .mp3 : .mp4, frame: frame, packets: packets)
            var ranges: [SoundPlan.SampleRange] = []
            var start = firstStart
            for _ in 0..<count {
                ranges.append(SoundPlan.SampleRange(start: start, end: start + length))
                start += length + gap
            }
            facts.edges = Array(repeating: facts.edges[0], count: count)
            guard let seams = SoundSeamPlanner.plan(facts, ranges: ranges) else { return }
            #expect(seams.shifts.count == count - 1 && seams.shifts.allSatisfy { abs($0) <= frame / 2 })
            var at: Int64? = nil
            for piece in seams.pieces {
                let (from, to) = switch piece {
                case let .copy(span): (span.outputStart, span.outputEnd)
                case let .encode(window): (window.outputStart, window.outputEnd)
                }
                #expect(to > from && (at == nil || at == from), "\(seams.pieces)")
                at = to
            }
            if case .copy? = seams.pieces.first, case .copy? = seams.pieces.last {} else { Issue.record("a join must begin and end with copies") }
        }
    }

    /// Any bytes as an MP3 frame: rewritten or refused, never a trap.
    @Test func anyBytesRepackOrRefuse() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...1500), Gen.int(in: 0...600), Gen.uint64()) { size, reach, seed in
            var state = seed | 1
            var bytes = (0..<size).map { _ -> UInt8 in
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
            if bytes.count >= 4 { bytes[0] = 0xFF; bytes[1] = 0xFB }
            let reservoir = [UInt8](repeating: 7, count: reach)
            if let frame = MP3Frame.repack(bytes, reservoir: reservoir) { #expect(Array(frame.suffix(reach)) == reservoir) }
            if let frame = MP3Frame.carrier(like: bytes, reservoir: reservoir) { #expect(Array(frame.suffix(reach)) == reservoir) }
            _ = bytes.withUnsafeBufferPointer { MP3Frame.reservoir($0) }
        }
    }

    @Test func mp3ReservoirIsReadFromTheSideInformation() {
        // MPEG-1 layer III, no CRC, stereo: main_data_begin = 0b1_0000_0001 = 257; 418-byte frame holds 418 − 4 − 32.
        var frame = [UInt8](repeating: 0, count: 418)
        frame[0] = 0xFF; frame[1] = 0xFB; frame[2] = 0x90; frame[3] = 0x00
        frame[4] = 0x80; frame[5] = 0x80
        frame.withUnsafeBufferPointer { #expect(MP3Frame.reservoir($0) == (257, 382)) }
        // MPEG-2, mono, CRC: 8 bits after the CRC.
        var mono = [UInt8](repeating: 0, count: 100)
        mono[0] = 0xFF; mono[1] = 0xF2; mono[2] = 0x40; mono[3] = 0xC0; mono[6] = 200
        mono.withUnsafeBufferPointer { #expect(MP3Frame.reservoir($0) == (200, 100 - 6 - 9)) }
        [UInt8](repeating: 0xFF, count: 3).withUnsafeBufferPointer { #expect(MP3Frame.reservoir($0) == (0, 0)) }
    }
}

extension Int {
    func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
