/// Bounds on inputs that keep every derived number finite, exactly comparable and small enough to list.
///
/// Why limits at all: without them a 10⁻³⁰⁰ s clip divides down to zero seconds per point, a 10³⁰⁰ pt strip
/// overflows the content width, and a tiny spacing asks for more thumbnails than memory holds.
/// The values are far outside anything a screen or a video produces.
public enum TimelineLimits: Sendable {
    /// Shortest clip, selection length or time step accepted: 1 µs, far below one video frame.
    public static let minimumSeconds: Double = 0.000_001

    /// Longest clip accepted: 10⁹ s (about 31.7 years).
    public static let maximumDurationSeconds: Double = 1_000_000_000

    /// Narrowest thumbnail accepted, each way. VideoLine divides by `Int(thumbWidth)`, which traps below 1 pt.
    public static let minimumThumbnailPoints: Double = 1

    /// Widest strip, thumbnail or handle accepted.
    public static let maximumPoints: Double = 1_000_000

    /// Most thumbnail cells a timeline may have. Cells are computed lazily, so this only bounds the numbers.
    public static let maximumThumbnailCount: Int = 10_000_000

    /// Most sample times `SampleSchedule` returns in one array (each one is a decoded frame).
    public static let maximumSampleCount: Int = 1_000_000
}
