/// Gives x265's parameter sets (always VPS 0, SPS 0, PPS 0) other ids, and its slices the new PPS id, so
/// that they sit in one hvcC beside the source's sets. Bit-level rewrites of small fields:
/// - VPS: vps_video_parameter_set_id, u(4); SPS: sps_video_parameter_set_id u(4) and
///   sps_seq_parameter_set_id ue(v); PPS: pps_pic_parameter_set_id and pps_seq_parameter_set_id, ue(v).
/// - Slices: slice_pic_parameter_set_id, ue(v), the second or third field. Only a change of a whole
///   number of bytes is allowed (0 → 15…30 is 1 → 9 bits), so the byte-aligned slice data is copied as it
///   is; entry points (WPP, tiles) would count bytes that emulation prevention may shift at the seam, so
///   heads and tails are encoded without WPP (`wpp=0`).
public enum HEVCRenumbering {
    public struct Ids: Sendable, Equatable, Codable {
        public var vps: Int
        public var sps: Int
        public var pps: Int
    }

    /// A renumbered VPS/SPS/PPS NAL unit; nil when it cannot be read or is not one.
    static func renumber(set unit: ArraySlice<UInt8>, to ids: Ids) -> [UInt8]? {
        let kind = NALUnits.type(unit, codec: .hevc)
        return rewrite(unit) { bits, out in
            switch kind {
            case 32:
                guard bits.read(4) != nil else { return false }
                out.write(ids.vps, bits: 4)
            case 33:
                guard bits.read(4) != nil, let layers = bits.read(3), let nested = bits.read(1) else { return false }
                out.write(ids.vps, bits: 4)
                out.write(layers, bits: 3)
                out.write(nested, bits: 1)
                let ptlStart = bits.position
                guard HEVCProfile.skipProfileTierLevel(&bits, maxSubLayersMinus1: layers) else { return false }
                let ptlEnd = bits.position
                var copy = RBSPBits(rbsp: bits.bytes)
                _ = copy.skip(ptlStart)
                out.copy(from: &copy, until: ptlEnd)
                guard bits.readUE() != nil else { return false }
                out.writeUE(ids.sps)
            case 34:
                guard bits.readUE() != nil, bits.readUE() != nil else { return false }
                out.writeUE(ids.pps)
                out.writeUE(ids.sps)
            default:
                return false
            }
            return true
        } rest: { bits, out in
            guard let stop = bits.stopBitPosition, stop >= bits.position else { return false }
            out.copy(from: &bits, until: stop)
            out.writeTrailingBits()
            return true
        }
    }

    /// A slice NAL unit that refers to PPS `pps` instead; nil when its header cannot be read or the new id's
    /// code differs in length from the old one's by other than whole bytes.
    static func renumber(slice unit: ArraySlice<UInt8>, pps: Int) -> [UInt8]? {
        let kind = NALUnits.type(unit, codec: .hevc)
        return rewrite(unit) { bits, out in
            guard let first = bits.read(1) else { return false }
            out.write(first, bits: 1)
            if (16...23).contains(kind) {
                guard let flag = bits.read(1) else { return false }
                out.write(flag, bits: 1)
            }
            guard let old = bits.readUE() else { return false }
            guard (RBSPWriter.lengthOfUE(pps) - RBSPWriter.lengthOfUE(old)) % 8 == 0 else { return false }
            out.writeUE(pps)
            return true
        } rest: { bits, out in
            out.copy(from: &bits, until: bits.bitCount)
            return true
        }
    }

    private static func rewrite(_ unit: ArraySlice<UInt8>, fields: (inout RBSPBits, inout RBSPWriter) -> Bool,
                                rest: (inout RBSPBits, inout RBSPWriter) -> Bool) -> [UInt8]? {
        guard unit.count > 2 else { return nil }
        var bits = RBSPBits(Array(unit.dropFirst(2)))
        var out = RBSPWriter()
        guard fields(&bits, &out), rest(&bits, &out) else { return nil }
        return Array(unit.prefix(2)) + NALUnits.addingEmulationPrevention(out.bytes)
    }
}
