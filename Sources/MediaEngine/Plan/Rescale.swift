/// Integer time-base conversion without FFmpeg (the planner is pure): to nearest (half away from zero)
/// or down, saturating.
enum Rescale {
    static func ticks(_ value: Int64, from: Rational, to: Rational, roundingDown: Bool = false) -> Int64 {
        let numerator = Int64(from.numerator).multipliedReportingOverflow(by: Int64(to.denominator))
        let denominator = Int64(from.denominator).multipliedReportingOverflow(by: Int64(to.numerator))
        guard !numerator.overflow, !denominator.overflow, denominator.partialValue > 0, numerator.partialValue > 0 else { return value }
        let product = value.multipliedReportingOverflow(by: numerator.partialValue)
        guard !product.overflow else {
            let scaled = Double(value) * Double(numerator.partialValue) / Double(denominator.partialValue)
            if scaled >= 9.2e18 { return .max }
            if scaled <= -9.2e18 { return .min }
            return Int64(roundingDown ? scaled.rounded(.down) : scaled.rounded())
        }
        let (quotient, remainder) = product.partialValue.quotientAndRemainder(dividingBy: denominator.partialValue)
        if remainder == 0 { return quotient }
        if roundingDown { return product.partialValue < 0 ? quotient - 1 : quotient }
        if remainder.magnitude * 2 >= denominator.partialValue.magnitude { return product.partialValue > 0 ? quotient + 1 : quotient - 1 }
        return quotient
    }
}
