import CAV
@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// The pure pieces of the timing and colour work: samples read as FFmpeg's parsers read them, the decode lead an MP4
/// reader leaves, and Dolby Vision's configuration box.
struct TimingAndColourUnitTests {
    /// A Samsung slow-motion sample: one length covering an SVC prefix unit, then SEI and IDR behind start codes.
    @Test func aWholeAccessUnitBehindOneLengthReadsAsItsUnits() {
        let inner: [UInt8] = [0x6E, 0xC0, 0x80, 0x0F, 0, 0, 0, 1, 0x06, 5, 1, 0x80, 0, 0, 0, 1, 0x65, 0x88, 0x84]
        let sample = NALUnits.lengthPrefixed([inner[...]], lengthSize: 4)
        let units = NALUnits.readUnits(sample, lengthSize: 4)
        #expect(units.map { NALUnits.type($0, codec: .h264) } == [14, 6, 5])
        #expect(NALUnits.isInstantaneousRefresh(units, codec: .h264))
        // What the length alone says: one prefix unit, no IDR (the bug).
        let lengths = NALUnits.splitLengthPrefixed(sample, lengthSize: 4) ?? []
        #expect(!NALUnits.isInstantaneousRefresh(lengths, codec: .h264))
    }

    /// Samples whose units hold no start code read exactly as their lengths say, whatever their bytes; any bytes at
    /// all give units (or none), never a trap.
    @Test func ordinarySamplesReadAsTheirLengthsSay() async {
        await propertyCheck(count: 500, input: Gen.int(in: 1...6), Gen.int(in: 1...4), Gen.uint64()) { count, lengthSize, seed in
            var generator = XorShift(seed)
            var units: [[UInt8]] = []
            for _ in 0..<count {
                let size = Int(generator.next() % 40) + 1
                // Emulation prevention keeps 00 00 0x (x ≤ 3) out of a unit: zeros here, but never two in a row.
                var unit: [UInt8] = []
                for _ in 0..<size {
                    let byte = UInt8(truncatingIfNeeded: generator.next() % 4 == 0 ? 0 : generator.next())
                    unit.append(byte == 0 && unit.last == 0 ? 7 : byte)
                }
                units.append(unit)
            }
            guard lengthSize > 1 || units.allSatisfy({ $0.count < 256 }) else { return }
            let sample = NALUnits.lengthPrefixed(units.map { $0[...] }, lengthSize: lengthSize)
            #expect(NALUnits.readUnits(sample, lengthSize: lengthSize).map(Array.init) == units)
            let noise = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = NALUnits.readUnits(noise, lengthSize: lengthSize)
        }
    }

    @Test(arguments: [
        // The iPhone Dolby Vision clip: only the last two entries are negative; FFmpeg 5.1 applies no shift.
        ([0, 60, 0, -40, -20], 40),
        // A negative entry early: FFmpeg shifts by it, nothing is left.
        ([0, -20, 40, 0, 0], 0),
        // Early shift 20, a later entry needs 50: 30 more.
        ([-20, 40, 0, -50, 0], 30),
        ([0, 0], 0), ([Int64](), 0), ([-7], 7),
    ] as [([Int64], Int64)])
    func decodeLeadIsWhatTheReadersShiftLeaves(_ offsets: [Int64], _ lead: Int64) {
        #expect(CompositionOffsets.decodeLead(entries: offsets.map { (1, $0) }) == lead)
    }

    /// FFmpeg's other rules: a count of 0 skips its entry; an early offset past 2^28 drops the table.
    @Test func decodeLeadFollowsTheReadersRules() {
        #expect(CompositionOffsets.decodeLead(entries: [(1, 0), (0, -500), (1, 0), (1, -40), (1, 0)]) == 40)
        #expect(CompositionOffsets.decodeLead(entries: [(1, 1 << 29), (1, 0), (1, -40), (1, 0)]) == 0)
        #expect(CompositionOffsets.decodeLead(entries: [(1, 0), (1, 0), (1, Int64(Int32.min))]) == 0)
    }

