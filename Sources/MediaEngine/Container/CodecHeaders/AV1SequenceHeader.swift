/// AV1's open bitstream units (AV1 specification 1.0.0 with errata, §5.3) as MP4 (`av1C` samples), Matroska and
/// WebM carry them: each with a size field (the low-overhead format). A smart cut's edges must carry a sequence
/// header byte-identical to the source's in-stream one, and copy only from keyframes that are shown.
/// Parsed by hand: libavcodec's CBS reader is not public API. Every read is bounded by the bytes given.
enum AV1OBUs {
    enum Kind: Int, Sendable {
        case sequenceHeader = 1, temporalDelimiter = 2, frameHeader = 3, tileGroup = 4, metadata = 5, frame = 6,
             redundantFrameHeader = 7, tileList = 8, padding = 15
    }

    struct Unit: Equatable, Sendable {
        /// nil for the reserved types (which decoders ignore).
        var kind: Kind?
        var type: Int
        /// The whole unit: header, size field and payload.
        var bytes: ArraySlice<UInt8>
        var payload: ArraySlice<UInt8>
    }

    /// The units of one sample (a temporal unit) in order; nil when a header or a size runs past the end.
    static func units(in sample: [UInt8]) -> [Unit]? {
        var units: [Unit] = []
        var offset = 0
        while offset < sample.count {
            let header = sample[offset]
            guard header & 0x80 == 0 else { return nil }  // obu_forbidden_bit
            let type = Int(header >> 3 & 0x0F)
            let hasExtension = header & 0x04 != 0, hasSize = header & 0x02 != 0
            var position = offset + 1 + (hasExtension ? 1 : 0)
            guard position <= sample.count else { return nil }
            let size: Int
            if hasSize {
                guard let (value, length) = leb128(sample, at: position) else { return nil }
                position += length
                guard value <= sample.count - position else { return nil }
                size = value
            } else {
                size = sample.count - position
            }
            let end = position + size
            units.append(Unit(kind: Kind(rawValue: type), type: type, bytes: sample[offset..<end], payload: sample[position..<end]))
            offset = end
        }
        return units
    }

    /// A `leb128()` value and its length in bytes (at most 8, the value below 2^32 as the specification requires).
    static func leb128(_ bytes: [UInt8], at start: Int) -> (value: Int, length: Int)? {
        var value = 0
        for index in 0..<8 {
            guard start + index < bytes.count else { return nil }
            let byte = bytes[start + index]
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 {
                return value <= Int(UInt32.max) ? (value, index + 1) : nil
            }
        }
        return nil
    }
}

/// An AV1 sequence header (§5.5): every field, so the first one an edge's encoder does not reproduce can be named.
struct AV1SequenceHeader: Equatable, Sendable {
    /// The payload as it was read: what an edge's header is compared with, byte for byte.
    var payload: [UInt8]
    var profile: Int
    var stillPicture: Bool
    var reducedStillPictureHeader: Bool
    var levels: [Int]
    var tiers: [Int]
    var maxWidth: Int
    var maxHeight: Int
    var frameIdNumbersPresent: Bool
    var bitDepth: Int
    var monochrome: Bool
    var colorPrimaries: Int
    var transferCharacteristics: Int
    var matrixCoefficients: Int
    var fullRange: Bool
    var subsamplingX: Int
    var subsamplingY: Int
    /// The coding tools and the other fields, named as the specification names them, in the order they are coded
    /// (`use_128x128_superblock`, `enable_filter_intra`, … `film_grain_params_present`).
    var fields: [(name: String, value: Int)]
    /// The bit after the last field: where `trailing_bits()` begin.
    var trailingBitsStart: Int

    static func == (a: AV1SequenceHeader, b: AV1SequenceHeader) -> Bool { a.payload == b.payload }

    /// The first field, by the specification's name, where `other` differs; "the header's bytes" where every field
    /// read matches but the bytes do not (trailing bits); nil when identical.
    func firstDifference(from other: AV1SequenceHeader) -> String? {
        guard payload != other.payload else { return nil }
        for (mine, theirs) in zip(fields, other.fields) where mine.name != theirs.name || mine.value != theirs.value {
            return mine.name
        }
        return fields.count == other.fields.count ? "the header's bytes" : "the header's fields"
    }

    /// The sequence header of a temporal unit, or nil when it has none or it is damaged.
    static func first(in sample: [UInt8]) -> AV1SequenceHeader? {
        guard let unit = AV1OBUs.units(in: sample)?.first(where: { $0.kind == .sequenceHeader }) else { return nil }
        return AV1SequenceHeader(Array(unit.payload))
    }

