/// printf-style `%.Nf` formatting written by hand (no Foundation), exact for every finite double.
///
/// Why exact: VideoLine shows the duration with `String(format: "%.1f")`, which rounds the double's exact
/// binary value to nearest, ties to even. 2.05 is stored as 2.04999…, so it prints "2.0"; 0.25 is an exact
/// tie, so it prints "0.2". This reproduces that digit for digit, including "-0.0" for small negatives.
enum FixedPointFormat {
    /// `value` with exactly `fractionDigits` decimals (0…3; others are limited to that range).
    /// NaN and infinities print as "nan", "inf" and "-inf", as printf does.
    static func string(_ value: Double, fractionDigits: Int) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        let digitsAfterPoint = min(max(fractionDigits, 0), 3)
        var digits = scaledDigits(value.magnitude, fractionDigits: digitsAfterPoint)
        while digits.count <= digitsAfterPoint { digits = "0" + digits }
        let sign = value.sign == .minus ? "-" : ""
        guard digitsAfterPoint > 0 else { return sign + digits }
        let integerPart = digits.dropLast(digitsAfterPoint)
        let fractionPart = digits.suffix(digitsAfterPoint)
        return sign + integerPart + "." + fractionPart
    }

    /// `round(magnitude × 10ⁿ)` (ties to even) when it fits in 64 bits; nil otherwise.
    static func roundedScaled(_ magnitude: Double, fractionDigits n: Int) -> UInt64? {
        let (significand, exponent) = decompose(magnitude)
        let scaled = significand * power10(n)  // < 2⁵³ × 10³ < 2⁶³
        if exponent >= 0 {
            guard exponent < 64 else { return significand == 0 ? 0 : nil }
            let (result, overflow) = scaled.multipliedReportingOverflow(by: 1 << UInt64(exponent))
            return overflow || (result >> UInt64(exponent)) != scaled ? nil : result
        }
        let shift = -exponent
        guard shift < 64 else { return 0 }  // scaled < 2⁶³ ≤ half of 2^shift: rounds to 0
        var quotient = scaled >> UInt64(shift)
        let remainder = scaled & ((1 << UInt64(shift)) - 1)
        let half: UInt64 = 1 << UInt64(shift - 1)
        if remainder > half || (remainder == half && quotient & 1 == 1) { quotient += 1 }
        return quotient
    }

    /// Decimal digits of `round(magnitude × 10ⁿ)`, ties to even, for any finite non-negative double.
    private static func scaledDigits(_ magnitude: Double, fractionDigits n: Int) -> String {
        if let small = roundedScaled(magnitude, fractionDigits: n) { return String(small) }
        // Only integers ≥ 2⁶⁴ / 10ⁿ get here: an exact integer, printed with a base-10⁹ big number.
        let (significand, exponent) = decompose(magnitude)
        return BigDecimalDigits.digits(of: significand * power10(n), timesPowerOfTwo: exponent)
    }

    /// `magnitude = significand × 2^exponent` with an integer significand below 2⁵³.
    private static func decompose(_ magnitude: Double) -> (significand: UInt64, exponent: Int) {
        let bits = magnitude.significandBitPattern
        let biased = Int(magnitude.exponentBitPattern)
        if biased == 0 { return (bits, -1074) }
        return (bits | (1 << 52), biased - 1075)
    }

    private static func power10(_ n: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<n { result *= 10 }
        return result
    }
}

/// Just enough big-number arithmetic to print `value × 2^k` for doubles up to 1.8 × 10³⁰⁸.
private enum BigDecimalDigits {
    static let limbBase: UInt64 = 1_000_000_000

    static func digits(of value: UInt64, timesPowerOfTwo exponent: Int) -> String {
        // Little-endian limbs in base 10⁹.
        var limbs: [UInt64] = []
        var rest = value
        repeat {
            limbs.append(rest % limbBase)
            rest /= limbBase
        } while rest > 0
        var remaining = exponent
        while remaining > 0 {
            let step = min(remaining, 29)  // limb × 2²⁹ + carry < 2⁶⁴
            remaining -= step
            var carry: UInt64 = 0
            for index in limbs.indices {
                let product = (limbs[index] << UInt64(step)) + carry
                limbs[index] = product % limbBase
                carry = product / limbBase
            }
            while carry > 0 {
                limbs.append(carry % limbBase)
                carry /= limbBase
            }
        }
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return text
    }
}