    @Test func decodeLeadNeverTrapsAndLeavesNoPresentationBeforeDecode() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...12), Gen.uint64()) { count, seed in
            var generator = XorShift(seed)
            let offsets = (0..<count).map { _ in Int64(Int32(truncatingIfNeeded: generator.next())) }
            let lead = CompositionOffsets.decodeLead(entries: offsets.map { (1, $0) })
            #expect(lead >= 0 && lead <= 1 << 28)
            // Where the reader keeps the table and the lead is a repair, no frame is shown before it is decoded.
            let early = offsets.dropLast(2)
            guard lead > 0, early.allSatisfy({ abs($0) <= 1 << 28 }) else { return }
            let applied = early.reduce(Int64(0)) { max($0, -$1) }
            #expect(offsets.allSatisfy { $0 + applied + lead >= 0 })
        }
    }

    /// Profile 8.4 as an iPhone writes it, and 10.0: the bytes Dolby's spec lays out, in the box its profile names.
    @Test func dolbyVisionBoxes() throws {
        let iphone: [UInt8] = [1, 0, 8, 4, 1, 0, 1, 4]
        let vision = try #require(iphone.withUnsafeBufferPointer { $0.baseAddress.flatMap { DolbyVisionConfiguration(sideData: $0, size: 8) } })
        #expect(vision.name == "8.4")
        #expect(vision.box == [0, 0, 0, 32] + Array("dvvC".utf8) + [1, 0, 0x10, 0x25, 0x40] + [UInt8](repeating: 0, count: 19))
        let five: [UInt8] = [1, 0, 5, 6, 1, 0, 1, 0]
        let p5 = try #require(five.withUnsafeBufferPointer { $0.baseAddress.flatMap { DolbyVisionConfiguration(sideData: $0, size: 8) } })
        #expect(Array(p5.box[4..<8]) == Array("dvcC".utf8))
        // Fields past their widths, or too few bytes, are no configuration.
        for bad in [[1, 0, 200, 4, 1, 0, 1, 4], [1, 0, 8, 64, 1, 0, 1, 4], [1, 0, 8, 4, 1, 0, 1, 16]] as [[UInt8]] {
            #expect(bad.withUnsafeBufferPointer { $0.baseAddress.flatMap { DolbyVisionConfiguration(sideData: $0, size: 8) } } == nil)
        }
        #expect(iphone.withUnsafeBufferPointer { $0.baseAddress.flatMap { DolbyVisionConfiguration(sideData: $0, size: 7) } } == nil)
    }

    /// The box goes at the end of the video entry and every box around it grows; a second insert changes nothing.
    @Test func dolbyVisionBoxGoesIntoTheEntry() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { MovieBoxes.header(size: 8 + body.count, type: type) + body }
        let tkhd = box("tkhd", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 60))
        let entry = box("hvc1", [UInt8](repeating: 0, count: 78) + box("hvcC", [1, 2, 3]))
        let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry)
        let moov = box("moov", box("trak", tkhd + box("mdia", box("minf", box("stbl", stsd)))))
        let vision = try #require(DolbyVisionConfiguration(sideData: [1, 0, 8, 4, 1, 0, 1, 4], size: 8))
        var patched = moov
        try DolbyVisionConfiguration.insert(vision.box, into: &patched, trackID: 1)
        #expect(patched.count == moov.count + 32)
        let again = patched
        try DolbyVisionConfiguration.insert(vision.box, into: &patched, trackID: 1)
        #expect(patched == again)
        #expect(throws: AVFailure.self) { var copy = moov; try DolbyVisionConfiguration.insert(vision.box, into: &copy, trackID: 2) }
        // Walk it back: each box holds the next, and the entry ends with the new box, after its own record.
        var level = MovieBoxes.boxes(in: patched, from: 8, to: patched.count)
        for type in ["trak", "mdia", "minf", "stbl"] {
            let box = try #require(level.first { $0.type == type }, "\(type)")
            level = MovieBoxes.boxes(in: patched, from: box.start + 8, to: box.end)
        }
        let stsdBox = try #require(level.first { $0.type == "stsd" })
        let entryBox = try #require(MovieBoxes.boxes(in: patched, from: stsdBox.start + 16, to: stsdBox.end).first)
        #expect(entryBox.end == stsdBox.end)
        let children = MovieBoxes.boxes(in: patched, from: entryBox.start + 8 + 78, to: entryBox.end)
        #expect(children.map(\.type) == ["hvcC", "dvvC"])
        #expect(Array(patched[(children.last?.start ?? 0)..<(children.last?.end ?? 0)]) == vision.box)
    }
}

