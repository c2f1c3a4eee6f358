/// An MP3 (MPEG audio layer III) frame's bit reservoir, read from its header and side information (ISO 11172-3
/// 2.4.1.7): how many bytes of main data before the frame it uses, and how many it holds itself. libavcodec's parser
/// does not expose `main_data_begin`, so these few bits are read here.
enum MP3Frame {
    /// `(reservoir, mainData)` in bytes; (0, 0) for anything that is not a layer III frame.
    static func reservoir(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        guard bytes.count >= 6, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return (0, 0) }
        let version = (bytes[1] >> 3) & 3, layer = (bytes[1] >> 1) & 3
        guard layer == 1, version != 1 else { return (0, 0) }
        let crc = bytes[1] & 1 == 0 ? 2 : 0
        let mono = (bytes[3] >> 6) & 3 == 3
        let mpeg1 = version == 3
        let sideInformation = mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let at = 4 + crc
        guard bytes.count >= at + 2 else { return (0, 0) }
        // MPEG-1: 9 bits; MPEG-2 and 2.5: 8 bits.
        let reservoir = mpeg1 ? Int(bytes[at]) << 1 | Int(bytes[at + 1] >> 7) : Int(bytes[at])
        return (reservoir, max(0, bytes.count - at - sideInformation))
    }
}

extension MP3Frame {
    /// Layer III bit rates (kb/s) by index: MPEG-1, then MPEG-2 and 2.5.
    static let bitRates: [[Int]] = [[0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
                                    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]]
    static let sampleRates = [44100, 48000, 32000]

    /// The layer III frame's header fields; nil for anything else.
    struct Header {
        var mpeg1: Bool
        var sampleRate: Int
        var bitRateIndex: Int
        var crc: Bool
        var mono: Bool
        var sideInformation: Int { mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17) }
        var mainDataStart: Int { 4 + (crc ? 2 : 0) + sideInformation }
        /// Bytes in a frame of bit rate index `index` without padding.
        func size(bitRateIndex index: Int) -> Int {
            let rate = MP3Frame.bitRates[mpeg1 ? 0 : 1][index] * 1000
            return (mpeg1 ? 144 : 72) * rate / max(1, sampleRate)
        }
    }

    static func header(_ bytes: [UInt8]) -> Header? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int((bytes[1] >> 3) & 3), layer = (bytes[1] >> 1) & 3
        let bitRateIndex = Int(bytes[2] >> 4), rateIndex = Int((bytes[2] >> 2) & 3)
        guard layer == 1, version != 1, (1...14).contains(bitRateIndex), rateIndex < 3 else { return nil }
        let divisor = version == 3 ? 1 : version == 2 ? 2 : 4
        return Header(mpeg1: version == 3, sampleRate: sampleRates[rateIndex] / divisor, bitRateIndex: bitRateIndex,
                      crc: bytes[1] & 1 == 0, mono: (bytes[3] >> 6) & 3 == 3)
    }

    /// The bytes of main data the frame's own granules use (the sum of its part2_3_length, ISO 11172-3 2.4.1.7).
    static func ownMainDataBytes(_ bytes: [UInt8], _ header: Header) -> Int? {
        var reader = BitReader(bytes: bytes, bit: (4 + (header.crc ? 2 : 0)) * 8)
        let channels = header.mono ? 1 : 2
        // main_data_begin, private bits, scfsi (MPEG-1).
        reader.skip(header.mpeg1 ? 9 + (header.mono ? 5 : 3) + 4 * channels : 8 + (header.mono ? 1 : 2))
        var bits = 0
        for _ in 0..<(header.mpeg1 ? 2 : 1) {
            for _ in 0..<channels {
                guard let length = reader.read(12) else { return nil }
                bits += length
                // big_values, global_gain, scalefac_compress, window switching and its 22 bits, the flags.
                reader.skip(9 + 8 + (header.mpeg1 ? 4 : 9) + 1 + 22 + (header.mpeg1 ? 3 : 2))
            }
        }
        return (bits + 7) / 8
    }

    /// A frame made without a bit reservoir (main_data_begin 0), rewritten at the smallest bit rate whose frame holds its
    /// own main data and, at its very end, `reservoir` — the bytes the next frame's main_data_begin reaches back for —
    /// so a copied frame can follow a frame encoded again. Nil when it cannot (a CRC, a reservoir of its own, no room).
    static func repack(_ bytes: [UInt8], reservoir: [UInt8]) -> [UInt8]? {
        guard let header = header(bytes), !header.crc, bytes.count > header.mainDataStart,
              reservoir.count <= 511, let own = ownMainDataBytes(bytes, header), header.mainDataStart + own <= bytes.count else { return nil }
        let first = bytes.withUnsafeBufferPointer { reservoirOf($0) }
        guard first == 0 else { return nil }
        guard let index = (1...14).first(where: { header.size(bitRateIndex: $0) - header.mainDataStart >= own + reservoir.count }) else { return nil }
        let size = header.size(bitRateIndex: index)
        var frame = [UInt8](repeating: 0, count: size)
        frame[0] = bytes[0]
        frame[1] = bytes[1]
        // The new bit rate, no padding, the private bit kept.
        frame[2] = UInt8(index << 4) | (bytes[2] & 0x0C) | (bytes[2] & 0x01)
        frame[3] = bytes[3]
        for offset in 4..<(header.mainDataStart + own) { frame[offset] = bytes[offset] }
        for (offset, byte) in reservoir.enumerated() { frame[size - reservoir.count + offset] = byte }
        return frame
    }

    /// A frame of silence like `model` (version, rate, channels; no CRC) whose main data ends with `reservoir`: all its
    /// side information zero (no granule data), at the smallest bit rate whose frame holds the bytes. Written before a
    /// copy's first frame, it gives that frame's bit reservoir what the source had before it. Nil when none can.
    static func carrier(like model: [UInt8], reservoir: [UInt8]) -> [UInt8]? {
        guard var header = header(model), reservoir.count <= 511 else { return nil }
        header.crc = false
        guard let index = (1...14).first(where: { header.size(bitRateIndex: $0) - header.mainDataStart >= reservoir.count }) else { return nil }
        let size = header.size(bitRateIndex: index)
        var frame = [UInt8](repeating: 0, count: size)
        frame[0] = model[0]
        frame[1] = model[1] | 1
        frame[2] = UInt8(index << 4) | (model[2] & 0x0C) | (model[2] & 0x01)
        frame[3] = model[3]
        for (offset, byte) in reservoir.enumerated() { frame[size - reservoir.count + offset] = byte }
        return frame
    }

    /// main_data_begin alone.
    static func reservoirOf(_ bytes: UnsafeBufferPointer<UInt8>) -> Int { reservoir(bytes).0 }
}

/// Reads bits most significant first.
struct BitReader {
    let bytes: [UInt8]
    var bit: Int

    mutating func skip(_ count: Int) { bit += count }

    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, bit + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int((bytes[bit >> 3] >> (7 - UInt8(bit & 7))) & 1)
            bit += 1
        }
        return value
    }
}
