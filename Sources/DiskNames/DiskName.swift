/// A name on a Linux disk is bytes; a Swift `String` holds only valid Unicode. Names that are not UTF-8 (Latin-1
/// `caf\xe9.mp4` from an old Samba share or a ZIP) are carried through vtrim as a `String` in which every byte that is
/// not part of valid UTF-8 is one scalar of U+10FF80…U+10FFFF (the last 128 of Supplementary Private Use Area-B, one
/// per byte 0x80…0xFF), and turned back into those bytes wherever a path meets the system (`withCString`). A name
/// that really holds one of those scalars has each of its bytes carried the same way, so every byte string
/// round-trips. Paths travel in requests, replies and the state database as such strings; people see `display`.
///
/// Hand-written (not `String(decoding:)`, which replaces bad bytes with U+FFFD for good): no library keeps
/// undecodable bytes in a Swift string.
public enum DiskName {
    /// The scalar that stands for byte 0x80 + k is U+10FF80 + k.
    static let escapeBase: UInt32 = 0x10FF00
    static let firstEscape: UInt32 = 0x10FF80

    /// The string carrying `bytes` (a name or path as the system gives it, without its terminating NUL).
    public static func string<Bytes: Collection<UInt8>>(bytes: Bytes) -> String where Bytes.Index == Int {
        if let text = String(validating: bytes, as: UTF8.self), !hasEscapes(text) { return text }
        var scalars = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                scalars.append(escape(bytes[index]))
                index += 1
                continue
            }
            let sequence = bytes[index..<index + length]
            if let scalar = String(decoding: sequence, as: UTF8.self).unicodeScalars.first, scalar.value < firstEscape {
                scalars.append(scalar)
            } else {
                for byte in sequence { scalars.append(escape(byte)) }
            }
            index += length
        }
        return String(scalars)
    }

    /// The string for a C name (`readdir`'s `d_name`, `realpath`'s answer).
    public static func string(cString: UnsafePointer<CChar>) -> String {
        var length = 0
        while cString[length] != 0 { length += 1 }
        return cString.withMemoryRebound(to: UInt8.self, capacity: length) {
            string(bytes: UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The bytes `path` stands for on disk.
    public static func bytes(_ path: String) -> [UInt8] {
        guard hasEscapes(path) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= firstEscape {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with the NUL-terminated bytes `path` stands for: what every system call on a path is given.
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard hasEscapes(path) else { return try path.withCString(body) }
        let terminated = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try body(terminated)
    }

    /// `path` as people read it: each byte that is not UTF-8 as `\xe9`.
    public static func display(_ path: String) -> String { shown(path, escape: "\\x") }

    /// A line of JSON text with every carried byte shown as `\\xe9` (inside a JSON string: the text `\xe9`). The
    /// carrying scalars can only stand inside strings, so the line stays valid JSON.
    public static func displayInJSON(_ line: String) -> String { shown(line, escape: "\\\\x") }

    private static func shown(_ text: String, escape: String) -> String {
        guard hasEscapes(text) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= firstEscape {
                shown += escape + hex(scalar.value - escapeBase)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// `path`'s bytes percent-encoded for a URL, those `keeping` says may stand as they are (ASCII) left alone: a carried
    /// byte becomes `%E9`, not the UTF-8 of its carrying scalar.
    public static func percentEncoded(_ path: String, keeping: (UInt8) -> Bool) -> String {
        var encoded = ""
        for byte in bytes(path) {
            if byte < 0x80, keeping(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (digits.count < 2 ? "0" + digits : digits)
            }
        }
        return encoded
    }

    /// Whether `text` carries any byte that is not UTF-8 (the common case, no, costs one pass over its UTF-8:
    /// a carrying scalar's UTF-8 always begins 0xF4 0x8F 0xBE or 0xF4 0x8F 0xBF).
    public static func hasEscapes(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == 0xF4 else { continue }
            if utf8.next() == 0x8F, let third = utf8.next(), third == 0xBE || third == 0xBF { return true }
        }
        return false
    }

    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // 0x10FF80…0x10FFFF are valid scalars (below 0x10FFFF inclusive, not surrogates).
        Unicode.Scalar(escapeBase + UInt32(byte)) ?? "?"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }

    /// The length of the valid UTF-8 sequence starting at `index` (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF), 0 when none starts there.
    static func validSequenceLength<Bytes: Collection<UInt8>>(_ bytes: Bytes, at index: Int) -> Int where Bytes.Index == Int {
        let lead = bytes[index]
        let (length, secondRange): (Int, ClosedRange<UInt8>)
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: (length, secondRange) = (2, 0x80...0xBF)
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, secondRange) = (3, 0x80...0xBF)
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, secondRange) = (4, 0x80...0xBF)
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: return 0
        }
        guard bytes.endIndex - index >= length, secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }
}
