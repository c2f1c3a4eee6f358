/// An ISO BMFF `sidx` box (ISO/IEC 14496-12 8.16.3): the subsegments of a DASH SegmentBase representation, as byte
/// ranges of its file and durations in the box's timescale.
public struct SegmentIndex: Sendable, Equatable {
    public struct Reference: Sendable, Equatable {
        public var range: ByteRange
        public var duration: Int64
    }

    public var timescale: Int64
    public var earliestPresentationTime: Int64
    public var references: [Reference]

    /// Reads the box from `bytes` (which start with it), fetched from `offset` of the file; nil when it is not a
    /// sidx vtrim can use (a hierarchical index, a zero timescale, sizes past Int64).
    public static func parse(_ bytes: [UInt8], at offset: Int64) -> SegmentIndex? {
        func number(_ at: Int, _ count: Int) -> Int64? {
            guard at >= 0, count > 0, at + count <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[at..<(at + count)] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int64.max) ? nil : Int64(value)
        }
        guard bytes.count >= 12, let size = number(0, 4), size >= 12, size <= bytes.count,
              String(decoding: bytes[4..<8], as: UTF8.self) == "sidx" else { return nil }
        let version = bytes[8]
        guard let timescale = number(16, 4), timescale > 0 else { return nil }
        let wide = version == 0 ? 4 : 8
        guard let earliest = number(20, wide), let firstOffset = number(20 + wide, wide),
              let count = number(20 + 2 * wide + 2, 2) else { return nil }
        var references: [Reference] = []
        guard offset >= 0, case (let afterBox, false) = offset.addingReportingOverflow(size),
              case (var position, false) = afterBox.addingReportingOverflow(firstOffset) else { return nil }
        var entry = 24 + 2 * wide
        for _ in 0..<count {
            guard let word = number(entry, 4), let duration = number(entry + 4, 4) else { return nil }
            // The top bit says the reference is to another sidx: a hierarchy vtrim does not walk.
            guard word & 0x8000_0000 == 0 else { return nil }
            let length = word & 0x7FFF_FFFF
            guard length > 0, case (let end, false) = position.addingReportingOverflow(length) else { return nil }
            references.append(Reference(range: ByteRange(offset: position, length: length), duration: duration))
            position = end
            entry += 12
        }
        return SegmentIndex(timescale: timescale, earliestPresentationTime: earliest, references: references)
    }
}
