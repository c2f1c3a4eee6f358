/// Small numeric helpers shared by the model. Internal: none of them is part of the API.

/// `x` limited to `lo...hi`; NaN becomes `lo`. Returns the bound itself when `x` is outside, so `-0.0`
/// or a value an ulp past the bound never leaks through.
func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double {
    if x.isNaN || x <= lo { return lo }
    if x >= hi { return hi }
    return x
}

/// `x` limited to `range`; NaN becomes the lower bound.
func clamp(_ x: Double, to range: ClosedRange<Double>) -> Double {
    clamp(x, range.lowerBound, range.upperBound)
}

/// A closed range, or nil when `lo > hi` or either is NaN (where `lo...hi` would trap).
func closedRange(_ lo: Double, _ hi: Double) -> ClosedRange<Double>? {
    guard lo <= hi else { return nil }
    return lo...hi
}

extension Double {
    /// Equality that treats NaN as equal to NaN, for `Equatable` error payloads that echo bad input.
    func isSameNumber(as other: Double) -> Bool {
        self == other || (isNaN && other.isNaN)
    }
}

/// Finds the double nearest to a computed bound that really satisfies the rule it stands for.
///
/// Why: a bound such as `end − minLength` computed in floating point may sit an ulp on the wrong side of
/// the rule (`end − bound ≥ minLength` false). The computed value is kept when it already satisfies the
/// rule, so ordinary numbers stay as the user wrote them; otherwise a few ulps' step finds the edge.
enum AdjacentDoubles {
    /// More than enough: one rounding error is at most one ulp of the operands.
    static let maximumSteps = 64

    /// `guess` if `holds(guess)`, else the nearest smaller double that holds (for a rule that holds below
    /// some threshold). Nil when none within reach does.
    static func atOrBelow(_ guess: Double, where holds: (Double) -> Bool) -> Double? {
        search(from: guess, step: { $0.nextDown }, holds)
    }

    /// `guess` if `holds(guess)`, else the nearest larger double that holds (for a rule that holds above
    /// some threshold). Nil when none within reach does.
    static func atOrAbove(_ guess: Double, where holds: (Double) -> Bool) -> Double? {
        search(from: guess, step: { $0.nextUp }, holds)
    }

    private static func search(
        from guess: Double, step: (Double) -> Double, _ holds: (Double) -> Bool
    ) -> Double? {
        var x = guess
        for _ in 0...maximumSteps {
            guard x.isFinite else { return nil }
            if holds(x) { return x }
            x = step(x)
        }
        return nil
    }
}