    init?(_ payload: [UInt8]) {
        var bits = RBSPBits(rbsp: payload)
        var fields: [(String, Int)] = []
        func read(_ name: String, _ count: Int) -> Int? {
            guard let value = bits.read(count) else { return nil }
            fields.append((name, value))
            return value
        }
        guard let profile = read("seq_profile", 3), profile <= 2, let still = read("still_picture", 1),
              let reduced = read("reduced_still_picture_header", 1) else { return nil }
        var levels: [Int] = [], tiers: [Int] = []
        if reduced == 1 {
            guard let level = read("seq_level_idx[0]", 5) else { return nil }
            (levels, tiers) = ([level], [0])
        } else {
            guard let timing = read("timing_info_present_flag", 1) else { return nil }
            var decoderModel = 0, bufferDelayLength = 0
            if timing == 1 {
                guard read("num_units_in_display_tick", 32) != nil, read("time_scale", 32) != nil,
                      let equal = read("equal_picture_interval", 1) else { return nil }
                if equal == 1 { guard Self.readUVLC(&bits, into: &fields, name: "num_ticks_per_picture_minus_1") else { return nil } }
                guard let present = read("decoder_model_info_present_flag", 1) else { return nil }
                decoderModel = present
                if present == 1 {
                    guard let length = read("buffer_delay_length_minus_1", 5), read("num_units_in_decoding_tick", 32) != nil,
                          read("buffer_removal_time_length_minus_1", 5) != nil, read("frame_presentation_time_length_minus_1", 5) != nil
                    else { return nil }
                    bufferDelayLength = length + 1
                }
            }
            guard let initialDisplayDelay = read("initial_display_delay_present_flag", 1),
                  let points = read("operating_points_cnt_minus_1", 5) else { return nil }
            for point in 0...points {
                guard read("operating_point_idc[\(point)]", 12) != nil, let level = read("seq_level_idx[\(point)]", 5) else { return nil }
                levels.append(level)
                if level > 7 {
                    guard let tier = read("seq_tier[\(point)]", 1) else { return nil }
                    tiers.append(tier)
                } else {
                    tiers.append(0)
                }
                if decoderModel == 1 {
                    guard let present = read("decoder_model_present_for_this_op[\(point)]", 1) else { return nil }
                    if present == 1 {
                        guard read("decoder_buffer_delay[\(point)]", bufferDelayLength) != nil,
                              read("encoder_buffer_delay[\(point)]", bufferDelayLength) != nil,
                              read("low_delay_mode_flag[\(point)]", 1) != nil else { return nil }
                    }
                }
                if initialDisplayDelay == 1 {
                    guard let present = read("initial_display_delay_present_for_this_op[\(point)]", 1) else { return nil }
                    if present == 1 { guard read("initial_display_delay_minus_1[\(point)]", 4) != nil else { return nil } }
                }
            }
        }
        guard let widthBits = read("frame_width_bits_minus_1", 4), let heightBits = read("frame_height_bits_minus_1", 4),
              let maxWidth = read("max_frame_width_minus_1", widthBits + 1), let maxHeight = read("max_frame_height_minus_1", heightBits + 1)
        else { return nil }
        var frameIds = 0
        if reduced == 0 {
            guard let present = read("frame_id_numbers_present_flag", 1) else { return nil }
            frameIds = present
        }
        if frameIds == 1 {
            guard read("delta_frame_id_length_minus_2", 4) != nil, read("additional_frame_id_length_minus_1", 3) != nil else { return nil }
        }
        guard read("use_128x128_superblock", 1) != nil, read("enable_filter_intra", 1) != nil,
              read("enable_intra_edge_filter", 1) != nil else { return nil }
        if reduced == 0 {
            guard read("enable_interintra_compound", 1) != nil, read("enable_masked_compound", 1) != nil,
                  read("enable_warped_motion", 1) != nil, read("enable_dual_filter", 1) != nil,
                  let orderHint = read("enable_order_hint", 1) else { return nil }
            if orderHint == 1 {
                guard read("enable_jnt_comp", 1) != nil, read("enable_ref_frame_mvs", 1) != nil else { return nil }
            }
            guard let chooseScreenContent = read("seq_choose_screen_content_tools", 1) else { return nil }
            var forceScreenContent = 2
            if chooseScreenContent == 0 {
                guard let force = read("seq_force_screen_content_tools", 1) else { return nil }
                forceScreenContent = force
            }
            if forceScreenContent > 0 {
                guard let chooseIntegerMV = read("seq_choose_integer_mv", 1) else { return nil }
                if chooseIntegerMV == 0 { guard read("seq_force_integer_mv", 1) != nil else { return nil } }
            }
            if orderHint == 1 { guard read("order_hint_bits_minus_1", 3) != nil else { return nil } }
        }
        guard read("enable_superres", 1) != nil, read("enable_cdef", 1) != nil, read("enable_restoration", 1) != nil else { return nil }

        // color_config()
        guard let highBitDepth = read("high_bitdepth", 1) else { return nil }
        var bitDepth = highBitDepth == 1 ? 10 : 8
        if profile == 2, highBitDepth == 1 {
            guard let twelve = read("twelve_bit", 1) else { return nil }
            bitDepth = twelve == 1 ? 12 : 10
        }
        var monochrome = 0
        if profile != 1 {
            guard let mono = read("mono_chrome", 1) else { return nil }
            monochrome = mono
        }
        guard let described = read("color_description_present_flag", 1) else { return nil }
        var (primaries, transfer, matrix) = (2, 2, 2)
        if described == 1 {
            guard let p = read("color_primaries", 8), let t = read("transfer_characteristics", 8), let m = read("matrix_coefficients", 8) else { return nil }
            (primaries, transfer, matrix) = (p, t, m)
        }
        var fullRange = 0, subsamplingX = 1, subsamplingY = 1
        if monochrome == 1 {
            guard let range = read("color_range", 1) else { return nil }
            fullRange = range
        } else if primaries == 1, transfer == 13, matrix == 0 {
            // sRGB: 4:4:4, full range, nothing more coded.
            (fullRange, subsamplingX, subsamplingY) = (1, 0, 0)
        } else {
            guard let range = read("color_range", 1) else { return nil }
            fullRange = range
            switch profile {
            case 0: (subsamplingX, subsamplingY) = (1, 1)
            case 1: (subsamplingX, subsamplingY) = (0, 0)
            default:
                if bitDepth == 12 {
                    guard let x = read("subsampling_x", 1) else { return nil }
                    subsamplingX = x
                    if x == 1 {
                        guard let y = read("subsampling_y", 1) else { return nil }
                        subsamplingY = y
                    } else {
                        subsamplingY = 0
                    }
                } else {
                    (subsamplingX, subsamplingY) = (1, 0)
                }
            }
            if subsamplingX == 1, subsamplingY == 1 { guard read("chroma_sample_position", 2) != nil else { return nil } }
        }
        if monochrome == 0 { guard read("separate_uv_delta_q", 1) != nil else { return nil } }
        guard read("film_grain_params_present", 1) != nil else { return nil }

        self.payload = payload
        self.profile = profile
        stillPicture = still == 1
        reducedStillPictureHeader = reduced == 1
        self.levels = levels
        self.tiers = tiers
        self.maxWidth = maxWidth + 1
        self.maxHeight = maxHeight + 1
        frameIdNumbersPresent = frameIds == 1
        self.bitDepth = bitDepth
        self.monochrome = monochrome == 1
        colorPrimaries = primaries
        transferCharacteristics = transfer
        matrixCoefficients = matrix
        self.fullRange = fullRange == 1
        self.subsamplingX = subsamplingX
        self.subsamplingY = subsamplingY
        self.fields = fields.map { (name: $0.0, value: $0.1) }
        trailingBitsStart = bits.position
    }

