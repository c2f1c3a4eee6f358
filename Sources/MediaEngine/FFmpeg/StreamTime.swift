import CAV

/// Cut times (µs) to stream ticks, for "the frame at t" and "frames that begin before end". Times printed
/// to the microsecond (our JSON, a user copying it) fall up to half a µs off a frame's exact time, so a
/// start that close below a frame selects it and an end that close above one excludes it.
enum StreamTime {
    private static let halfMicro = AVRational(num: 1, den: 2 * AV_TIME_BASE)

    /// The last tick at or before `micro` (+½ µs): a frame with pts ≤ this is shown at `start`.
    static func startTicks(_ micro: Int64, _ timeBase: AVRational) -> Int64 {
        rescale(micro, offset: 1, timeBase, AV_ROUND_DOWN)
    }

    /// The first tick at or after `micro` (−½ µs): frames with pts < this begin before `end`.
    static func endTicks(_ micro: Int64, _ timeBase: AVRational) -> Int64 {
        rescale(micro, offset: -1, timeBase, AV_ROUND_UP)
    }

    /// `micro ± ½ µs` in `timeBase`; times too large to double (a file claiming a start time of
    /// millennia) are rescaled without the half-µs tolerance rather than overflowing. A time base that is no time
    /// (a zero or negative part, which libavformat never gives a stream) counts microseconds, so rounding never
    /// turns the other way and a start never comes after its end.
    private static func rescale(_ micro: Int64, offset: Int64, _ timeBase: AVRational, _ rounding: AVRounding) -> Int64 {
        guard timeBase.num > 0, timeBase.den > 0 else { return micro }
        let doubled = micro.multipliedReportingOverflow(by: 2)
        let halves = doubled.partialValue.addingReportingOverflow(offset)
        guard !doubled.overflow, !halves.overflow else {
            return av_rescale_q_rnd(micro, AVRational(num: 1, den: AV_TIME_BASE), timeBase, rounding)
        }
        return av_rescale_q_rnd(halves.partialValue, halfMicro, timeBase, rounding)
    }
}
