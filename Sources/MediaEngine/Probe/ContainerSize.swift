import DiskNames
import Foundation

/// The byte size a container's own framing says the file has, where it says one: a Matroska/WebM
/// Segment states its length in the header (finished files; live recordings may say "unknown"), and an
/// MPEG-TS file is a whole number of fixed-size transport packets. Read from the first bytes of the
/// file: no demuxing. FFmpeg keeps both facts private, hence this small reader.
enum ContainerSize {
    /// Bytes the file should have by its Matroska Segment header, or nil when the header does not say
    /// (unknown size, not Matroska, damaged).
    static func matroskaExpectedBytes(header bytes: [UInt8]) -> Int64? {
        var offset = 0
        // EBML header element: ID 1A 45 DF A3, then its size; skip its body.
        guard let ebmlID = vint(bytes, at: &offset, keepMarker: true), ebmlID.value == 0x1A45_DFA3,
              let ebmlSize = vint(bytes, at: &offset, keepMarker: false), !ebmlSize.unknown,
              ebmlSize.value < Int64(bytes.count) else { return nil }
        offset += Int(ebmlSize.value)
        guard let segmentID = vint(bytes, at: &offset, keepMarker: true), segmentID.value == 0x1853_8067,
              let segmentSize = vint(bytes, at: &offset, keepMarker: false), !segmentSize.unknown else { return nil }
        let (total, overflow) = Int64(offset).addingReportingOverflow(segmentSize.value)
        return overflow ? nil : total
    }

    /// True when an MPEG-TS file's size is no whole number of 188-, 192- (M2TS) or 204-byte packets:
    /// its last packet is cut short.
    static func transportStreamCutShort(sizeBytes: Int64) -> Bool {
        sizeBytes > 0 && [188, 192, 204].allSatisfy { sizeBytes % Int64($0) != 0 }
    }

    /// The file's first bytes (enough for Matroska's EBML and Segment headers).
    static func firstBytes(of path: String, count: Int = 256) -> [UInt8] {
        guard count > 0, let reader = InputReader.open(path) else { return [] }
        defer { reader.close() }
        return reader.read(count: count, at: 0)
    }

    /// An EBML variable-length integer: the count of leading zero bits of the first byte gives its length
    /// (1–8 bytes). IDs keep the length marker; sizes drop it, and all ones means "unknown".
    private static func vint(_ bytes: [UInt8], at offset: inout Int, keepMarker: Bool) -> (value: Int64, unknown: Bool)? {
        guard offset < bytes.count, bytes[offset] != 0 else { return nil }
        let length = bytes[offset].leadingZeroBitCount + 1
        guard offset + length <= bytes.count else { return nil }
        var value = Int64(keepMarker ? bytes[offset] : bytes[offset] & (0xFF >> length))
        var allOnes = value == Int64(0xFF >> length)
        for index in 1..<length {
            value = value << 8 | Int64(bytes[offset + index])
            allOnes = allOnes && bytes[offset + index] == 0xFF
        }
        offset += length
        return (value, !keepMarker && allOnes)
    }
}
