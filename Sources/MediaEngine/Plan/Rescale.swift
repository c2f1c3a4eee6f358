/// Integer time-base conversion without FFmpeg (the planner is pure): to nearest (half away from zero)
/// or down, saturating. Exact for every input: the product is taken at 128 bits (as `av_rescale_rnd` does), so a
/// conversion between equal or nearly equal time bases never loses the low bits of a large timestamp.
enum Rescale {
    static func ticks(_ value: Int64, from: Rational, to: Rational, roundingDown: Bool = false) -> Int64 {
        let numerator = Int64(from.numerator).multipliedReportingOverflow(by: Int64(to.denominator))
        let denominator = Int64(from.denominator).multipliedReportingOverflow(by: Int64(to.numerator))
        guard !numerator.overflow, !denominator.overflow, denominator.partialValue > 0, numerator.partialValue > 0 else { return value }
        return scaled(value, by: UInt64(numerator.partialValue), over: UInt64(denominator.partialValue), roundingDown: roundingDown)
    }

    /// value × numerator / denominator on magnitudes at 128 bits, rounded, then signed and saturated.
    private static func scaled(_ value: Int64, by numerator: UInt64, over denominator: UInt64, roundingDown: Bool) -> Int64 {
        let negative = value < 0
        let product = value.magnitude.multipliedFullWidth(by: numerator)
        guard product.high < denominator else { return negative ? .min : .max }
        let (quotient, remainder) = denominator.dividingFullWidth(product)
        // Down means towards −∞: a negative value with a remainder goes one further from zero.
        let roundsAway = remainder != 0 && (roundingDown ? negative : remainder >= denominator - remainder)
        let (magnitude, carried) = quotient.addingReportingOverflow(roundsAway ? 1 : 0)
        if negative { return carried || magnitude > Int64.min.magnitude ? .min : Int64(truncatingIfNeeded: 0 &- magnitude) }
        return carried || magnitude > UInt64(Int64.max) ? .max : Int64(magnitude)
    }
}