/// Per-frame metadata as each codec carries it — Dolby Vision's RPU and HDR10+ — found in the source's sample, put where
/// the codec carries it in an encoder's packet, and any bytes read without a trap.
struct FrameMetadataTests {
    static let rpuOBU: [UInt8] = [0x2A, 10] + DolbyVisionRPU.metadataPrefix + [0x19, 0x08]
    static let hdr10PlusOBU: [UInt8] = [0x2A, 9, 0x04] + HDR10Plus.t35Prefix + [0x01, 0x40]
    static let sequenceHeader: [UInt8] = [0x0A, 3, 0, 0, 0], frame: [UInt8] = [0x32, 2, 0x10, 0x20]
    /// An HDR10+ T.35 payload holding 00 00 01, which its NAL unit must escape.
    static let t35: [UInt8] = HDR10Plus.t35Prefix + [0x01, 0x00, 0x00, 0x01, 0x7F]

    @Test func dolbyVisionFoundWhereEachCodecCarriesIt() {
        let hevc: [UInt8] = [0, 0, 0, 3, 0x02, 0x01, 0xAA, 0, 0, 0, 3, 0x7C, 0x01, 0x42]
        #expect(DolbyVisionRPU.unit(in: hevc, codec: .hevc, lengthSize: 4) == [0x7C, 0x01, 0x42])
        // H.264's type 28, behind start codes (an MPEG-TS source); a slice of type 1 is no RPU.
        let h264: [UInt8] = [0, 0, 0, 1, 0x41, 0x9A, 0, 0, 1, 0x1C, 0x01, 0x07]
        #expect(DolbyVisionRPU.unit(in: h264, codec: .h264, lengthSize: nil) == [0x1C, 0x01, 0x07])
        #expect(DolbyVisionRPU.unit(in: Array(h264[0..<6]), codec: .h264, lengthSize: nil) == nil)
        // AV1: the metadata OBU with Dolby's codes; HDR10+'s (provider 0x003C) is not it.
        #expect(DolbyVisionRPU.unit(in: Self.sequenceHeader + Self.rpuOBU + Self.frame, codec: .av1, lengthSize: nil) == Self.rpuOBU)
        #expect(DolbyVisionRPU.unit(in: Self.sequenceHeader + Self.hdr10PlusOBU + Self.frame, codec: .av1, lengthSize: nil) == nil)
        #expect(FrameMetadataCodec(codec: "vp9") == nil)
    }

    /// HDR10+ in an SEI unit that holds another message too: a unit of its own is made with only the T.35 message.
    @Test func hdr10PlusTakesOnlyItsOwnMessage() throws {
        let timing: [UInt8] = [1, 2, 0x11, 0x22]
        let message = SEIMessages.write(type: 4, payload: Self.t35)
        let rbsp = timing + message
        let unit: [UInt8] = [0x4E, 0x01] + NALUnits.addingEmulationPrevention(rbsp)
        #expect(unit.count > rbsp.count + 2, "the payload's 00 00 01 is escaped")
        let sample = NALUnits.lengthPrefixed([unit[...], [0x26, 0x01, 0xAF][...]], lengthSize: 4)
        let found = try #require(HDR10Plus.unit(in: sample, codec: .hevc, lengthSize: 4))
        #expect(Array(found.prefix(2)) == [0x4E, 0x01])
        #expect(SEIMessages.read(NALUnits.removingEmulationPrevention(found.dropFirst(2))) == [SEIMessages.Message(type: 4, payload: Self.t35[...])])
        // H.264: SEI type 6, one header byte; a T.35 message of another provider is not HDR10+.
        var other = Self.t35
        other[2] = 0x3B
        let h264 = [0, 0, 1, 0x06] + NALUnits.addingEmulationPrevention(SEIMessages.write(type: 4, payload: other)) + [0, 0, 1, 0x65, 0x88]
        #expect(HDR10Plus.unit(in: h264, codec: .h264, lengthSize: nil) == nil)
        #expect(HDR10Plus.unit(in: Self.sequenceHeader + Self.hdr10PlusOBU + Self.frame, codec: .av1, lengthSize: nil) == Self.hdr10PlusOBU)
    }

