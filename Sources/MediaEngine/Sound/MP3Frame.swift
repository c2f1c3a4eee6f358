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
