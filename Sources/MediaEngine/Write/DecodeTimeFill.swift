import CAV

/// Decode times for copied packets that have none (Matroska stores presentation times only; its demuxer leaves
/// the first packets after a seek without one). The rule is libavformat's muxer's — the smallest of the last
/// `delay + 1` presentation times, seeded below the first one — but started afresh for each range, where the
/// muxer's would carry the range before's times across a join's seam and go backwards.
struct DecodeTimeFill {
    private let delay: Int
    private var buffer: [Int64]

    /// `delay`: the stream's reorder delay in frames (capped at 16, FFmpeg's MAX_REORDER_DELAY).
    init(delay: Int) {
        self.delay = min(max(0, delay), 16)
        buffer = Array(repeating: CAV_NOPTS_VALUE, count: self.delay + 1)
    }

    /// The decode time of a packet presented at `pts` lasting `duration` ticks.
    mutating func decodeTime(pts: Int64, duration: Int64) -> Int64 {
        buffer[0] = pts
        var index = 1
        while index < delay + 1, buffer[index] == CAV_NOPTS_VALUE {
            buffer[index] = pts.plus(Int64(index - delay - 1).times(max(0, duration)))
            index += 1
        }
        index = 0
        while index < delay, buffer[index] > buffer[index + 1] {
            buffer.swapAt(index, index + 1)
            index += 1
        }
        return buffer[0]
    }
}
