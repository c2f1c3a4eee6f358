/// A validated timeline: every number VideoLine derives from its inputs, without its traps.
///
/// VideoLine-compatible derivation (`setupData()`), with the differences documented per property:
/// - `minCount = floor(width / thumbWidth) − 2`
/// - `maxEffective = min(maxDuration, duration)`, `minEffective = min(minDuration, maxEffective)`
/// - `timeSpacing = maxEffective / minCount`, `secondsPerPoint = timeSpacing / thumbWidth`
/// - `margin = (width − minCount·thumbWidth) / 2`
///
/// The window between the margins is `minCount·thumbWidth` points and exactly `maxEffective` seconds wide.
public struct TimelineGeometry: Sendable, Equatable {
    public let configuration: TimelineConfiguration

    /// Thumbnails that fit in the window. Floors `width / thumbWidth` on the real values, unlike VideoLine's
    /// `Int(width) / Int(thumbWidth)` truncation: 375 / 37.9 gives 9 − 2 = 7 here and 375 / 37 − 2 = 8 there.
    /// Truncating first lets the margin go negative (100 / 1.9) and divides by zero below 1 pt.
    public let minCount: Int
    /// Longest selection: the maximum clamped to the clip. Also the window's length in seconds.
    public let maxEffectiveSeconds: Double
    /// Shortest selection: the minimum clamped to `maxEffectiveSeconds`.
    public let minEffectiveSeconds: Double
    /// Seconds between thumbnail cells (cell i starts at `i · timeSpacing`).
    public let timeSpacingSeconds: Double
    public let secondsPerPoint: Double
    /// Space left and right of the window, in view points.
    public let marginPoints: Double
    /// The window between the margins: `minCount · thumbWidth`.
    public let windowWidthPoints: Double
    /// `ceil(duration / timeSpacing − ε)`: the whole clip is covered and float noise never adds or drops a
    /// cell (VideoLine's `Int(duration / timeSpacing)` loses the tail and, through rounding, whole cells).
    public let thumbnailCount: Int
    /// `duration / secondsPerPoint`, continuous: the last cell may be partial, so every time is reachable.
    public let contentWidthPoints: Double
    /// False when the clip is not longer than the minimum selection: the selection is then the whole clip
    /// and nothing moves (VideoLine asserts on such clips under 1 s).
    public let isAdjustable: Bool
    /// Greatest scroll position: the window's start when its end is at the end of the clip.
    public let maxWindowStartSeconds: Double

    let rules: ExactRangeRules

    /// Validates `configuration` and derives everything; never produces NaN or infinity.
    public init(configuration: TimelineConfiguration) throws(TimelineError) {
        try Self.validate(configuration)
        let c = configuration
        let slots = (c.stripWidthPoints / c.thumbnailWidthPoints).rounded(.down)
        guard slots >= 3 else {
            throw .stripTooNarrow(
                stripWidthPoints: c.stripWidthPoints, thumbnailWidthPoints: c.thumbnailWidthPoints)
        }
        let duration = c.durationSeconds
        let maxClamped = min(c.maxDurationSeconds, duration)
        let rules = ExactRangeRules(
            durationSeconds: duration,
            minLengthSeconds: min(c.minDurationSeconds, maxClamped),
            maxLengthSeconds: maxClamped)
        let minCount = Int(slots) - 2  // slots ≤ maximumPoints / minimumThumbnailPoints: fits
        let timeSpacing = rules.maxLengthSeconds / Double(minCount)
        guard
            let count = StepCount.count(
                from: 0, to: duration, spacing: timeSpacing, limit: TimelineLimits.maximumThumbnailCount)
        else {
            throw .tooManyThumbnails(
                count: duration / timeSpacing, limit: TimelineLimits.maximumThumbnailCount)
        }
        let secondsPerPoint = timeSpacing / c.thumbnailWidthPoints
        let windowWidth = Double(minCount) * c.thumbnailWidthPoints

        self.configuration = c
        self.rules = rules
        self.minCount = minCount
        self.maxEffectiveSeconds = rules.maxLengthSeconds
        self.minEffectiveSeconds = rules.minLengthSeconds
        self.timeSpacingSeconds = timeSpacing
        self.secondsPerPoint = secondsPerPoint
        self.windowWidthPoints = windowWidth
        self.marginPoints = (c.stripWidthPoints - windowWidth) / 2
        self.thumbnailCount = Int(count)
        self.contentWidthPoints = duration / secondsPerPoint
        self.isAdjustable = duration > c.minDurationSeconds
        self.maxWindowStartSeconds = (rules.durationTicks - rules.maxTicks) * rules.quantumSeconds
    }

    private static func validate(_ c: TimelineConfiguration) throws(TimelineError) {
        let limits = TimelineLimits.self
        let d = c.durationSeconds
        guard d.isFinite, d >= limits.minimumSeconds, d <= limits.maximumDurationSeconds else {
            throw .invalidDuration(seconds: d)
        }
        let width = c.stripWidthPoints
        guard width.isFinite, width > 0, width <= limits.maximumPoints else {
            throw .invalidStripWidth(points: width)
        }
        let thumbRange = limits.minimumThumbnailPoints...limits.maximumPoints
        guard c.thumbnailWidthPoints.isFinite, thumbRange.contains(c.thumbnailWidthPoints) else {
            throw .invalidThumbnailWidth(points: c.thumbnailWidthPoints)
        }
        guard c.thumbnailHeightPoints.isFinite, thumbRange.contains(c.thumbnailHeightPoints) else {
            throw .invalidThumbnailHeight(points: c.thumbnailHeightPoints)
        }
        let handle = c.handleWidthPoints
        guard handle.isFinite, handle >= 0, handle <= limits.maximumPoints else {
            throw .invalidHandleWidth(points: handle)
        }
        guard c.minDurationSeconds.isFinite, c.minDurationSeconds >= limits.minimumSeconds else {
            throw .invalidMinDuration(seconds: c.minDurationSeconds)
        }
        guard c.maxDurationSeconds.isFinite, c.maxDurationSeconds >= limits.minimumSeconds else {
            throw .invalidMaxDuration(seconds: c.maxDurationSeconds)
        }
        guard c.minDurationSeconds <= c.maxDurationSeconds else {
            throw .minDurationExceedsMax(minSeconds: c.minDurationSeconds, maxSeconds: c.maxDurationSeconds)
        }
    }

    public var durationSeconds: Double { configuration.durationSeconds }

    /// The grid the model falls back to for exact limits: one ulp of the duration (7.1 × 10⁻¹⁵ s for a
    /// one-minute clip). Effective limits differ from the configured ones by less than this, and only when
    /// no two times on the clip can be exactly a non-representable fixed length apart.
    public var timeQuantumSeconds: Double { rules.quantumSeconds }

    /// One cell per thumbnail, computed on demand.
    public var cells: TimelineCells {
        TimelineCells(
            count: thumbnailCount, timeSpacingSeconds: timeSpacingSeconds,
            thumbnailWidthPoints: configuration.thumbnailWidthPoints,
            contentWidthPoints: contentWidthPoints, durationSeconds: durationSeconds)
    }

    /// True when a minimum-length selection is narrower than the two handles side by side (VideoLine
    /// overlaps them; a UI may draw them outside the span instead). The model is unaffected.
    public var handlesOverlapAtMinimumSelection: Bool {
        minEffectiveSeconds / secondsPerPoint < 2 * configuration.handleWidthPoints
    }
}
