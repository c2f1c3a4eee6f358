/// A position on the output's timeline, in the ticks of the video stream's time base (an exact cut's: its encoder
/// grid). Source positions are the stream's own `Int64` ticks; the one way from a source tick to an output one is
/// `VideoCut.output(_:)` (exact cuts: `ExactTiming.output(_:)`), so adding a source tick to an output position, or
/// writing one where the other belongs, does not compile. Differences are durations (`Int64` ticks).
public struct OutputTicks: Sendable, Hashable, Comparable, Codable {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }

    public static let zero = OutputTicks(0)

    public static func < (left: OutputTicks, right: OutputTicks) -> Bool { left.value < right.value }

    /// `ticks` later (saturating: a damaged file's timestamps can be any 64-bit value).
    public func plus(_ ticks: Int64) -> OutputTicks { OutputTicks(value.plus(ticks)) }

    /// How many ticks after `other` this is (saturating).
    public func minus(_ other: OutputTicks) -> Int64 { value.minus(other.value) }

    public init(from decoder: any Swift.Decoder) throws { value = try decoder.singleValueContainer().decode(Int64.self) }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
