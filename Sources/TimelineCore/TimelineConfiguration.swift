/// The inputs of a trimming timeline, exactly as a UI or the CLI knows them. Not validated: build a
/// `TimelineGeometry` from it to get errors or the derived numbers.
public struct TimelineConfiguration: Sendable, Equatable {
    /// Length of the clip (the container duration).
    public var durationSeconds: Double
    /// Width of the whole control (VideoLine's `frame.width`).
    public var stripWidthPoints: Double
    public var thumbnailWidthPoints: Double
    public var thumbnailHeightPoints: Double
    /// Shortest selection (VideoLine `range.minDuration`, default 2 s).
    public var minDurationSeconds: Double
    /// Longest selection (VideoLine `range.maxDuration`, default 5 s); it is also the visible window.
    public var maxDurationSeconds: Double
    /// Width of each slider handle (VideoLine uses 10 pt); layout only.
    public var handleWidthPoints: Double

    public init(
        durationSeconds: Double,
        stripWidthPoints: Double,
        thumbnailWidthPoints: Double,
        thumbnailHeightPoints: Double,
        minDurationSeconds: Double = 2,
        maxDurationSeconds: Double = 5,
        handleWidthPoints: Double = 10
    ) {
        self.durationSeconds = durationSeconds
        self.stripWidthPoints = stripWidthPoints
        self.thumbnailWidthPoints = thumbnailWidthPoints
        self.thumbnailHeightPoints = thumbnailHeightPoints
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.handleWidthPoints = handleWidthPoints
    }

    /// Sets the selection limits a user gave, keeping VideoLine's defaults for the others: given only a
    /// maximum below the default minimum, the minimum follows it down rather than contradicting it.
    public mutating func setLimits(minimumSeconds: Double?, maximumSeconds: Double?) {
        if let maximumSeconds {
            maxDurationSeconds = maximumSeconds
            if minimumSeconds == nil { minDurationSeconds = min(minDurationSeconds, maximumSeconds) }
        }
        if let minimumSeconds { minDurationSeconds = minimumSeconds }
    }
}
