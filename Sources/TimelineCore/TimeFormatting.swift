/// Time labels: VideoLine's, plus hours and exact seconds for scripts. Written by hand (no Foundation).
public enum TimeFormatting: Sendable {
    /// VideoLine's start/end label: whole seconds, truncated, as `mm:ss` ("00:04" for 4.9 s, "75:00" never:
    /// from one hour on it is `h:mm:ss`, "1:00:00"). Negative times get a leading "-"; non-finite times and
    /// times of 2⁶³ s or more give "--:--".
    ///
    /// Minutes and seconds come from the same truncated whole-second count, so 179.99999999999997 s is
    /// "02:59" (VideoLine's separate `Int(s/60)` can round up and show "03:59").
    public static func clockLabel(seconds: Double) -> String {
        guard seconds.isFinite, seconds.magnitude < 9.2e18 else { return "--:--" }
        let whole = UInt64(seconds.magnitude.rounded(.towardZero))
        let sign = seconds < 0 && whole > 0 ? "-" : ""
        let (hours, minutes, secs) = (whole / 3600, whole % 3600 / 60, whole % 60)
        if hours > 0 { return sign + "\(hours):" + twoDigits(minutes) + ":" + twoDigits(secs) }
        return sign + twoDigits(minutes) + ":" + twoDigits(secs)
    }

    /// VideoLine's duration label, `%.1f`: the exact binary value rounded to nearest, ties to even, like C's
    /// printf (2.05 is stored as 2.0499…, so "2.0"; 0.25 is a true tie, so "0.2"; 3.0 − 0.9 gives "2.1").
    public static func durationLabel(seconds: Double) -> String {
        FixedPointFormat.string(seconds, fractionDigits: 1)
    }

    /// Seconds with exactly three decimals for scripts ("12.500"), printf `%.3f` rounding.
    public static func exactSeconds(_ seconds: Double) -> String {
        FixedPointFormat.string(seconds, fractionDigits: 3)
    }

    /// `value` as printf `%.Nf` would print it, for N in 0…3 (other N are limited to that range).
    public static func fixed(_ value: Double, fractionDigits: Int) -> String {
        FixedPointFormat.string(value, fractionDigits: fractionDigits)
    }

    /// Milliseconds on a clock, in the syntax `TimeSpec` reads back: "0:04.900", "1:05.250",
    /// "1:02:03.500" (rounded to the millisecond, ties to even). Non-finite or ≥ 10¹⁵ s gives "--:--".
    public static func preciseClock(seconds: Double) -> String {
        guard seconds.isFinite, seconds.magnitude < 1e15,
            let totalMilliseconds = FixedPointFormat.roundedScaled(seconds.magnitude, fractionDigits: 3)
        else { return "--:--" }
        let sign = seconds < 0 && totalMilliseconds > 0 ? "-" : ""
        let milliseconds = totalMilliseconds % 1000
        let whole = totalMilliseconds / 1000
        let (hours, minutes, secs) = (whole / 3600, whole % 3600 / 60, whole % 60)
        let fraction = "." + String(repeating: "0", count: 3 - String(milliseconds).count) + String(milliseconds)
        if hours > 0 { return sign + "\(hours):" + twoDigits(minutes) + ":" + twoDigits(secs) + fraction }
        return sign + "\(minutes):" + twoDigits(secs) + fraction
    }

    /// A thumbnail's clock, `h:mm:ss` with `fractionDigits` (0–3) of fraction, truncated as a player's clock
    /// shows the time ("0:00:01.8" for 1.8333 s); `m:ss` without `hours` (a file under an hour: the short
    /// form players use, which fits narrow cells). Negative and non-finite times give "0:00:00".
    public static func truncatedClock(seconds: Double, fractionDigits: Int, hours: Bool = true) -> String {
        let digits = min(max(fractionDigits, 0), 3)
        let scale = [1.0, 10, 100, 1000][digits]
        let units = seconds.isFinite && seconds > 0 ? UInt64(min((seconds * scale + 1e-6).rounded(.down), 9e15)) : 0
        let whole = units / UInt64(scale), fraction = units % UInt64(scale)
        var text = hours || whole >= 3600 ? "\(whole / 3600):" + twoDigits(whole % 3600 / 60) : "\(whole / 60)"
        text += ":" + twoDigits(whole % 60)
        if digits > 0 { text += "." + String(repeating: "0", count: digits - String(fraction).count) + String(fraction) }
        return text
    }

    /// Fraction digits that tell apart times `spacingSeconds` apart: none from a second up, then tenths,
    /// hundredths, thousandths.
    public static func fractionDigits(forSpacing spacingSeconds: Double) -> Int {
        if !(spacingSeconds < 1) { return 0 }
        if spacingSeconds >= 0.1 { return 1 }
        if spacingSeconds >= 0.01 { return 2 }
        return 3
    }

    /// A WebVTT timestamp, `hh:mm:ss.ttt` with the hours always written, rounded to the millisecond;
    /// negative and non-finite times give "00:00:00.000".
    public static func webVTT(seconds: Double) -> String {
        let milliseconds = seconds.isFinite && seconds > 0 ? UInt64(min((seconds * 1000).rounded(), 9e15)) : 0
        let whole = milliseconds / 1000, fraction = milliseconds % 1000
        return twoDigits(whole / 3600) + ":" + twoDigits(whole % 3600 / 60) + ":" + twoDigits(whole % 60)
            + "." + String(repeating: "0", count: 3 - String(fraction).count) + String(fraction)
    }

    private static func twoDigits(_ value: UInt64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

/// The three labels VideoLine shows over the strip. They can disagree (start 0.9, end 3.0 shows "00:00",
/// "00:03" and "2.1") because mm:ss truncates and the duration rounds; that is VideoLine's behaviour, kept
/// for parity. Use `TimeFormatting.preciseClock` where they must agree.
public struct SelectionLabels: Sendable, Equatable {
    public let start: String
    public let end: String
    public let duration: String

    public init(startSeconds: Double, endSeconds: Double) {
        start = TimeFormatting.clockLabel(seconds: startSeconds)
        end = TimeFormatting.clockLabel(seconds: endSeconds)
        duration = TimeFormatting.durationLabel(seconds: endSeconds - startSeconds)
    }
}
