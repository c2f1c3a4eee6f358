/// Reads the bits of a NAL unit's payload (emulation prevention bytes removed): fixed-width fields and
/// Exp-Golomb codes; nil past the end.
struct RBSPBits {
    private let bytes: [UInt8]
    private var position = 0

    init(_ payload: [UInt8]) {
        bytes = NALUnits.removingEmulationPrevention(payload)
    }

    mutating func read(_ count: Int) -> Int? {
        guard count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func readUE() -> Int? {
        var leadingZeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            leadingZeros += 1
            if leadingZeros > 31 { return nil }
        }
        guard let rest = read(leadingZeros) else { return nil }
        return (1 << leadingZeros) - 1 + rest
    }
}
