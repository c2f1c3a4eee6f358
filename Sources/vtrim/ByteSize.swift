/// A size on the command line: bytes, or a number with K, M or G (powers of 1024), e.g. `512M`.
enum ByteSize {
    static func parse(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            scale = unit
            digits = digits.dropLast()
        } else if digits.hasSuffix("B"), let unit = units[digits.dropLast().last ?? " "] {
            scale = unit
            digits = digits.dropLast(2)
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int64(digits), value >= 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }
}
