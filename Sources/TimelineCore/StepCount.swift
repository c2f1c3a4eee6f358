/// How many steps `from + i·spacing` (i = 0, 1, …) start before `to`, ignoring float noise.
///
/// Why one function: the timeline's thumbnail count and `SampleSchedule.every` must agree cell for cell.
/// A step that would start within `tolerance` of `to` is float noise, not a real sliver (VideoLine instead
/// truncates `duration / spacing` and loses a cell to noise, e.g. 6.999999999999999 for a 1.002 s clip).
enum StepCount {
    /// Noise allowance in seconds: 10⁻⁹ of a step plus 10⁻¹² of the largest time involved
    /// (about 4,500 ulps, well above the few ulps a division and a multiplication can be off).
    static func tolerance(from: Double, to: Double, spacing: Double) -> Double {
        spacing * 1e-9 + max(from.magnitude, to.magnitude) * 1e-12
    }

    /// The count as a whole number (at least 1; `from + 0·spacing` always counts), or nil when it exceeds
    /// `limit`. Expects finite `from < to` and a finite `spacing > 0`.
    static func count(from: Double, to: Double, spacing: Double, limit: Int) -> Double? {
        let last = to - tolerance(from: from, to: to, spacing: spacing)
        let estimate = ((last - from) / spacing).rounded(.up)
        guard estimate.isFinite, estimate <= Double(limit) + 2 else { return nil }
        var count = max(1, estimate)
        // The estimate can be off by a step either way; correct it against the times themselves.
        var corrections = 0
        while corrections < 4, count > 1, from + (count - 1) * spacing >= last {
            count -= 1
            corrections += 1
        }
        while corrections < 8, from + count * spacing < last {
            count += 1
            corrections += 1
        }
        return count <= Double(limit) ? count : nil
    }

    /// The i-th step time, never at or past `to` (float noise on huge offsets is clamped away).
    static func time(_ index: Double, from: Double, to: Double, spacing: Double) -> Double {
        min(from + index * spacing, max(from, to.nextDown))
    }
}
