/// Text quoted from a file or a request into a message, kept on one line: line breaks and other control
/// characters shown escaped.
enum OneLine {
    static func text(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else { return text }
        return String(text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\t": return "\\t"
            default:
                return scalar.properties.generalCategory == .control || scalar.properties.isWhitespace && scalar.value > 0x7F
                    ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }.joined())
    }
}
