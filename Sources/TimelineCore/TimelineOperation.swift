/// Every way to change a `TimelineState`, as a value: for event recording, replay and tests.
public enum TimelineOperation: Sendable, Equatable {
    case moveLeftHandle(toSeconds: Double)
    /// `x` is the left edge of the left handle, in view points.
    case dragLeftHandle(toViewXPoints: Double)
    case moveRightHandle(toSeconds: Double)
    /// `x` is the right edge of the right handle, in view points.
    case dragRightHandle(toViewXPoints: Double)
    case scroll(toWindowStartSeconds: Double)
    case scrollContent(toOffsetPoints: Double)
    case setSelection(startSeconds: Double, endSeconds: Double)
    case setPlayhead(seconds: Double)

    /// True for operations that can change the selection (everything but the playhead).
    public var affectsSelection: Bool {
        if case .setPlayhead = self { return false }
        return true
    }
}

extension TimelineState {
    /// Performs `operation`. Returns the notes of a `setSelection` (empty for everything else).
    @discardableResult
    public mutating func apply(_ operation: TimelineOperation) -> [RangeNote] {
        switch operation {
        case .moveLeftHandle(let t): moveLeftHandle(toSeconds: t)
        case .dragLeftHandle(let x): moveLeftHandle(toViewXPoints: x)
        case .moveRightHandle(let t): moveRightHandle(toSeconds: t)
        case .dragRightHandle(let x): moveRightHandle(toViewXPoints: x)
        case .scroll(let w): scroll(toWindowStartSeconds: w)
        case .scrollContent(let offset): scroll(toContentOffsetPoints: offset)
        case .setSelection(let start, let end): return setSelection(startSeconds: start, endSeconds: end)
        case .setPlayhead(let t): setPlayhead(seconds: t)
        }
        return []
    }
}
