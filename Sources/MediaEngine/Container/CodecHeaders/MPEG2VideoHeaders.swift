/// MPEG-2 video's headers (ISO/IEC 13818-2 §6.2) as camera and broadcast MPEG-TS carry them: what a smart cut's
/// edges must repeat (the sequence header and its extension: size, aspect, frame rate, chroma, bit-rate and VBV
/// bounds) and what it must change in a copied open GOP whose leading B-frames it re-encoded (`closed_gop`).
/// Parsed by hand: libavcodec's CBS reader is not public API. Every read is bounded by the bytes given.
enum MPEG2Video {
    /// Start codes (the byte after 00 00 01).
    static let pictureStart: UInt8 = 0x00
    static let sequenceHeaderCode: UInt8 = 0xB3
    static let extensionStart: UInt8 = 0xB5
    static let sequenceEndCode: UInt8 = 0xB7
    static let groupStart: UInt8 = 0xB8

    /// A start code and what follows it up to the next one.
    struct Unit: Equatable, Sendable {
        var code: UInt8
        /// Where its `00 00 01` begins in the bytes given.
        var offset: Int
        /// The bytes after the start code's 4 bytes.
        var payload: ArraySlice<UInt8>
    }

    /// The units of `bytes`, in order; bytes before the first start code are not a unit.
    static func units(in bytes: [UInt8]) -> [Unit] {
        var starts: [Int] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                starts.append(index)
                // Past the code byte, which is the unit's: a start code beginning inside it would leave the unit
                // no payload (its bytes 00 00 01 00 00 01 …).
                index += 4
            } else {
                index += 1
            }
        }
        return starts.enumerated().map { number, start in
            let end = number + 1 < starts.count ? starts[number + 1] : bytes.count
            return Unit(code: bytes[start + 3], offset: start, payload: bytes[(start + 4)..<end])
        }
    }

    enum PictureType: Int, Sendable { case intra = 1, predicted = 2, bidirectional = 3, dcIntra = 4 }

    /// A picture header's start: `temporal_reference` (its place in display order within the GOP) and its type.
    struct PictureHeader: Equatable, Sendable {
        var temporalReference: Int
        var type: PictureType

        init?(_ payload: ArraySlice<UInt8>) {
            var bits = RBSPBits(rbsp: Array(payload.prefix(2)))
            guard let reference = bits.read(10), let type = bits.read(3).flatMap(PictureType.init(rawValue:)) else { return nil }
            (temporalReference, self.type) = (reference, type)
        }
    }

    /// A group of pictures header: its flags say whether its leading B-frames may be decoded.
    struct GroupHeader: Equatable, Sendable {
        var closedGOP: Bool
        var brokenLink: Bool

        init(closed: Bool, broken: Bool) {
            (closedGOP, brokenLink) = (closed, broken)
        }

        init?(_ payload: ArraySlice<UInt8>) {
            var bits = RBSPBits(rbsp: Array(payload.prefix(4)))
            guard bits.skip(25), let closed = bits.read(1), let broken = bits.read(1) else { return nil }
            (closedGOP, brokenLink) = (closed == 1, broken == 1)
        }
    }

    /// `bytes` with its first GOP header marked closed (`closed_gop` 1, `broken_link` 0): for a copied GOP whose
    /// leading B-frames (which referred to the GOP before) were re-encoded into the edge and dropped from the copy.
    /// nil when `bytes` holds no whole GOP header. The flags are two bits of the header's fourth byte.
    static func closingFirstGOP(_ bytes: [UInt8]) -> [UInt8]? {
        guard let group = units(in: bytes).first(where: { $0.code == groupStart }), group.payload.count >= 4 else { return nil }
        var patched = bytes
        let flags = group.offset + 4 + 3
        patched[flags] = (patched[flags] | 0x40) & ~0x20  // closed_gop = 1 (bit 25), broken_link = 0 (bit 26)
        return patched
    }

    /// `bytes` with every picture header's `temporal_reference` lowered by `base` (modulo 1024, its 10 bits): for
    /// the pictures of a copied GOP whose leading B-frames were dropped, so its first shown picture — the I-frame,
    /// `base` before — is 0 again, as a closed GOP's first shown picture must be. Unchanged when `base` is 0.
    static func renumberingPictures(_ bytes: [UInt8], by base: Int) -> [UInt8] {
        // Any base, as a count modulo 1024 (no subtraction below can overflow).
        let shift = (base % 1024 + 1024) % 1024
        guard shift != 0 else { return bytes }
        var patched = bytes
        for unit in units(in: bytes) where unit.code == pictureStart && unit.payload.count >= 2 {
            let at = unit.offset + 4
            let reference = Int(patched[at]) << 2 | Int(patched[at + 1] >> 6)
            let renumbered = (reference - shift + 1024) % 1024
            patched[at] = UInt8(renumbered >> 2)
            patched[at + 1] = UInt8((renumbered & 3) << 6) | patched[at + 1] & 0x3F
        }
        return patched
    }

    /// The first picture's header in `bytes`, or nil.
    static func firstPicture(in bytes: [UInt8]) -> PictureHeader? {
        units(in: bytes).first { $0.code == pictureStart }.flatMap { PictureHeader($0.payload) }
    }

    /// Whether a packet can begin a smart cut's copy after re-encoded frames: it repeats the sequence header, opens a
    /// group of pictures, and its first picture is an I-frame (its leading B-frames, if any, go to the edge).
    static func isSplicePoint(_ bytes: [UInt8]) -> Bool {
        let found = units(in: bytes)
        guard found.contains(where: { $0.code == sequenceHeaderCode }), found.contains(where: { $0.code == groupStart }),
              let picture = found.first(where: { $0.code == pictureStart }).flatMap({ PictureHeader($0.payload) }) else { return false }
        return picture.type == .intra
    }
}

