/// The hand-written reader behind `TimeSpec(parsing:)`, over ASCII bytes.
enum TimeSpecParser {
    private static let colon = UInt8(ascii: ":")
    private static let point = UInt8(ascii: ".")
    private static let minus = UInt8(ascii: "-")

    static func parse(_ text: String) throws(TimeSpecError) -> TimeSpec {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        if bytes.starts(with: Array("end".utf8)) {
            let rest = bytes.dropFirst(3)
            guard let sign = rest.first else { return .beforeEnd(0) }
            guard sign == minus, rest.count > 1 else { throw .malformed(text) }
            return .beforeEnd(try clock(rest.dropFirst(), text))
        }
        if bytes[0] == minus {
            if (try? clock(bytes.dropFirst(), text)) != nil { throw .negative(text) }
            throw .malformed(text)
        }
        return .seconds(try clock(bytes[...], text))
    }

    /// Seconds, `m:ss(.fff)` or `h:mm:ss(.fff)`.
    private static func clock(_ bytes: ArraySlice<UInt8>, _ text: String) throws(TimeSpecError) -> Double {
        let fields = bytes.split(separator: colon, omittingEmptySubsequences: false)
        guard fields.count <= 3 else { throw .tooManyFields(text) }
        guard let lastField = fields.last else { throw .malformed(text) }
        let lastParts = lastField.split(separator: point, omittingEmptySubsequences: false)
        guard lastParts.count <= 2, let lastWhole = lastParts.first else { throw .malformed(text) }
        let fraction = lastParts.count == 2 ? lastParts[lastParts.startIndex + 1] : []
        guard lastParts.count == 1 || !fraction.isEmpty, isDigits(fraction) else { throw .malformed(text) }

        let wholeFields = fields.dropLast() + [lastWhole]
        let names: [TimeSpecError.Field] = wholeFields.count == 3 ? [.minutes, .seconds] : [.seconds]
        var total: UInt64 = 0
        for (position, field) in wholeFields.enumerated() {
            guard !field.isEmpty, isDigits(field) else { throw .malformed(text) }
            guard let value = integer(field) else { throw .tooLarge(text) }
            if position > 0 {
                let name = names[position - 1]
                guard field.count == 2 else { throw .fieldNeedsTwoDigits(text, field: name) }
                guard value < 60 else { throw .fieldOutOfRange(text, field: name, value: Int(value)) }
            }
            let (scaled, overflow) = total.multipliedReportingOverflow(by: position == 0 ? 1 : 60)
            let (sum, carry) = scaled.addingReportingOverflow(value)
            guard !overflow, !carry else { throw .tooLarge(text) }
            total = sum
        }
        guard Double(total) <= TimelineLimits.maximumDurationSeconds else { throw .tooLarge(text) }
        guard !fraction.isEmpty else { return Double(total) }
        // One correctly rounded conversion of the whole decimal: no accumulated float error.
        let decimal = String(total) + "." + String(decoding: fraction, as: UTF8.self)
        guard let value = Double(decimal), value.isFinite else { throw .malformed(text) }
        return value
    }

    private static func isDigits(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The field's value, or nil when it overflows 64 bits.
    private static func integer(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = scaled.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
