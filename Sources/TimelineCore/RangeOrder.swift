/// The one rule for a join's ranges, on every surface (command line, lists, the page's API): in time order,
/// touching allowed, never overlapping, never empty. Spans are (start, end) in seconds.
public enum RangeOrder: Sendable {
    /// Why the spans break the rule (nil when they keep it), naming the ranges 1-based as the user gave them.
    public static func problem(spans: [(start: Double, end: Double)]) -> String? {
        for (index, span) in spans.enumerated() {
            guard span.start.isFinite, span.end.isFinite else { return "range \(index + 1) is not a pair of finite times" }
            guard span.end > span.start else {
                return "range \(index + 1) (\(seconds(span.start))–\(seconds(span.end))) is empty: its end must come after its start"
            }
            // A millionth of a second of slack: times written to the microsecond that touch are touching.
            if index > 0, span.start < spans[index - 1].end - 1e-6 {
                return "range \(index + 1) (\(seconds(span.start))–\(seconds(span.end))) starts before range \(index) ends (\(seconds(spans[index - 1].end))): ranges must be in time order and must not overlap"
            }
        }
        return nil
    }

    private static func seconds(_ value: Double) -> String { TimeFormatting.exactSeconds(value) + " s" }
}
