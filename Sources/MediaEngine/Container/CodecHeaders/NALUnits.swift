import Glibc

/// H.264/HEVC NAL units as MP4 stores them (each prefixed by its length) and as encoders emit them
/// (Annex B start codes), and the parameter sets of an avcC/hvcC configuration record. Pure byte work.
public enum NALUnits {
    public enum Codec: Sendable, Codable { case h264, hevc }

    /// The NAL units of an Annex B stream (00 00 01 / 00 00 00 01 start codes).
    static func splitAnnexB(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var index = 0, start: Int?
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let begin = start {
                    var end = index
                    while end > begin, bytes[end - 1] == 0 { end -= 1 }
                    if end > begin { units.append(bytes[begin..<end]) }
                }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let begin = start, begin < bytes.count { units.append(bytes[begin...]) }
        return units
    }

    /// The NAL units of a length-prefixed sample; nil when the lengths do not add up.
    static func splitLengthPrefixed(_ bytes: [UInt8], lengthSize: Int) -> [ArraySlice<UInt8>]? {
        bytes.withUnsafeBufferPointer { unitRanges($0, lengthSize: lengthSize) }.map { $0.map { bytes[$0] } }
    }

    /// The NAL units of a sample as FFmpeg's H.264/HEVC parsers read them, to judge what it holds (never to rewrite
    /// it): a length-prefixed unit holding start codes is split at them, as Samsung's slow-motion clips put a whole
    /// access unit — an SVC prefix unit, then Annex B SEI and slice — behind one length. A true NAL unit never holds
    /// 00 00 01 (emulation prevention), so other samples read as `splitLengthPrefixed` reads them. Annex B when
    /// `lengthSize` is nil; no units when the lengths do not add up.
    static func readUnits(_ bytes: [UInt8], lengthSize: Int?) -> [ArraySlice<UInt8>] {
        guard let lengthSize else { return splitAnnexB(bytes) }
        guard let units = splitLengthPrefixed(bytes, lengthSize: lengthSize) else { return [] }
        return units.flatMap { unit -> [ArraySlice<UInt8>] in
            guard containsStartCode(unit) else { return [unit] }
            // The bytes before the first start code are a unit too.
            return splitAnnexB([0, 0, 1] + unit)
        }
    }

    static func containsStartCode(_ unit: ArraySlice<UInt8>) -> Bool {
        var zeros = 0
        for byte in unit {
            if zeros >= 2, byte == 1 { return true }
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return false
    }

    static func lengthPrefixed<S: Sequence>(_ units: S, lengthSize: Int) -> [UInt8] where S.Element == ArraySlice<UInt8> {
        var out: [UInt8] = []
        for unit in units {
            for shift in stride(from: (lengthSize - 1) * 8, through: 0, by: -8) { out.append(UInt8((unit.count >> shift) & 0xff)) }
            out += unit
        }
        return out
    }

    /// Units as an Annex B byte stream: each after a 4-byte start code.
    static func annexB<S: Sequence>(_ units: S) -> [UInt8] where S.Element == ArraySlice<UInt8> {
        var out: [UInt8] = []
        for unit in units { out += [0, 0, 0, 1] + unit }
        return out
    }

    /// A NAL unit's payload as its syntax reads it: emulation prevention bytes (00 00 03) removed.
    static func removingEmulationPrevention<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var payload: [UInt8] = []
        payload.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        return payload
    }

    static func type(_ unit: ArraySlice<UInt8>, codec: Codec) -> Int {
        guard let first = unit.first else { return -1 }
        return codec == .h264 ? Int(first & 0x1f) : Int((first >> 1) & 0x3f)
    }

    /// IDR (H.264 5; HEVC 19, 20) or BLA (HEVC 16–18): nothing after it refers to anything before it.
    static func isInstantaneousRefresh(_ units: [ArraySlice<UInt8>], codec: Codec) -> Bool {
        units.contains { unit in
            let kind = type(unit, codec: codec)
            return codec == .h264 ? kind == 5 : (16...20).contains(kind)
        }
    }

    /// HEVC CRA (21): clean when no leading picture follows it (checked from the timestamps).
    static func isCleanRandomAccessCandidate(_ units: [ArraySlice<UInt8>], codec: Codec) -> Bool {
        codec == .hevc && units.contains { type($0, codec: .hevc) == 21 }
    }