    /// `uvlc()` (§4.10.3): leading zeros, then as many bits; at 32 or more zeros the value is 2^32 − 1.
    private static func readUVLC(_ bits: inout RBSPBits, into fields: inout [(String, Int)], name: String) -> Bool {
        var leadingZeros = 0
        while true {
            guard let bit = bits.read(1) else { return false }
            if bit == 1 { break }
            leadingZeros += 1
            if leadingZeros >= 32 {
                fields.append((name, Int(UInt32.max)))
                return true
            }
        }
        guard let rest = bits.read(leadingZeros) else { return false }
        fields.append((name, rest + (1 << leadingZeros) - 1))
        return true
    }
}

/// The first fields of an AV1 frame header (§5.9.2): which frames a copy may start at.
struct AV1FrameStart: Equatable, Sendable {
    enum Kind: Int, Sendable { case key = 0, inter = 1, intraOnly = 2, switchFrame = 3 }

    /// nil for `show_existing_frame` (a frame decoded earlier shown again: no place to start a copy).
    var kind: Kind?
    var showFrame: Bool

    /// A keyframe that is shown, not a forward keyframe shown later by `show_existing_frame`.
    var isShownKeyframe: Bool { kind == .key && showFrame }

    /// The frame header of a temporal unit's first frame (OBU_FRAME or OBU_FRAME_HEADER); nil when it has none
    /// or it ends first.
    static func first(in sample: [UInt8], sequence: AV1SequenceHeader) -> AV1FrameStart? {
        guard let unit = AV1OBUs.units(in: sample)?.first(where: { $0.kind == .frame || $0.kind == .frameHeader }) else { return nil }
        return AV1FrameStart(Array(unit.payload), sequence: sequence)
    }

    init(kind: Kind?, showFrame: Bool) {
        (self.kind, self.showFrame) = (kind, showFrame)
    }

    init?(_ payload: [UInt8], sequence: AV1SequenceHeader) {
        if sequence.reducedStillPictureHeader {
            (kind, showFrame) = (.key, true)
            return
        }
        var bits = RBSPBits(rbsp: payload)
        guard let showExisting = bits.read(1) else { return nil }
        if showExisting == 1 {
            (kind, showFrame) = (nil, true)
            return
        }
        guard let type = bits.read(2).flatMap(Kind.init(rawValue:)), let shown = bits.read(1) else { return nil }
        (kind, showFrame) = (type, shown == 1)
    }
}
