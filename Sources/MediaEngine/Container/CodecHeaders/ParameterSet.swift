/// An H.264/HEVC parameter set: its kind, id, the id of the set it refers to, and its NAL unit.
public struct ParameterSet: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Comparable, CaseIterable, Codable {
        case vps, sps, pps
        public static func < (a: Kind, b: Kind) -> Bool { a.order < b.order }
        private var order: Int { self == .vps ? 0 : self == .sps ? 1 : 2 }
    }

    public var kind: Kind
    public var id: Int
    /// A PPS's SPS id; an HEVC SPS's VPS id.
    public var parentId: Int?
    /// The NAL unit, header included, emulation prevention bytes in place.
    @Base64Bytes public var unit: [UInt8]

    public var description: String { "\(kind.rawValue.uppercased()) \(id)" }

    /// The set a NAL unit holds; nil when it is not a parameter set or cannot be read.
    static func parse(_ unit: ArraySlice<UInt8>, codec: NALUnits.Codec) -> ParameterSet? {
        guard NALUnits.isParameterSet(unit, codec: codec) else { return nil }
        // HEVC sets of layers above the base (multi-layer streams) are not handled.
        if codec == .hevc, unit.count >= 2, (unit[unit.startIndex] & 1) << 5 | unit[unit.startIndex + 1] >> 3 != 0 { return nil }
        var bits = RBSPBits(Array(unit.dropFirst(NALUnits.headerSize(codec)).prefix(128)))
        let kind = NALUnits.type(unit, codec: codec)
        switch (codec, kind) {
        case (.h264, 7):
            guard bits.skip(24), let id = bits.readUE(), id < 32 else { return nil }
            return ParameterSet(kind: .sps, id: id, parentId: nil, unit: Array(unit))
        case (.h264, _), (.hevc, 34):
            guard let id = bits.readUE(), let sps = bits.readUE(), id < 256, sps < 32 else { return nil }
            return ParameterSet(kind: .pps, id: id, parentId: sps, unit: Array(unit))
        case (.hevc, 32):
            guard let id = bits.read(4) else { return nil }
            return ParameterSet(kind: .vps, id: id, parentId: nil, unit: Array(unit))
        default:
            guard let vps = bits.read(4), let layers = bits.read(3), bits.skip(1), HEVCProfile.skipProfileTierLevel(&bits, maxSubLayersMinus1: layers),
                  let id = bits.readUE(), id < 16 else { return nil }
            return ParameterSet(kind: .sps, id: id, parentId: vps, unit: Array(unit))
        }
    }
}

/// What an SPS says about profile, level, chroma and bit depth: what a configuration record must cover.
struct SPSProfile: Equatable {
    /// H.264: profile_idc, constraint flags byte, level_idc. HEVC: the 12 bytes of general_profile_tier_level.
    var general: [UInt8]
    var chromaFormat: Int
    var bitDepthLuma: Int
    var bitDepthChroma: Int
    /// HEVC: sps_max_sub_layers_minus1 + 1 and sps_temporal_id_nesting_flag.
    var temporalLayers = 1
    var temporalIdNested = true

    /// profile_idc and level_idc of an SPS (or an HEVC VPS's profile_tier_level); nil for a PPS or an
    /// unreadable set.
    static func profileAndLevel(of set: ParameterSet, codec: NALUnits.Codec) -> (profile: Int, level: Int)? {
        switch set.kind {
        case .pps:
            return nil
        case .sps:
            guard let general = read(set, codec: codec)?.general, general.count >= (codec == .h264 ? 3 : 12) else { return nil }
            return codec == .h264 ? (Int(general[0]), Int(general[2])) : (Int(general[0] & 0x1f), Int(general[11]))
        case .vps:
            // vps_video_parameter_set_id … vps_reserved_0xffff_16bits: 32 bits, then the general profile_tier_level.
            var bits = RBSPBits(Array(set.unit.dropFirst(NALUnits.headerSize(codec)).prefix(64)))
            guard bits.skip(32), bits.skip(3), let profile = bits.read(5), bits.skip(32 + 48), let level = bits.read(8) else { return nil }
            return (profile, level)
        }
    }

    static func read(_ sps: ParameterSet, codec: NALUnits.Codec) -> SPSProfile? {
        var bits = RBSPBits(Array(sps.unit.dropFirst(NALUnits.headerSize(codec)).prefix(256)))
        if codec == .h264 {
            guard let profile = bits.read(8), let flags = bits.read(8), let level = bits.read(8), bits.readUE() != nil else { return nil }
            var result = SPSProfile(general: [UInt8(profile), UInt8(flags), UInt8(level)], chromaFormat: 1, bitDepthLuma: 8, bitDepthChroma: 8)
            if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
                guard let chroma = bits.readUE() else { return nil }
                if chroma == 3, bits.read(1) == nil { return nil }
                guard let luma = bits.readUE(), let chromaDepth = bits.readUE() else { return nil }
                result.chromaFormat = chroma
                result.bitDepthLuma = luma + 8
                result.bitDepthChroma = chromaDepth + 8
            }
            return result
        }
        guard bits.skip(4), let layers = bits.read(3), let nested = bits.read(1) else { return nil }
        var general: [UInt8] = []
        for _ in 0..<12 {
            guard let byte = bits.read(8) else { return nil }
            general.append(UInt8(byte))
        }
        guard HEVCProfile.skipSubLayers(&bits, maxSubLayersMinus1: layers), bits.readUE() != nil, let chroma = bits.readUE() else { return nil }
        if chroma == 3, bits.read(1) == nil { return nil }
        guard bits.readUE() != nil, bits.readUE() != nil, let window = bits.read(1) else { return nil }
        if window == 1 { for _ in 0..<4 { guard bits.readUE() != nil else { return nil } } }
        guard let luma = bits.readUE(), let chromaDepth = bits.readUE() else { return nil }
        return SPSProfile(general: general, chromaFormat: chroma, bitDepthLuma: luma + 8, bitDepthChroma: chromaDepth + 8,
                          temporalLayers: layers + 1, temporalIdNested: nested == 1)
    }
}

enum HEVCProfile {
    /// profile_tier_level(1, maxSubLayersMinus1): 96 bits of general part, then the sub-layers'.
    static func skipProfileTierLevel(_ bits: inout RBSPBits, maxSubLayersMinus1: Int) -> Bool {
        bits.skip(96) && skipSubLayers(&bits, maxSubLayersMinus1: maxSubLayersMinus1)
    }

    static func skipSubLayers(_ bits: inout RBSPBits, maxSubLayersMinus1: Int) -> Bool {
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = bits.read(1), let level = bits.read(1) else { return false }
            present.append((profile == 1, level == 1))
        }
        if maxSubLayersMinus1 > 0, !bits.skip(2 * (8 - maxSubLayersMinus1)) { return false }
        for layer in present {
            if layer.profile, !bits.skip(88) { return false }
            if layer.level, !bits.skip(8) { return false }
        }
        return true
    }
}
