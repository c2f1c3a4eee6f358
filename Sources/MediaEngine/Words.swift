/// How times read in vtrim's messages: seconds with milliseconds ("1.500 s"); never traps.
enum Words {
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "? s" }
        let rounded = (value * 1000).rounded() / 1000
        var text = String(format: "%.3f", rounded == 0 ? 0 : rounded)
        if text == "-0.000" { text = "0.000" }
        return text + " s"
    }

    /// "1,638 samples (37.1 ms)": a count of samples with its time at `rate`.
    static func samples(_ count: Int64, rate: Int) -> String {
        let milliseconds = rate > 0 ? Double(count) * 1000 / Double(rate) : 0
        return "\(count) sample\(count == 1 ? "" : "s") (\(String(format: "%.1f", milliseconds)) ms)"
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }
}
