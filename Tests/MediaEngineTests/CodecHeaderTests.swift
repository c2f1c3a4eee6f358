import CAV
import Foundation
@testable import MediaEngine
import PropertyBased
import PropertySupport
import TestSupport
import Testing

/// VP9 frame headers, AV1 sequence headers and MPEG-2 headers read from what Debian's encoders write (libvpx, libaom, SVT-AV1, mpeg2video),
/// checked against the settings each was given; and any bytes give a header or nil, never a trap.
@Suite struct CodecHeaderTests {
    /// The frames of an IVF stream (the container libvpx and libaom write by default): a 32-byte file header,
    /// then per frame its size (4 bytes, little-endian), a timestamp (8 bytes) and the data.
    static func ivfFrames(_ data: Data) -> [[UInt8]] {
        let bytes = [UInt8](data)
        guard bytes.count >= 32, bytes[0..<4] == [0x44, 0x4B, 0x49, 0x46] else { return [] }
        var frames: [[UInt8]] = []
        var offset = Int(bytes[6]) | Int(bytes[7]) << 8
        while offset + 12 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            offset += 12
            guard size <= bytes.count - offset else { break }
            frames.append(Array(bytes[offset..<(offset + size)]))
            offset += size
        }
        return frames
    }

    /// `frames` of testsrc2 at 160x90, encoded with `arguments` into IVF.
    static func encode(_ arguments: [String], frames: Int = 12) async throws -> [[UInt8]] {
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-frames:v", "\(frames)"]
                                   + arguments + ["-f", "ivf", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return ivfFrames(run.stdoutData)
    }

    struct VP9Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var profile: Int
        var color: VP9FrameHeader.ColorConfig
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let vp9Cases: [VP9Case] = [
        VP9Case(arguments: ["-pix_fmt", "yuv420p"], profile: 0,
                color: .init(bitDepth: 8, colorSpace: .unknown, fullRange: false, subsamplingX: 1, subsamplingY: 1)),
        VP9Case(arguments: ["-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_range", "pc"], profile: 0,
                color: .init(bitDepth: 8, colorSpace: .bt709, fullRange: true, subsamplingX: 1, subsamplingY: 1)),
        VP9Case(arguments: ["-pix_fmt", "yuv444p", "-colorspace", "bt470bg"], profile: 1,
                color: .init(bitDepth: 8, colorSpace: .bt601, fullRange: false, subsamplingX: 0, subsamplingY: 0)),
        VP9Case(arguments: ["-pix_fmt", "yuv420p10le", "-colorspace", "bt2020nc"], profile: 2,
                color: .init(bitDepth: 10, colorSpace: .bt2020, fullRange: false, subsamplingX: 1, subsamplingY: 1)),
    ]

    @Test(arguments: vp9Cases)
    func vp9HeadersStateWhatTheEncoderWasGiven(_ example: VP9Case) async throws {
        // Alt-ref frames on (libvpx's default with lag): hidden frames travel in superframes with the shown one.
        let packets = try await Self.encode(["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "6", "-auto-alt-ref", "1",
                                       "-lag-in-frames", "8"] + example.arguments)
        try #require(packets.count == 12)
        let headers = try packets.map { try #require(VP9Superframe.headers(in: $0), "a packet libvpx wrote did not parse") }
        let first = try #require(headers.first?.first)
        #expect(first.kind == .keyframe && first.showFrame && first.isShownKeyframe)
        #expect(first.profile == example.profile)
        #expect(first.color == example.color)
        #expect(first.width == 160 && first.height == 90)
        // Keyframes every 6 frames: each states the same picture; every frame has the stream's profile.
        let keyframes = headers.flatMap { $0 }.filter { $0.kind == .keyframe }
        #expect(keyframes.count >= 2 && keyframes.allSatisfy { $0.color == example.color })
        #expect(headers.flatMap { $0 }.allSatisfy { $0.profile == example.profile })
    }

    /// A superframe (Annex B) built from two frames libvpx wrote, with 2-byte sizes: split back into the same two
    /// frames in order. (libvpx here writes no hidden alt-ref frames in one-pass modes, so none is made to order.)
    @Test func vp9SuperframesSplitIntoTheirFrames() async throws {
        let packets = try await Self.encode(["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"], frames: 2)
        try #require(packets.count == 2 && packets.allSatisfy { $0.count < 65536 })
        let marker: UInt8 = 0xC0 | 1 << 3 | 1  // two frames, two bytes per size
        let sizes = packets.flatMap { [UInt8($0.count & 0xFF), UInt8($0.count >> 8)] }
        let superframe = packets[0] + packets[1] + [marker] + sizes + [marker]
        #expect(VP9Superframe.frames(in: superframe) == packets)
        #expect(VP9Superframe.headers(in: superframe)?.map(\.kind) == [.keyframe, .inter])
        #expect(VP9Superframe.frames(in: packets[1]) == [packets[1]])
    }

    @Test func vp9SuperframeIndexBeyondThePacketIsRefused() async {
        // Marker 0xC1: two frames, one size byte each; sizes 5 and 9 in a packet of 2 + 4 data bytes.
        #expect(VP9Superframe.frames(in: [0x82, 0x49, 0x83, 0x42, 0xC1, 5, 9, 0xC1]) == nil)
        // A last byte that looks like a marker without its twin at the index's start is frame data.
        #expect(VP9Superframe.frames(in: [0x82, 0x49, 0x83, 0xC1]) == [[0x82, 0x49, 0x83, 0xC1]])
    }

    struct AV1Case: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var bitDepth: Int
        var testDescription: String { name }
    }

    static let av1Cases: [AV1Case] = [
        AV1Case(name: "libaom 8-bit", arguments: ["-c:v", "libaom-av1", "-cpu-used", "8", "-g", "6"], bitDepth: 8),
        AV1Case(name: "libaom 10-bit", arguments: ["-c:v", "libaom-av1", "-cpu-used", "8", "-g", "6", "-pix_fmt", "yuv420p10le"], bitDepth: 10),
        AV1Case(name: "SVT-AV1 preset 12", arguments: ["-c:v", "libsvtav1", "-preset", "12", "-g", "6"], bitDepth: 8),
        AV1Case(name: "SVT-AV1 preset 12, 10-bit, BT.709 full range",
                arguments: ["-c:v", "libsvtav1", "-preset", "12", "-g", "6", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt709",
                            "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "pc"], bitDepth: 10),
    ]

    @Test(arguments: av1Cases)
    func av1SequenceHeadersStateWhatTheEncoderWasGiven(_ example: AV1Case) async throws {
        let samples = try await Self.encode(example.arguments)
        try #require(!samples.isEmpty)
        let header = try #require(AV1SequenceHeader.first(in: samples[0]), "no sequence header in the first temporal unit")
        #expect(header.profile == 0 && header.bitDepth == example.bitDepth)
        #expect(header.maxWidth >= 160 && header.maxHeight >= 90)
        #expect(header.subsamplingX == 1 && header.subsamplingY == 1 && !header.monochrome)
        if example.arguments.contains("bt709") {
            #expect(header.colorPrimaries == 1 && header.transferCharacteristics == 1 && header.matrixCoefficients == 1 && header.fullRange)
        }
        // The fields read account for the whole payload: what follows them is trailing_bits(), a one and zeros.
        var trailing = RBSPBits(rbsp: header.payload)
        #expect(trailing.skip(header.trailingBitsStart) && trailing.read(1) == 1)
        while let bit = trailing.read(1) { #expect(bit == 0) }
        let start = try #require(AV1FrameStart.first(in: samples[0], sequence: header))
        #expect(start.isShownKeyframe)
        // Every temporal unit parses; its frame is a keyframe, an inter frame or one shown again.
        for sample in samples.dropFirst() {
            #expect(AV1OBUs.units(in: sample) != nil)
            if let repeated = AV1SequenceHeader.first(in: sample) { #expect(repeated == header) }
        }
    }

    /// The field that tells SVT-AV1's presets apart, as the platform notes measured: `enable_restoration` (1 at
    /// preset 8, 0 at 12), named by `firstDifference`; the same settings give the same bytes.
    @Test func av1HeaderDifferenceIsNamedByField() async throws {
        let preset8 = try await #require(Self.encode(["-c:v", "libsvtav1", "-preset", "8", "-g", "6"], frames: 2).first.flatMap(AV1SequenceHeader.first(in:)))
        let preset12 = try await #require(Self.encode(["-c:v", "libsvtav1", "-preset", "12", "-g", "6"], frames: 2).first.flatMap(AV1SequenceHeader.first(in:)))
        let again = try await #require(Self.encode(["-c:v", "libsvtav1", "-preset", "12", "-g", "6"], frames: 2).first.flatMap(AV1SequenceHeader.first(in:)))
        #expect(preset12.firstDifference(from: again) == nil)
        #expect(preset8.firstDifference(from: preset12) == "enable_restoration")
        #expect(preset8.fields.first { $0.name == "enable_restoration" }?.value == 1)
        #expect(preset12.fields.first { $0.name == "enable_restoration" }?.value == 0)
    }

    /// AV1's clean starts are keyframes that are shown: a keyframe's temporal unit is one, with its own sequence
    /// header or the configuration's; an inter frame's is not; nor is a forward keyframe (the same unit with
    /// `show_frame` 0 — libaom and SVT-AV1 here write none, so the bit is cleared by hand).
    @Test func av1CleanStartsAreShownKeyframes() async throws {
        let samples = try await Self.encode(["-c:v", "libsvtav1", "-preset", "12", "-g", "6"], frames: 3)
        try #require(samples.count == 3)
        let sequence = try #require(AV1SequenceHeader.first(in: samples[0]))
        let rule = CleanStart(codec: nil, lengthSize: nil, av1: .init(configured: nil))
        #expect(rule.isClean(bytes: samples[0]))
        #expect(!rule.isClean(bytes: samples[1]))
        let units = try #require(AV1OBUs.units(in: samples[0]))
        let withoutHeader = units.filter { $0.kind != .sequenceHeader }.flatMap { Array($0.bytes) }
        #expect(!rule.isClean(bytes: withoutHeader), "no sequence header to read the frame by")
        #expect(CleanStart(codec: nil, lengthSize: nil, av1: .init(configured: sequence)).isClean(bytes: withoutHeader))
        let frame = try #require(units.first { $0.kind == .frame || $0.kind == .frameHeader })
        var hidden = samples[0]
        hidden[frame.payload.startIndex] &= ~0x10  // show_frame, after show_existing_frame and frame_type
        #expect(AV1FrameStart.first(in: hidden, sequence: sequence) == AV1FrameStart(kind: .key, showFrame: false))
        #expect(!rule.isClean(bytes: hidden))
    }

    /// A start code beginning in another's code byte (00 00 01 00 00 01 …) is that unit's payload, not a unit with
    /// none (its payload range ran backwards and trapped).
    @Test func mpeg2StartCodesBackToBack() async {
        let units = MPEG2Video.units(in: [0, 0, 1, 0, 0, 1, 0xB3, 0])
        #expect(units.map(\.code) == [0x00] && units.first.map { Array($0.payload) } == [0, 1, 0xB3, 0])
        #expect(MPEG2Video.units(in: [0, 0, 1, 0xB8]).map(\.payload.count) == [0])
    }

    @Test func leb128ReadsUpToEightBytesBelowTwoToThe32() async {
        func read(_ bytes: [UInt8]) -> [Int]? { AV1OBUs.leb128(bytes, at: 0).map { [$0.value, $0.length] } }
        #expect(read([0x05]) == [5, 1])
        #expect(read([0xE5, 0x8E, 0x26]) == [624_485, 3])
        #expect(read([0x80, 0x80]) == nil)  // ends mid-value
        #expect(read([UInt8](repeating: 0xFF, count: 8) + [0x01]) == nil)  // more than 8 bytes
        #expect(read([0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == nil)  // 2^35 − 1
    }

    struct MPEG2Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var width: Int, height: Int, aspect: Int, rateCode: Int, bitRate: Int, vbv: Int, chroma: Int, progressive: Bool
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let mpeg2Cases: [MPEG2Case] = [
        // 4 Mbit/s = 10000 × 400 bit/s; 1835 kbit = 112 × 16 kbit; 16:9 is code 3, 25 fps code 3.
        MPEG2Case(arguments: ["-s", "352x288", "-r", "25", "-aspect", "16:9", "-maxrate", "4M", "-bufsize", "1835k", "-b:v", "3M"],
                  width: 352, height: 288, aspect: 3, rateCode: 3, bitRate: 10000, vbv: 112, chroma: 1, progressive: true),
        // 4:2:2 interlaced NTSC: 4:3 is code 2, 30000/1001 code 4.
        MPEG2Case(arguments: ["-s", "720x480", "-r", "30000/1001", "-aspect", "4:3", "-pix_fmt", "yuv422p", "-flags", "+ildct+ilme",
                              "-maxrate", "8M", "-bufsize", "3670k", "-b:v", "6M"],
                  width: 720, height: 480, aspect: 2, rateCode: 4, bitRate: 20000, vbv: 224, chroma: 2, progressive: false),
    ]

    /// An MPEG-2 elementary stream of testsrc2.
    static func mpeg2(_ arguments: [String], frames: Int = 30) async throws -> [UInt8] {
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25", "-frames:v", "\(frames)",
                                          "-c:v", "mpeg2video", "-bf", "2", "-g", "12"] + arguments + ["-f", "mpeg2video", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return [UInt8](run.stdoutData)
    }

    @Test(arguments: mpeg2Cases)
    func mpeg2SequenceHeadersStateWhatTheEncoderWasGiven(_ example: MPEG2Case) async throws {
        let header = try await #require(MPEG2SequenceHeader.first(in: try Self.mpeg2(example.arguments, frames: 3)))
        #expect(header.width == example.width && header.height == example.height)
        #expect(header.aspectRatioInformation == example.aspect && header.frameRateCode == example.rateCode)
        #expect(header.bitRateValue == example.bitRate && header.vbvBufferSizeValue == example.vbv)
        #expect(header.chromaFormat == example.chroma && header.progressiveSequence == example.progressive)
        let other = try await #require(MPEG2SequenceHeader.first(in: try Self.mpeg2(["-s", "352x288", "-b:v", "2M"], frames: 3)))
        #expect(header.firstDifference(from: header) == nil)
        #expect(other.firstDifference(from: header) != nil)
    }

    /// mpeg2video's options for a header: its bounds, profile and level, interlacing; a stream without a bound (all
    /// ones) gets a fixed quantiser and the rate from which FFmpeg derives the same VBV size. Each, given to
    /// mpeg2video, writes the header back field for field.
    @Test(arguments: mpeg2Cases + [MPEG2Case(arguments: ["-s", "352x288", "-r", "25", "-b:v", "3M"], width: 352, height: 288, aspect: 1,
                                             rateCode: 3, bitRate: 0x3FFFF, vbv: 0, chroma: 1, progressive: true)])
    func mpeg2OptionsWriteTheHeaderBack(_ example: MPEG2Case) async throws {
        let header = try await #require(MPEG2SequenceHeader.first(in: try Self.mpeg2(example.arguments, frames: 3)))
        let options = header.encoderOptions()
        #expect(options["maxrate"] == (header.bitRateValue == 0x3FFFF ? nil : String(example.bitRate * 400)))
        #expect((options["flags"] ?? "").contains("+ildct+ilme") == !example.progressive)
        let size = ["-s", "\(header.width)x\(header.height)", "-r", example.arguments[example.arguments.firstIndex(of: "-r")! + 1]]
        let extra = example.arguments.contains("-aspect") ? ["-aspect", example.arguments[example.arguments.firstIndex(of: "-aspect")! + 1]] : []
        let pixels = example.arguments.contains("yuv422p") ? ["-pix_fmt", "yuv422p"] : []
        let flags = options.sorted { $0.key < $1.key }.flatMap { ["-\($0.key)", $0.value] }
        let again = try await #require(MPEG2SequenceHeader.first(in: try Self.mpeg2(size + extra + pixels + flags, frames: 1)))
        #expect(again.firstDifference(from: header) == nil, "\(again.firstDifference(from: header) ?? "")")
    }

    /// FFmpeg's encoder writes open GOPs after the first: the I-frame (temporal_reference 2) is followed in decode order
    /// by two B-frames shown before it. Marking such a GOP closed changes two bits, and FFmpeg's own header reader
    /// then reads it closed.
    @Test func mpeg2OpenGOPIsClosedByTwoBits() async throws {
        let stream = try await Self.mpeg2(["-b:v", "2M"])
        let units = MPEG2Video.units(in: stream)
        let groups = units.enumerated().filter { $0.element.code == MPEG2Video.groupStart }
        try #require(groups.count >= 2)
        #expect(MPEG2Video.GroupHeader(groups[0].element.payload)?.closedGOP == true)
        let second = groups[1]
        #expect(MPEG2Video.GroupHeader(second.element.payload) == MPEG2Video.GroupHeader(closed: false, broken: false))
        let pictures = units[(second.offset + 1)...].filter { $0.code == MPEG2Video.pictureStart }.prefix(3).compactMap { MPEG2Video.PictureHeader($0.payload) }
        #expect(pictures.map(\.type) == [.intra, .bidirectional, .bidirectional])
        #expect(pictures.map(\.temporalReference) == [2, 0, 1])

        let head = Array(stream[..<second.element.offset]), rest = Array(stream[second.element.offset...])
        let closed = try #require(MPEG2Video.closingFirstGOP(rest))
        #expect(closed.count == rest.count && zip(closed, rest).filter { $0 != $1 }.count == 1)
        #expect(MPEG2Video.units(in: closed).first.flatMap { MPEG2Video.GroupHeader($0.payload) } == MPEG2Video.GroupHeader(closed: true, broken: false))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let patched = folder.file("closed.m2v")
        try Data(head + closed).write(to: URL(fileURLWithPath: patched))
        let trace = try await Run.tool("ffmpeg", ["-i", patched, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let flags = trace.stderrLines.filter { $0.contains(" closed_gop ") }.map { $0.hasSuffix("= 1") }
        #expect(flags.prefix(3) == [true, true, false], "FFmpeg reads closed_gop \(flags)")

        // The same GOP without its two leading B-frames, renumbered by the I-frame's 2: FFmpeg reads 0, 3, 1, 2, ….
        let gop = MPEG2Video.units(in: closed)
        let pictureUnits = gop.filter { $0.code == MPEG2Video.pictureStart }
        let dropped = pictureUnits.dropFirst().prefix(2)
        let kept = Array(closed[..<dropped.first!.offset]) + Array(closed[(gop.first { $0.offset > dropped.last!.offset }?.offset ?? closed.count)...])
        let renumbered = MPEG2Video.renumberingPictures(kept, by: 2)
        try Data(head + renumbered).write(to: URL(fileURLWithPath: patched))
        let again = try await Run.tool("ffmpeg", ["-v", "trace", "-i", patched, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let references = again.stderrLines.filter { $0.contains(" temporal_reference ") }.compactMap { Int($0.split(separator: " ").last ?? "") }
        let firstGroupSize = MPEG2Video.units(in: head).filter { $0.code == MPEG2Video.pictureStart }.count
        #expect(references.dropFirst(firstGroupSize).prefix(4) == [0, 3, 1, 2], "FFmpeg reads \(references)")
    }

    static let bytes = Gen.int(in: 0...255).map { UInt8($0) }.array(of: 0...48)

    /// Any bytes — and any prefix or one-byte change of a real header — give a header or nil.
    @Test func anyBytesGiveAHeaderOrNil() async throws {
        let vp9 = try await Self.encode(["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"], frames: 1).first ?? []
        let av1 = try await Self.encode(["-c:v", "libsvtav1", "-preset", "12"], frames: 1).first ?? []
        let mpeg2 = try await Self.mpeg2(["-b:v", "1M"], frames: 14)
        let sequence = AV1SequenceHeader.first(in: av1)
        try #require(sequence != nil && !vp9.isEmpty)
        await propertyCheck(count: 1000, input: Self.bytes, Gen.int(in: 0...4096), Gen.int(in: 0...255), Gen.int(in: 0...3)) { noise, at, value, source in
            var bytes = noise
            if source > 0 {
                // A real header cut at `at` with one byte changed.
                let real = [vp9, av1, mpeg2][source - 1]
                bytes = Array(real.prefix(at % (real.count + 1)))
                if !bytes.isEmpty { bytes[at % bytes.count] = UInt8(value) }
            }
            _ = VP9FrameHeader(bytes)
            _ = VP9Superframe.headers(in: bytes)
            if let units = AV1OBUs.units(in: bytes) {
                #expect(units.reduce(0) { $0 + $1.bytes.count } == bytes.count)
            }
            _ = AV1SequenceHeader(bytes)
            _ = MPEG2SequenceHeader.first(in: bytes)
            for unit in MPEG2Video.units(in: bytes) {
                _ = MPEG2Video.PictureHeader(unit.payload)
                _ = MPEG2Video.GroupHeader(unit.payload)
            }
            if let closed = MPEG2Video.closingFirstGOP(bytes) {
                #expect(closed.count == bytes.count && zip(closed, bytes).filter { $0 != $1 }.count <= 1)
            }
            // Renumbering touches only pictures' first two payload bytes, and by 0 (or 1024) nothing.
            let renumbered = MPEG2Video.renumberingPictures(bytes, by: value)
            let pictureBytes = Set(MPEG2Video.units(in: bytes).filter { $0.code == MPEG2Video.pictureStart }.flatMap { [$0.offset + 4, $0.offset + 5] })
            #expect(renumbered.count == bytes.count && renumbered.indices.allSatisfy { renumbered[$0] == bytes[$0] || pictureBytes.contains($0) })
            #expect(MPEG2Video.renumberingPictures(bytes, by: 1024) == bytes)
            // Bases far outside 10 bits renumber as their remainder does.
            #expect(MPEG2Video.renumberingPictures(bytes, by: Int.min) == MPEG2Video.renumberingPictures(bytes, by: Int(Int.min % 1024 + 1024)))
            #expect(MPEG2Video.renumberingPictures(bytes, by: Int.max) == MPEG2Video.renumberingPictures(bytes, by: Int.max % 1024))
            _ = MPEG2Video.isSplicePoint(bytes)
            for codec in [AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1, AV_CODEC_ID_MPEG2VIDEO] {
                if let header = StreamHeader.read(codec: codec, keyframe: bytes) {
                    #expect(header.mismatch(edge: header) == nil)
                    _ = header.configuration
                    _ = header.encoderOptions(codec == AV_CODEC_ID_MPEG2VIDEO ? "mpeg2video" : "libaom-av1")
                }
            }
            if let parsed = AV1SequenceHeader.first(in: bytes), let sequence {
                _ = parsed.firstDifference(from: sequence)
                _ = AV1FrameStart.first(in: bytes, sequence: parsed)
            }
        }
    }

    /// What a smart cut compares and writes of a frame-spliced stream's header: a 10-bit VP9 keyframe is not an 8-bit
    /// one's (the field named), an AV1 header's configuration is its OBU with a size field, and its tools become the
    /// encoders' options.
    @Test func streamHeadersCompareByTheFieldsDecodersTake() async throws {
        let eight = try await #require(Self.encode(["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"], frames: 1).first)
        let ten = try await #require(Self.encode(["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p10le"], frames: 1).first)
        let source = try #require(StreamHeader.read(codec: AV_CODEC_ID_VP9, keyframe: eight))
        let edge = StreamHeader.read(codec: AV_CODEC_ID_VP9, keyframe: ten)
        #expect(source.mismatch(edge: edge) == .parameterMismatch(field: "VP9 profile", source: "0", edge: "2"))
        #expect(source.mismatch(edge: source) == nil && source.configuration == nil)
        #expect(source.mismatch(edge: nil) != nil)

        let av1 = try await #require(Self.encode(["-c:v", "libsvtav1", "-preset", "12", "-g", "6"], frames: 1).first)
        let header = try #require(StreamHeader.read(codec: AV_CODEC_ID_AV1, keyframe: av1))
        let unit = try #require(header.configuration)
        // The configuration is one sequence header OBU whose payload is the in-stream one.
        let units = try #require(AV1OBUs.units(in: unit))
        #expect(units.count == 1 && units[0].kind == .sequenceHeader && StreamHeader.read(codec: AV_CODEC_ID_AV1, keyframe: unit) == header)
        #expect(header.encoderOptions("libsvtav1")["svtav1-params"] == "enable-restoration=0:chroma-sample-position=0")
        let aom = header.encoderOptions("libaom-av1")
        #expect(aom["enable-cdef"] != nil && aom["aom-params"]?.contains("sb-size=64") == true)
        #expect(StreamHeader.read(codec: AV_CODEC_ID_VP8, keyframe: av1) == nil)
        #expect(header.mismatch(edge: source) != nil)
    }

    /// A 130-byte payload needs a two-byte leb128 size.
    @Test func sequenceHeaderUnitsCarryTheirSize() async {
        let unit = AV1OBUs.sequenceHeaderUnit(payload: Array(repeating: 7, count: 130))
        #expect(Array(unit.prefix(3)) == [0x0A, 0x82, 0x01] && unit.count == 133)
    }
}
