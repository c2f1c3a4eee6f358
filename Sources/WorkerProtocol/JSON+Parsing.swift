/// Reading JSON text back into `JSON`, keeping the order of object members (Foundation's
/// JSONSerialization returns dictionaries, which lose it, and the serve worker's replies are reports whose
/// key order is the contract's). Integers without a fraction or exponent that fit Int64 stay `.int`.
extension JSON {
    public struct ParseError: Error, CustomStringConvertible {
        public let offset: Int
        public let message: String
        public var description: String { "JSON at byte \(offset): \(message)" }
    }

    public init(parsing text: String) throws(ParseError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.document()
    }

    /// A number's value, whether it was written with a fraction or not (parsing gives `.int` for `4`).
    public var doubleValue: Double? {
        switch self {
        case let .number(value): return value
        case let .int(value): return Double(value)
        default: return nil
        }
    }

    /// The member named `key` of an object (nil for other values or a missing key).
    public func member(_ key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}

/// A recursive-descent parser over UTF-8 bytes; nesting is limited so hostile input cannot exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maximumDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(JSON.ParseError) -> JSON {
        let value = try parseValue()
        skipSpace()
        guard index == bytes.count else { throw failure("text after the value") }
        return value
    }

    private func failure(_ message: String) -> JSON.ParseError { JSON.ParseError(offset: index, message: message) }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() throws(JSON.ParseError) -> JSON {
        skipSpace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try parseNumber()
        }
    }

    private mutating func literal(_ word: String, _ value: JSON) throws(JSON.ParseError) -> JSON {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw failure("unexpected character")
        }
        index += expected.count
        return value
    }

    private mutating func nested<T>(_ body: (inout JSONParser) throws(JSON.ParseError) -> T) throws(JSON.ParseError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw failure("nested too deeply") }
        return try body(&self)
    }

    private mutating func parseObject() throws(JSON.ParseError) -> JSON {
        var members: [(String, JSON)] = []
        try elements(closer: UInt8(ascii: "}")) { (parser: inout JSONParser) throws(JSON.ParseError) in
            parser.skipSpace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                throw parser.failure("expected a member name")
            }
            let key = try parser.parseString()
            parser.skipSpace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else {
                throw parser.failure("expected ':'")
            }
            parser.index += 1
            members.append((key, try parser.parseValue()))
        }
        return .object(members)
    }

    private mutating func parseArray() throws(JSON.ParseError) -> JSON {
        var values: [JSON] = []
        try elements(closer: UInt8(ascii: "]")) { (parser: inout JSONParser) throws(JSON.ParseError) in values.append(try parser.parseValue()) }
        return .array(values)
    }

    /// An array's or object's elements, one nesting level deeper: after the opener, none before `closer`, or elements
    /// separated by commas up to it.
    private mutating func elements(closer: UInt8, _ element: (inout JSONParser) throws(JSON.ParseError) -> Void) throws(JSON.ParseError) {
        try nested { (parser: inout JSONParser) throws(JSON.ParseError) in
            parser.index += 1
            parser.skipSpace()
            if parser.index < parser.bytes.count, parser.bytes[parser.index] == closer {
                parser.index += 1
                return
            }
            while true {
                try element(&parser)
                parser.skipSpace()
                guard parser.index < parser.bytes.count else { throw parser.failure("unexpected end") }
                if parser.bytes[parser.index] == UInt8(ascii: ",") {
                    parser.index += 1
                    continue
                }
                guard parser.bytes[parser.index] == closer else {
                    throw parser.failure("expected ',' or '\(Character(Unicode.Scalar(closer)))'")
                }
                parser.index += 1
                return
            }
        }
    }

    private mutating func parseString() throws(JSON.ParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ parser: JSONParser, upTo end: Int, into scalars: inout String.UnicodeScalarView) {
            if end > run { scalars.append(contentsOf: String(decoding: parser.bytes[run..<end], as: UTF8.self).unicodeScalars) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(self, upTo: index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                flush(self, upTo: index, into: &scalars)
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) { code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00) }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw failure("unknown escape")
                }
                run = index
                continue
            }
            index += 1
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws(JSON.ParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("bad \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSON.ParseError) -> JSON {
        let start = index
        var integral = true
        while index < bytes.count {
            let byte = bytes[index]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                index += 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                integral = false
                index += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard !text.isEmpty, let value = Double(text), value.isFinite else { throw failure("not a number") }
        return .number(value)
    }
}
