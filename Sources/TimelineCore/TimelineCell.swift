/// One thumbnail cell of the strip, in content coordinates (x = 0 at the start of the clip).
///
/// Sample-time policy: the cell's left edge, as VideoLine. Why: it equals `SampleSchedule.every`, so
/// `vtrim thumbs` and `vtrim timeline` agree cell for cell; a handle placed on a cell boundary selects
/// exactly the frame that cell shows; and the left edge of every cell, including a partial last one, lies
/// strictly inside the clip (`sampleTime < duration`), so no request falls past the end.
public struct TimelineCell: Sendable, Equatable {
    public let index: Int
    /// The cell's left edge in time: `index · timeSpacing`.
    public let timeSeconds: Double
    /// When to take the thumbnail: the left edge (see the type's documentation).
    public let sampleTimeSeconds: Double
    public let xPoints: Double
    /// The thumbnail width, except the last cell, which ends at the content width: usually partial, and at
    /// most a noise-sized fraction wider when the clip ends a hair after a full cell.
    public let widthPoints: Double
}

/// The cells of a timeline as a lazy collection: a long clip can have millions, computed on demand.
public struct TimelineCells: RandomAccessCollection, Sendable, Equatable {
    let cellCount: Int
    let timeSpacingSeconds: Double
    let thumbnailWidthPoints: Double
    let contentWidthPoints: Double
    let durationSeconds: Double

    init(
        count: Int, timeSpacingSeconds: Double, thumbnailWidthPoints: Double,
        contentWidthPoints: Double, durationSeconds: Double
    ) {
        self.cellCount = count
        self.timeSpacingSeconds = timeSpacingSeconds
        self.thumbnailWidthPoints = thumbnailWidthPoints
        self.contentWidthPoints = contentWidthPoints
        self.durationSeconds = durationSeconds
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { cellCount }

    /// The cell at `index`; indices outside `0..<count` are clamped to the nearest cell instead of trapping.
    public subscript(index: Int) -> TimelineCell {
        let i = Swift.min(Swift.max(index, 0), Swift.max(cellCount - 1, 0))
        let time = StepCount.time(Double(i), from: 0, to: durationSeconds, spacing: timeSpacingSeconds)
        let x = Double(i) * thumbnailWidthPoints
        var width = thumbnailWidthPoints
        if i == cellCount - 1 {
            let rest = contentWidthPoints - x
            if rest > 0 { width = rest }
        }
        return TimelineCell(index: i, timeSeconds: time, sampleTimeSeconds: time, xPoints: x, widthPoints: width)
    }

    /// The cell at `index`, or nil outside `0..<count`.
    public func cell(at index: Int) -> TimelineCell? {
        indices.contains(index) ? self[index] : nil
    }
}
