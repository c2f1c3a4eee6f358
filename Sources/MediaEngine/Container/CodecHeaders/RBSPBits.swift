/// Reads the bits of a NAL unit's payload (emulation prevention bytes removed): fixed-width fields and
/// Exp-Golomb codes; nil past the end.
struct RBSPBits {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ payload: [UInt8]) {
        bytes = NALUnits.removingEmulationPrevention(payload)
    }

    init(rbsp: [UInt8]) {
        bytes = rbsp
    }

    var bitCount: Int { bytes.count * 8 }

    mutating func read(_ count: Int) -> Int? {
        guard count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count * 8 else { return false }
        position += count
        return true
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

    /// Where rbsp_stop_one_bit is: the last set bit; nil when every bit is zero.
    var stopBitPosition: Int? {
        guard let last = bytes.lastIndex(where: { $0 != 0 }) else { return nil }
        return last * 8 + 7 - bytes[last].trailingZeroBitCount
    }
}

/// Writes RBSP bits: fixed-width fields, Exp-Golomb codes, and bits copied from a reader.
struct RBSPWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var bitCount = 0

    mutating func write(_ value: Int, bits: Int) {
        for shift in stride(from: bits - 1, through: 0, by: -1) {
            if bitCount & 7 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount & 7) }
            bitCount += 1
        }
    }

    mutating func writeUE(_ value: Int) {
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        write(0, bits: length - 1)
        write(code, bits: length)
    }

    static func lengthOfUE(_ value: Int) -> Int { 2 * (Int.bitWidth - (value + 1).leadingZeroBitCount) - 1 }

    /// Copies the reader's bits up to `end` (a bit position); whole bytes once both sides are aligned.
    mutating func copy(from reader: inout RBSPBits, until end: Int) {
        while reader.position < end {
            if bitCount & 7 == 0, reader.position & 7 == 0, end & 7 == 0 {
                bytes += reader.bytes[(reader.position >> 3)..<(end >> 3)]
                bitCount += end - reader.position
                _ = reader.skip(end - reader.position)
                return
            }
            guard let bit = reader.read(1) else { return }
            write(bit, bits: 1)
        }
    }

    /// rbsp_trailing_bits: a one, then zeros to the byte boundary.
    mutating func writeTrailingBits() {
        write(1, bits: 1)
        while bitCount & 7 != 0 { write(0, bits: 1) }
    }
}
