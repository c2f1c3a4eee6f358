/// Where to draw things, in view points.
///
/// Handle-edge convention (VideoLine's): the selection starts at the LEFT edge of the left handle and ends
/// at the RIGHT edge of the right handle, so both handles lie inside the selected span. With the demo
/// configuration (375 pt, 30 pt thumbnails, 2–5 s) and the window at 0, the left handle at x = 37.5 and the
/// right handle's right edge at x = 337.5 select exactly [0, 5] s.
extension TimelineState {
    /// Left edge of the left handle.
    public var leftHandleXPoints: Double {
        geometry.unclampedViewX(forSeconds: startSeconds, windowStartSeconds: windowStartSeconds)
    }

    /// Right edge of the right handle.
    public var rightHandleMaxXPoints: Double {
        geometry.unclampedViewX(forSeconds: endSeconds, windowStartSeconds: windowStartSeconds)
    }

    /// Left edge of the right handle (`rightHandleMaxX − handleWidth`), for layout.
    public var rightHandleMinXPoints: Double {
        rightHandleMaxXPoints - geometry.configuration.handleWidthPoints
    }

    /// UIKit's `contentOffset.x` for the current scroll position.
    public var contentOffsetPoints: Double {
        windowStartSeconds / geometry.secondsPerPoint - geometry.marginPoints
    }

    /// The selection is narrower than the two handles side by side.
    public var handlesOverlap: Bool {
        rightHandleMaxXPoints - leftHandleXPoints < 2 * geometry.configuration.handleWidthPoints
    }

    /// The clip time under view position `x` at the current scroll position (clamped to the clip).
    public func seconds(atViewXPoints x: Double) -> Double? {
        geometry.seconds(atViewXPoints: x, windowStartSeconds: windowStartSeconds)
    }

    /// The view position of clip time `t` at the current scroll position.
    public func viewXPoints(forSeconds t: Double) -> Double? {
        geometry.viewXPoints(forSeconds: t, windowStartSeconds: windowStartSeconds)
    }
}