    /// The NAL length size and the parameter sets (VPS/SPS/PPS) of an avcC or hvcC record.
    static func configuration(_ record: [UInt8], codec: Codec) -> (lengthSize: Int, parameterSets: [ArraySlice<UInt8>])? {
        var sets: [ArraySlice<UInt8>] = []
        func read16(_ offset: Int) -> Int? {
            offset + 1 < record.count ? Int(record[offset]) << 8 | Int(record[offset + 1]) : nil
        }
        switch codec {
        case .h264:
            guard record.count >= 7, record[0] == 1 else { return nil }
            let lengthSize = Int(record[4] & 3) + 1
            var offset = 5
            for table in 0..<2 {
                guard offset < record.count else { return nil }
                let count = table == 0 ? Int(record[offset] & 0x1f) : Int(record[offset])
                offset += 1
                for _ in 0..<count {
                    guard let length = read16(offset), offset + 2 + length <= record.count else { return nil }
                    sets.append(record[(offset + 2)..<(offset + 2 + length)])
                    offset += 2 + length
                }
            }
            return (lengthSize, sets)
        case .hevc:
            guard let arrays = hevcArrays(record) else { return nil }
            return (Int(record[21] & 3) + 1, arrays.flatMap(\.units))
        }
    }

    /// The NAL unit arrays of an hvcC record (type, units), in order; nil when it is malformed.
    static func hevcArrays(_ record: [UInt8]) -> [(type: Int, units: [ArraySlice<UInt8>])]? {
        func read16(_ offset: Int) -> Int? {
            offset + 1 < record.count ? Int(record[offset]) << 8 | Int(record[offset + 1]) : nil
        }
        guard record.count >= 23, record[0] == 1 else { return nil }
        var arrays: [(type: Int, units: [ArraySlice<UInt8>])] = []
        var offset = 23
        for _ in 0..<Int(record[22]) {
            guard offset + 3 <= record.count, let count = read16(offset + 1) else { return nil }
            let type = Int(record[offset] & 0x3f)
            offset += 3
            var units: [ArraySlice<UInt8>] = []
            for _ in 0..<count {
                guard let length = read16(offset), offset + 2 + length <= record.count else { return nil }
                units.append(record[(offset + 2)..<(offset + 2 + length)])
                offset += 2 + length
            }
            arrays.append((type, units))
        }
        return arrays
    }

}

extension NALUnits {
    /// A NAL unit's bytes from its payload as the syntax reads it: 00 00 03 inserted before any byte ≤ 3
    /// that follows two zeros, and after a final zero.
    static func addingEmulationPrevention(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2, byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if out.last == 0 { out.append(3) }
        return out
    }

    /// The NAL header's size: one byte in H.264, two in HEVC.
    static func headerSize(_ codec: Codec) -> Int { codec == .h264 ? 1 : 2 }

    /// VPS/SPS/PPS (HEVC 32–34; H.264 7, 8).
    static func isParameterSet(_ unit: ArraySlice<UInt8>, codec: Codec) -> Bool {
        isParameterSet(type: type(unit, codec: codec), codec: codec)
    }

    /// A coded slice (H.264 1–5; HEVC 0–9, 16–21).
    static func isSlice(_ unit: ArraySlice<UInt8>, codec: Codec) -> Bool {
        let kind = type(unit, codec: codec)
        return codec == .h264 ? (1...5).contains(kind) : (0...9).contains(kind) || (16...21).contains(kind)
    }
}

extension NALUnits {
    /// Where each NAL unit lies in a sample, without copying it: length-prefixed (`lengthSize`), or Annex B
    /// when nil. Nil when the lengths do not add up. Start codes are found with memchr (whole samples of
    /// 1080p video pass through here on copies from MPEG-TS). Annex B bytes before the first start code (a
    /// damaged sample) count as a unit of their own: a copy keeps what the source has.
    static func unitRanges(_ bytes: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        guard let base = bytes.baseAddress else { return ranges }
        if let lengthSize {
            var index = 0
            while index < bytes.count {
                guard index + lengthSize <= bytes.count else { return nil }
                var length = 0
                for offset in 0..<lengthSize { length = length << 8 | Int(bytes[index + offset]) }
                index += lengthSize
                guard length > 0, index + length <= bytes.count else { return nil }
                ranges.append(index..<(index + length))
                index += length
            }
            return ranges
        }
        var start: Int?
        var from = 0
        func appendPrefix(until end: Int) {
            var last = end
            while last > 0, bytes[last - 1] == 0 { last -= 1 }
            if last > 0 { ranges.append(0..<last) }
        }
        while from < bytes.count, let found = memchr(base + from, 1, bytes.count - from) {
            let one = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            from = one + 1
            guard one >= 2, bytes[one - 1] == 0, bytes[one - 2] == 0 else { continue }
            if start == nil { appendPrefix(until: one - 2) }
            if let begin = start {
                var end = one - 2
                while end > begin, bytes[end - 1] == 0 { end -= 1 }
                if end > begin { ranges.append(begin..<end) }
            }
            start = one + 1
        }
        if let begin = start, begin < bytes.count { ranges.append(begin..<bytes.count) }
        if start == nil { appendPrefix(until: bytes.count) }
        return ranges
    }

    static func type(ofUnitStartingWith header: UInt8, codec: Codec) -> Int {
        codec == .h264 ? Int(header & 0x1f) : Int((header >> 1) & 0x3f)
    }

    static func isParameterSet(type: Int, codec: Codec) -> Bool {
        codec == .h264 ? type == 7 || type == 8 : (32...34).contains(type)
    }
}
