/// Mapping between seconds and points.
///
/// Coordinates:
/// - content x: points along the thumbnail strip, 0 at the start of the clip (cells use it);
/// - view x: points in the control, 0 at its left edge; the window starts at `marginPoints`;
/// - content offset: UIKit's `contentOffset.x`, `windowStart / secondsPerPoint − margin` (VideoLine starts
///   at `−margin`).
///
/// View positions map through the window: `t = windowStart + maxEffective · (x − margin) / windowWidth`,
/// the same line as VideoLine's `(x + contentOffset) · secondsPerPoint`, written so that both window edges
/// map exactly. Inputs outside the clip (or the scroll range) are clamped to it; NaN gives nil.
extension TimelineGeometry {
    public func seconds(atContentXPoints x: Double) -> Double? {
        guard !x.isNaN else { return nil }
        return clamp(x * secondsPerPoint, 0, durationSeconds)
    }

    public func contentXPoints(forSeconds t: Double) -> Double? {
        guard !t.isNaN else { return nil }
        return clamp(t, 0, durationSeconds) / secondsPerPoint
    }

    public func seconds(atViewXPoints x: Double, windowStartSeconds w: Double) -> Double? {
        guard !x.isNaN, !w.isNaN else { return nil }
        return clamp(unclampedSeconds(atViewXPoints: x, windowStartSeconds: clampedWindowStart(w)), 0, durationSeconds)
    }

    public func viewXPoints(forSeconds t: Double, windowStartSeconds w: Double) -> Double? {
        guard !t.isNaN, !w.isNaN else { return nil }
        return unclampedViewX(forSeconds: clamp(t, 0, durationSeconds), windowStartSeconds: clampedWindowStart(w))
    }

    public func contentOffsetPoints(forWindowStartSeconds w: Double) -> Double? {
        guard !w.isNaN else { return nil }
        return clampedWindowStart(w) / secondsPerPoint - marginPoints
    }

    public func windowStartSeconds(forContentOffsetPoints offset: Double) -> Double? {
        guard !offset.isNaN else { return nil }
        return clampedWindowStart((offset + marginPoints) * secondsPerPoint)
    }

    func clampedWindowStart(_ w: Double) -> Double {
        clamp(w, 0, maxWindowStartSeconds)
    }

    /// May be infinite for huge or infinite `x`; callers clamp. NaN only for NaN input.
    func unclampedSeconds(atViewXPoints x: Double, windowStartSeconds w: Double) -> Double {
        w + maxEffectiveSeconds * ((x - marginPoints) / windowWidthPoints)
    }

    /// For times in the clip and a valid window start: finite.
    func unclampedViewX(forSeconds t: Double, windowStartSeconds w: Double) -> Double {
        marginPoints + windowWidthPoints * ((t - w) / maxEffectiveSeconds)
    }
}
