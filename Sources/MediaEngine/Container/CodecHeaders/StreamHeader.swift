import CAV

/// What a frame-spliced codec's decoder takes from the stream rather than from each frame's data, as a source
/// keyframe (or an edge's first frame) states it: VP9's profile and colour configuration, VP8's version, AV1's
/// sequence header, MPEG-2's sequence header and its extension. A smart cut's edges must state exactly the source's — decoders do not check (a 10-bit VP9 edge
/// before 8-bit frames decodes without an error), and the output's one configuration record (`vpcC`, `av1C`,
/// CodecPrivate) describes every frame.
enum StreamHeader: Equatable, Sendable {
    case vp8(version: Int)
    case vp9(profile: Int, color: VP9FrameHeader.ColorConfig)
    case av1(AV1SequenceHeader)
    case mpeg2(MPEG2SequenceHeader)

    /// The header a keyframe sample states; nil when the sample holds none or it is damaged.
    static func read(codec: AVCodecID, keyframe sample: [UInt8]) -> StreamHeader? {
        switch codec {
        case AV_CODEC_ID_VP8:
            // The frame tag: bit 0 clear on a keyframe, the version in bits 1–3, then the start code.
            guard sample.count >= 10, sample[0] & 1 == 0, sample[3...5].elementsEqual([0x9D, 0x01, 0x2A]) else { return nil }
            return .vp8(version: Int(sample[0] >> 1 & 7))
        case AV_CODEC_ID_VP9:
            guard let header = VP9Superframe.frames(in: sample)?.first.flatMap(VP9FrameHeader.init), header.kind == .keyframe,
                  let color = header.color else { return nil }
            return .vp9(profile: header.profile, color: color)
        case AV_CODEC_ID_AV1:
            return AV1SequenceHeader.first(in: sample).map { .av1($0) }
        case AV_CODEC_ID_MPEG2VIDEO:
            return MPEG2SequenceHeader.first(in: sample).map { .mpeg2($0) }
        default:
            return nil
        }
    }

    /// Why an edge whose first frame states `edge` cannot be spliced into this source; nil when it states the same.
    func mismatch(edge: StreamHeader?) -> SmartFallback? {
        guard let edge else { return .parameterMismatch(field: "stream header", source: "present", edge: "none") }
        switch (self, edge) {
        case let (.vp8(source), .vp8(made)):
            return source == made ? nil : .parameterMismatch(field: "VP8 version", source: "\(source)", edge: "\(made)")
        case let (.vp9(sourceProfile, source), .vp9(edgeProfile, made)):
            if sourceProfile != edgeProfile { return .parameterMismatch(field: "VP9 profile", source: "\(sourceProfile)", edge: "\(edgeProfile)") }
            if source.bitDepth != made.bitDepth { return .parameterMismatch(field: "bit depth", source: "\(source.bitDepth)", edge: "\(made.bitDepth)") }
            if source.colorSpace != made.colorSpace {
                return .parameterMismatch(field: "VP9 color_space", source: "\(source.colorSpace)", edge: "\(made.colorSpace)")
            }
            if source.fullRange != made.fullRange {
                return .parameterMismatch(field: "VP9 color_range", source: source.fullRange ? "full" : "studio", edge: made.fullRange ? "full" : "studio")
            }
            if (source.subsamplingX, source.subsamplingY) != (made.subsamplingX, made.subsamplingY) {
                return .parameterMismatch(field: "chroma subsampling", source: "\(source.subsamplingX),\(source.subsamplingY)",
                                          edge: "\(made.subsamplingX),\(made.subsamplingY)")
            }
            return nil
        case let (.av1(source), .av1(made)):
            guard let field = made.firstDifference(from: source) else { return nil }
            return .parameterMismatch(field: "AV1 sequence header \(field)", source: source.value(field).map(String.init) ?? "?",
                                      edge: made.value(field).map(String.init) ?? "?")
        case let (.mpeg2(source), .mpeg2(made)):
            guard let field = made.firstDifference(from: source) else { return nil }
            return .parameterMismatch(field: "MPEG-2 sequence header \(field)", source: source.value(field).map(String.init) ?? "none",
                                      edge: made.value(field).map(String.init) ?? "none")
        default:
            return .parameterMismatch(field: "stream header", source: "\(self)", edge: "\(edge)")
        }
    }

