/// The few H.264/HEVC syntax fields the structural checks need, read independently of vtrim's own
/// parser: slice → PPS id, PPS → SPS id, SPS → VPS id, and an SPS's profile, tier and level.
public enum NALSyntax {
    struct Bits {
        let bytes: [UInt8]
        var position = 0

        /// `unit` without its NAL header, emulation prevention bytes removed.
        init(_ unit: [UInt8], headerSize: Int) {
            var out: [UInt8] = [], zeros = 0
            for byte in unit.dropFirst(headerSize) {
                if zeros >= 2, byte == 3 { zeros = 0; continue }
                zeros = byte == 0 ? zeros + 1 : 0
                out.append(byte)
            }
            bytes = out
        }

        mutating func bits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard position < bytes.count * 8 else { return nil }
                value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
                position += 1
            }
            return value
        }

        mutating func ue() -> Int? {
            var zeros = 0
            while let bit = bits(1), bit == 0 { zeros += 1; if zeros > 31 { return nil } }
            guard let rest = bits(zeros) else { return nil }
            return (1 << zeros) - 1 + rest
        }
    }

    public static func slicePPSId(_ unit: [UInt8], hevc: Bool) -> Int? {
        guard let header = unit.first else { return nil }
        var bits = Bits(unit, headerSize: hevc ? 2 : 1)
        if hevc {
            let type = Int(header >> 1) & 0x3F
            guard bits.bits(1) != nil else { return nil }
            if (16...23).contains(type), bits.bits(1) == nil { return nil }
            return bits.ue()
        }
        guard bits.ue() != nil, bits.ue() != nil else { return nil }
        return bits.ue()
    }

    public struct SetIds: Equatable {
        /// 32/33/34 (HEVC) or 7/8 (H.264).
        public var type: Int
        public var id: Int
        public var parent: Int?
        /// SPS: profile, tier, level.
        public var profile: (profile: Int, tier: Int, level: Int)?

        public static func == (a: SetIds, b: SetIds) -> Bool { a.type == b.type && a.id == b.id && a.parent == b.parent }
    }

    public static func setIds(_ unit: [UInt8], hevc: Bool) -> SetIds? {
        guard let header = unit.first else { return nil }
        var bits = Bits(unit, headerSize: hevc ? 2 : 1)
        let type = hevc ? Int(header >> 1) & 0x3F : Int(header & 0x1F)
        switch (hevc, type) {
        case (false, 7):
            guard let profile = bits.bits(8), bits.bits(8) != nil, let level = bits.bits(8), let id = bits.ue() else { return nil }
            return SetIds(type: 7, id: id, parent: nil, profile: (profile, 0, level))
        case (false, 8), (true, 34):
            guard let id = bits.ue(), let sps = bits.ue() else { return nil }
            return SetIds(type: type, id: id, parent: sps)
        case (true, 32):
            guard let id = bits.bits(4) else { return nil }
            return SetIds(type: 32, id: id, parent: nil)
        case (true, 33):
            guard let vps = bits.bits(4), let layers = bits.bits(3), bits.bits(1) != nil, let general = bits.bits(8),
                  bits.bits(32 + 48) != nil, let level = bits.bits(8) else { return nil }
            var present: [(Bool, Bool)] = []
            for _ in 0..<layers { guard let p = bits.bits(1), let l = bits.bits(1) else { return nil }; present.append((p == 1, l == 1)) }
            if layers > 0 { _ = bits.bits(2 * (8 - layers)) }
            for (p, l) in present { if p { _ = bits.bits(88) }; if l { _ = bits.bits(8) } }
            guard let id = bits.ue() else { return nil }
            return SetIds(type: 33, id: id, parent: vps, profile: (general & 0x1F, general >> 5 & 1, level))
        default:
            return nil
        }
    }
}
