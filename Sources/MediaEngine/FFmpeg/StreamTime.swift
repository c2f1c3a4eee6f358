import CAV

/// Cut times (µs) to stream ticks, for "the frame at t" and "frames that begin before end". Times printed
/// to the microsecond (our JSON, a user copying it) fall up to half a µs off a frame's exact time, so a
/// start that close below a frame selects it and an end that close above one excludes it.
enum StreamTime {
    private static let halfMicro = AVRational(num: 1, den: 2 * AV_TIME_BASE)

    /// The last tick at or before `micro` (+½ µs): a frame with pts ≤ this is shown at `start`.
    static func startTicks(_ micro: Int64, _ timeBase: AVRational) -> Int64 {
        av_rescale_q_rnd(2 * micro + 1, halfMicro, timeBase, AV_ROUND_DOWN)
    }

    /// The first tick at or after `micro` (−½ µs): frames with pts < this begin before `end`.
    static func endTicks(_ micro: Int64, _ timeBase: AVRational) -> Int64 {
        av_rescale_q_rnd(2 * micro - 1, halfMicro, timeBase, AV_ROUND_UP)
    }
}