    @Test func putWhereEachCodecCarriesIt() {
        // Annex B from the encoder: HDR10+ before the first slice, the RPU last.
        let annexB: [UInt8] = [0, 0, 0, 1, 0x46, 0x01, 0x10, 0, 0, 0, 1, 0x26, 0x01, 0xAF]
        let sei: [UInt8] = [0x4E, 0x01, 0x04, 0x01, 0x80], rpu: [UInt8] = [0x7C, 0x01, 0x42]
        #expect(FrameMetadataCodec.hevc.inserting(prefix: [sei], suffix: [rpu], into: annexB)
                == [0, 0, 0, 1, 0x46, 0x01, 0x10, 0, 0, 0, 1] + sei + [0, 0, 0, 1, 0x26, 0x01, 0xAF, 0, 0, 0, 1] + rpu)
        // AV1: after the sequence header, before the frame; a temporal unit that does not parse is left as it is.
        let unit = [0x12, 0] + Self.sequenceHeader + Self.frame
        #expect(FrameMetadataCodec.av1.inserting(prefix: [Self.hdr10PlusOBU, Self.rpuOBU], suffix: [], into: unit)
                == [0x12, 0] + Self.sequenceHeader + Self.hdr10PlusOBU + Self.rpuOBU + Self.frame)
        #expect(FrameMetadataCodec.av1.inserting(prefix: [Self.rpuOBU], suffix: [], into: [0x32, 9, 1]) == [0x32, 9, 1])
    }

    @Test func anyBytesGiveAUnitOrNil() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...40), Gen.uint64()) { count, seed in
            var generator = XorShift(seed)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next() % 7 == 0 ? 0xFF : generator.next()) }
            for codec in [FrameMetadataCodec.hevc, .h264, .av1] {
                for lengthSize in [nil, 1, 2, 4] as [Int?] {
                    if let unit = DolbyVisionRPU.unit(in: bytes, codec: codec, lengthSize: lengthSize) { #expect(unit.count <= bytes.count) }
                    _ = HDR10Plus.unit(in: bytes, codec: codec, lengthSize: lengthSize)
                }
                let put = codec.inserting(prefix: [Self.rpuOBU], suffix: [], into: bytes)
                if codec == .av1 {
                    #expect(put == bytes || put.count == bytes.count + Self.rpuOBU.count)
                } else {
                    #expect(put.count >= Self.rpuOBU.count + 4)
                }
            }
            // Messages read back as written, whatever their type and size.
            let type = Int(generator.next() % 600), payload = Array(bytes.prefix(Int(generator.next() % 41)))
            #expect(SEIMessages.read(SEIMessages.write(type: type, payload: payload)) == [SEIMessages.Message(type: type, payload: payload[...])])
            for message in SEIMessages.read(bytes) { #expect(message.payload.count <= bytes.count) }
        }
    }
}

/// A seeded generator for the byte-level properties above.
private struct XorShift {
    var state: UInt64
    init(_ seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
}

/// The one decode grid of a smart cut (issue 50): made only for a stream whose rate is constant, and whatever the times,
/// every decode time it gives is at or before its presentation and after the one before.
struct DecodeGridTests {
    static func smart(delay: Int64) -> SmartCutPlan {
        let key = VideoPacket(pts: 15360, dts: 15360 - delay, duration: 512, isKeyframe: true, isClean: true, isSplicePoint: true)
        return SmartCutPlan(frameAtStart: 15360, firstCopied: key, copyEnd: key, tailStart: nil, tailDecodeFrom: key, end: 30720)
    }

