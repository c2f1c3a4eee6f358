/// A JSON value whose objects keep their key order, so reports read `path` first and stay stable
/// for diffs and golden tests.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        // JSON has one kind of number: a whole double is written without a fraction (`format`) and reads back as an
        // integer, so 5.0 and 5 (and -0.0, from "-1e-3001", and 0) are the same value. Exactly, no rounding.
        case let (.int(a), .number(b)), let (.number(b), .int(a)): return Int64(exactly: b) == a
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// One line, no spaces (JSON Lines).
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += String(value)
        case let .number(value): out += JSON.format(value)
        case let .string(value): JSON.quote(value, into: &out)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                JSON.quote(member.0, into: &out)
                out += ":"
                member.1.write(to: &out)
            }
            out += "}"
        }
    }

    /// Shortest text that reads back as the same double; integral values without ".0";
    /// NaN and infinity (never expected) as null so the line stays valid JSON.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSON {
    public static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    public static func optional(_ value: Double?) -> JSON { value.map(JSON.number) ?? .null }
    public static func optional(_ value: Int64?) -> JSON { value.map(JSON.int) ?? .null }
}