    /// The output stream's configuration where it is rewritten from the in-stream header: AV1's sequence header
    /// as one OBU (FFmpeg's Matroska and MP4 muxers build `av1C`/CodecPrivate from it), since the stored `av1C` of
    /// a source may differ from its own frames. nil: the source's configuration stands (VP8, VP9: `vpcC` and
    /// WebM's Colour come from the stream's parameters, which the edges match).
    var configuration: [UInt8]? {
        guard case let .av1(header) = self else { return nil }
        return AV1OBUs.sequenceHeaderUnit(payload: header.payload)
    }

    /// The header as bytes that state it, which every edge's first packet must state again (`SmartEdge` checks):
    /// AV1's sequence header OBU, MPEG-2's sequence header and extension; nil for VP8 and VP9 (each keyframe's own).
    var units: [UInt8]? {
        switch self {
        case .av1: return configuration
        case let .mpeg2(header): return header.units
        default: return nil
        }
    }

    /// Options that make `encoder` write this header, where it has them (AV1: the sequence header's coding tools;
    /// MPEG-2: its rate bounds, profile and level, interlacing).
    func encoderOptions(_ encoder: String) -> [String: String] {
        switch self {
        case let .av1(header): return header.encoderOptions(encoder)
        case let .mpeg2(header): return encoder == "mpeg2video" ? header.encoderOptions() : [:]
        default: return [:]
        }
    }
}

extension AV1OBUs {
    /// A sequence header OBU holding `payload`, with its size field (the form MP4 and Matroska store).
    static func sequenceHeaderUnit(payload: [UInt8]) -> [UInt8] {
        var size: [UInt8] = []
        var value = payload.count
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            size.append(value > 0 ? low | 0x80 : low)
        } while value > 0
        return [UInt8(Kind.sequenceHeader.rawValue << 3 | 0x02)] + size + payload
    }
}

extension AV1SequenceHeader {
    /// A field's value by the specification's name (its first occurrence), or nil when the header has none.
    func value(_ name: String) -> Int? { fields.first { $0.name == name }?.value }

    /// The encoder options that ask for this header's coding tools and chroma sample position. libsvtav1 sets most
    /// tools by preset and exposes loop restoration (`enable-restoration`, 1 at presets 4 and 8, 0 at 12 in SVT-AV1
    /// 1.4); libaom-av1 has a switch for each. Neither takes the chroma position from FFmpeg's context. Whatever an option cannot reach, the trial's byte comparison catches.
    func encoderOptions(_ encoder: String) -> [String: String] {
        func flag(_ name: String) -> String? { value(name).map(String.init) }
        switch encoder {
        case "libsvtav1":
            let parameters = [flag("enable_restoration").map { "enable-restoration=\($0)" },
                              flag("chroma_sample_position").map { "chroma-sample-position=\($0)" }].compactMap { $0 }
            return parameters.isEmpty ? [:] : ["svtav1-params": parameters.joined(separator: ":")]
        case "libaom-av1":
            let switches = ["enable_cdef": "enable-cdef", "enable_restoration": "enable-restoration", "enable_filter_intra": "enable-filter-intra",
                            "enable_intra_edge_filter": "enable-intra-edge-filter", "enable_interintra_compound": "enable-interintra-comp",
                            "enable_masked_compound": "enable-masked-comp", "enable_dual_filter": "enable-dual-filter",
                            "enable_jnt_comp": "enable-dist-wtd-comp", "enable_ref_frame_mvs": "enable-ref-frame-mvs"]
            var options: [String: String] = [:]
            for (field, option) in switches { if let value = flag(field) { options[option] = value } }
            var parameters: [String] = []
            if let warped = flag("enable_warped_motion") { parameters.append("enable-warped-motion=\(warped)") }
            if let superblock = value("use_128x128_superblock") { parameters.append("sb-size=\(superblock == 1 ? 128 : 64)") }
            if let orderHint = flag("enable_order_hint") { parameters.append("enable-order-hint=\(orderHint)") }
            if let position = flag("chroma_sample_position") { parameters.append("chroma-sample-position=\(position)") }
            if !parameters.isEmpty { options["aom-params"] = parameters.joined(separator: ":") }
            return options
        default:
            return [:]
        }
    }
}