    @Test(arguments: [
        // 30 fps in MP4's 1/15360, NTSC in 1/30000, 25 fps in MPEG-TS's 90 kHz: whole ticks.
        (AVRational(num: 30, den: 1), AVRational(num: 30, den: 1), AVRational(num: 1, den: 15360), Int64?(512)),
        (AVRational(num: 30000, den: 1001), AVRational(num: 30000, den: 1001), AVRational(num: 1, den: 30000), 1001),
        (AVRational(num: 25, den: 1), AVRational(num: 25, den: 1), AVRational(num: 1, den: 90000), 3600),
        // Matroska's milliseconds at 30 fps: no whole number of ticks; a variable rate (average below the base); nonsense.
        (AVRational(num: 30, den: 1), AVRational(num: 30, den: 1), AVRational(num: 1, den: 1000), nil),
        (AVRational(num: 1980, den: 67), AVRational(num: 30, den: 1), AVRational(num: 1, den: 15360), nil),
        (AVRational(num: 0, den: 0), AVRational(num: 0, den: 0), AVRational(num: 1, den: 15360), nil),
        (AVRational(num: 30, den: 1), AVRational(num: 30, den: 1), AVRational(num: 0, den: 1), nil),
    ] as [(AVRational, AVRational, AVRational, Int64?)])
    func constantRateIsTheStreamsOwn(_ rate: AVRational, _ base: AVRational, _ timeBase: AVRational, _ ticks: Int64?) {
        #expect(DecodeGrid.constantFrameTicks(rate: rate, base: base, timeBase: timeBase) == ticks)
    }

    @Test func gridFromTheFramesTicksAndTheCopiedKeyframesDelay() {
        #expect(DecodeGrid.make(frameTicks: 512, smart: Self.smart(delay: 1024)) == DecodeGrid(frameTicks: 512, delay: 1024))
        #expect(DecodeGrid.make(frameTicks: nil, smart: Self.smart(delay: 1024)) == nil)
        #expect(DecodeGrid.make(frameTicks: 512, smart: Self.smart(delay: -5)) == nil)
        var whole = Self.smart(delay: 1024)
        whole.reencodesWhole = true
        #expect(DecodeGrid.make(frameTicks: 512, smart: whole) == nil)
    }

    @Test func decodeTimesRiseAndNeverFollowPresentation() async {
        await propertyCheck(count: 500, input: Gen.int64(in: 1...4000), Gen.int64(in: -100_000...100_000), Gen.int64(in: -50_000...50_000),
                            Gen.int(in: 1...60), Gen.uint64()) { frame, delay, start, count, seed in
            var generator = XorShift(seed)
            let grid = DecodeGrid(frameTicks: frame, delay: delay)
            var previous: Int64?
            var pts = start
            for index in 0..<count {
                pts = pts.plus(Int64(generator.next() % 3000) + 1)
                let dts = grid.decodeTime(index: index, start: start, pts: pts, previous: previous)
                #expect(dts <= pts)
                if let previous { #expect(dts > previous) }
                previous = dts
            }
        }
    }
}

/// FFmpeg's Matroska DURATION tag (where a track ends, read from the file): a value for the form the muxer writes,
/// nil for anything else, never a trap.
struct MatroskaTrackEndTests {
    @Test(arguments: [("00:00:06.807000000", 6.807), ("01:02:03.5", 3723.5), ("00:00:00.000000000", 0.0)])
    func readsTheMuxersForm(_ text: String, _ seconds: Double) {
        #expect(MatroskaTrackEnd.parse(text).map { abs($0 - seconds) < 1e-9 } == true)
    }

    @Test(arguments: ["", "6.807", "00:00", "00:61:00.0", "00:00:60.0", "-1:00:00.0", "00:00:nan", "00:00:-1", "a:b:c", "1:2:3:4"])
    func refusesAnythingElse(_ text: String) {
        #expect(MatroskaTrackEnd.parse(text) == nil)
    }

    @Test func anyTextGivesAValueOrNil() async {
        await propertyCheck(count: 500, input: Wild.text, Wild.int, Wild.int, Wild.double) { text, hours, minutes, seconds in
            _ = MatroskaTrackEnd.parse(text)
            if let value = MatroskaTrackEnd.parse("\(hours):\(minutes):\(seconds)") { #expect(value.isFinite && value >= 0) }
        }
    }
}