/// The sequence header with its extension (MPEG-2; an MPEG-1 stream has none): every field an edge must repeat,
/// named as the standard names them, so the first difference can be named.
struct MPEG2SequenceHeader: Equatable, Sendable {
    var width: Int
    var height: Int
    var aspectRatioInformation: Int
    var frameRateCode: Int
    /// In 400 bit/s units, the extension's high bits included.
    var bitRateValue: Int
    /// In 16 kbit units, the extension's high bits included.
    var vbvBufferSizeValue: Int
    var profileAndLevel: Int?
    var progressiveSequence: Bool?
    /// 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4.
    var chromaFormat: Int?
    var lowDelay: Bool?
    var intraQuantiserMatrix: [Int]?
    var nonIntraQuantiserMatrix: [Int]?
    /// Every field read, in coding order (quantiser matrices as one field each).
    var fields: [(name: String, value: Int)]
    /// The header's units as they were read (start codes included): the sequence header and its extension.
    var units: [UInt8] = []

    static func == (a: MPEG2SequenceHeader, b: MPEG2SequenceHeader) -> Bool {
        a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    /// The first field, by the standard's name, whose value differs from `other`'s; nil when every field matches.
    func firstDifference(from other: MPEG2SequenceHeader) -> String? {
        for (mine, theirs) in zip(fields, other.fields) where mine.name != theirs.name || mine.value != theirs.value {
            return mine.name
        }
        return fields.count == other.fields.count ? nil : (fields.count > other.fields.count ? fields[other.fields.count].name : other.fields[fields.count].name)
    }

    /// The first sequence header of `bytes` (an elementary stream or a packet) with its extension; nil when there is
    /// none or it ends early.
    static func first(in bytes: [UInt8]) -> MPEG2SequenceHeader? {
        let units = MPEG2Video.units(in: bytes)
        guard let index = units.firstIndex(where: { $0.code == MPEG2Video.sequenceHeaderCode }) else { return nil }
        let following = units.dropFirst(index + 1).first
        let sequenceExtension = following.flatMap { $0.code == MPEG2Video.extensionStart && ($0.payload.first ?? 0) >> 4 == 1 ? $0.payload : nil }
        var header = MPEG2SequenceHeader(units[index].payload, extension: sequenceExtension)
        let end = sequenceExtension.map { $0.endIndex } ?? units[index].payload.endIndex
        header?.units = Array(bytes[units[index].offset..<end])
        return header
    }

    /// A field's value by the standard's name (its first occurrence), or nil when the header has none.
    func value(_ name: String) -> Int? { fields.first { $0.name == name }?.value }

    /// The unspecified bit rate (`bit_rate_value` all ones, no extension bits: variable rate with no stated bound).
    static let unspecifiedBitRate = 0x3FFFF

    /// mpeg2video's options that write this header: the bit-rate bound and VBV size, profile and level, and
    /// interlaced coding for an interlaced sequence. The size, aspect and frame rate come from the encoder's settings
    /// (the source's); the quantiser matrices cannot be set through options (FFmpeg's defaults), so a source with its
    /// own fails the trial's comparison and falls back naming them.
    /// The quality: at the stated bound the rate control fills it (an edge is at most a GOP, at or above the source's
    /// quality); with no bound stated, a fixed quantiser of 2.
    func encoderOptions() -> [String: String] {
        var options: [String: String] = [:]
        // The edge's one GOP is closed without `+cgop` (FFmpeg closes the first; +cgop needs scene detection off).
        var flags: [String] = []
        if bitRateValue == Self.unspecifiedBitRate {
            // No bound: a fixed quantiser. FFmpeg takes a buffer size only with a bound, and otherwise derives the VBV
            // size from the bit rate (20 × rate / 575964 in 8 KiB units, rounded up to 16 KiB): the rate here only
            // makes that the source's.
            flags.append("+qscale")
            options["global_quality"] = String(2 * 118)  // FF_QP2LAMBDA × 2
            options["b"] = String(Int((Double(vbvBufferSizeValue) * 57596.4).rounded(.up)))
        } else {
            let rate = String(bitRateValue * 400)
            (options["b"], options["maxrate"], options["bufsize"]) = (rate, rate, String(vbvBufferSizeValue * 16384))
        }
        if let profileAndLevel {
            // The escape bit marks the 4:2:2 profile (FFmpeg's profile 0), whose 3 profile bits are 0 too.
            options["profile"] = String(profileAndLevel >> 4 & 7)
            options["level"] = String(profileAndLevel & 0xF)
        }
        if progressiveSequence == false { flags.append("+ildct+ilme") }
        if !flags.isEmpty { options["flags"] = flags.joined() }
        return options
    }

    init?(_ payload: ArraySlice<UInt8>, extension sequenceExtension: ArraySlice<UInt8>?) {
        var bits = RBSPBits(rbsp: Array(payload))
        var fields: [(String, Int)] = []
        func read(_ name: String, _ count: Int) -> Int? {
            guard let value = bits.read(count) else { return nil }
            fields.append((name, value))
            return value
        }
        func matrix(_ name: String) -> [Int]? {
            guard let load = read("load_\(name)", 1) else { return nil }
            guard load == 1 else { return [] }
            var values: [Int] = []
            for _ in 0..<64 {
                guard let value = bits.read(8) else { return nil }
                values.append(value)
            }
            // One field for the whole matrix: equal matrices give equal values.
            fields.append((name, values.reduce(0) { ($0 &* 31) &+ $1 }))
            return values
        }
        guard let width = read("horizontal_size_value", 12), let height = read("vertical_size_value", 12),
              let aspect = read("aspect_ratio_information", 4), let rate = read("frame_rate_code", 4),
              let bitRate = read("bit_rate_value", 18), bits.read(1) == 1, let vbv = read("vbv_buffer_size_value", 10),
              read("constrained_parameters_flag", 1) != nil,
              let intra = matrix("intra_quantiser_matrix"), let nonIntra = matrix("non_intra_quantiser_matrix")
        else { return nil }
        (self.width, self.height, aspectRatioInformation, frameRateCode) = (width, height, aspect, rate)
        (bitRateValue, vbvBufferSizeValue) = (bitRate, vbv)
        intraQuantiserMatrix = intra.isEmpty ? nil : intra
        nonIntraQuantiserMatrix = nonIntra.isEmpty ? nil : nonIntra
        if let sequenceExtension {
            bits = RBSPBits(rbsp: Array(sequenceExtension))
            guard bits.read(4) == 1, let profile = read("profile_and_level_indication", 8), let progressive = read("progressive_sequence", 1),
                  let chroma = read("chroma_format", 2), let widthHigh = read("horizontal_size_extension", 2),
                  let heightHigh = read("vertical_size_extension", 2), let bitRateHigh = read("bit_rate_extension", 12), bits.read(1) == 1,
                  let vbvHigh = read("vbv_buffer_size_extension", 8), let lowDelay = read("low_delay", 1),
                  read("frame_rate_extension_n", 2) != nil, read("frame_rate_extension_d", 5) != nil
            else { return nil }
            self.width |= widthHigh << 12
            self.height |= heightHigh << 12
            bitRateValue |= bitRateHigh << 18
            vbvBufferSizeValue |= vbvHigh << 10
            (profileAndLevel, progressiveSequence, chromaFormat, self.lowDelay) = (profile, progressive == 1, chroma, lowDelay == 1)
        }
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }
}
