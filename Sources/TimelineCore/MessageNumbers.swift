/// Number formatting for human messages (errors and notes).
enum MessageNumber {
    /// Whole numbers without a decimal point ("119"), others in Swift's shortest exact form ("37.9",
    /// "1e-07"), non-finite values as "nan" / "inf" / "-inf". Exact, so a message never hides a difference.
    static func text(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), value.magnitude < 1e15 {
            return FixedPointFormat.string(value, fractionDigits: 0)
        }
        return value.description
    }

    /// A length for messages: milliseconds with trailing zeros trimmed but one decimal kept ("1.0",
    /// "1.25"). Falls back to the exact form when that rounding would make it equal to `limit`.
    static func length(_ value: Double, comparedWith limit: Double) -> String {
        let rounded = trimmedMilliseconds(value, keepOneDecimal: true)
        if value != limit, rounded == trimmedMilliseconds(limit, keepOneDecimal: true) {
            return value.description
        }
        return rounded
    }

    /// Milliseconds with trailing zeros removed: "2", "2.5", "0.04".
    static func trimmedMilliseconds(_ value: Double, keepOneDecimal: Bool = false) -> String {
        var text = FixedPointFormat.string(value, fractionDigits: 3)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") {
            if keepOneDecimal { text += "0" } else { text.removeLast() }
        }
        return text
    }
}
