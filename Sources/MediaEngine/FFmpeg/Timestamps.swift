import CAV

/// Timestamp arithmetic on values read from files: a damaged header can put any 64-bit value in a
/// timestamp, so sums and differences saturate instead of trapping.
extension Int64 {
    func plus(_ other: Int64) -> Int64 {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : value
    }

    func minus(_ other: Int64) -> Int64 {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : value
    }

    func times(_ factor: Int64) -> Int64 {
        let (value, overflow) = multipliedReportingOverflow(by: factor)
        return overflow ? ((self < 0) == (factor < 0) ? .max : .min) : value
    }
}

/// µs ↔ seconds at the edge (JSON, messages); timestamps stay in ticks inside the engine.
enum Micro {
    static func seconds(_ micro: Int64) -> Double { Double(micro) / Double(AV_TIME_BASE) }

    /// Seconds → µs, or nil when the value is not finite or does not fit.
    static func from(seconds: Double) -> Int64? {
        let value = (seconds * Double(AV_TIME_BASE)).rounded()
        guard value.isFinite, abs(value) < 9.0e18 else { return nil }
        return Int64(value)
    }
}

extension InputFile {
    /// The container's start time (µs), or 0 when it states none: the origin of vtrim's timeline.
    var originMicro: Int64 {
        if let window { return window.originMicro }
        let start = format.pointee.start_time
        return start == CAV_NOPTS_VALUE ? 0 : start
    }
}

extension UnsafeMutablePointer where Pointee == AVStream {
    /// The stream's first timestamp (its own ticks), or 0 when it states none.
    var startTicksOrZero: Int64 {
        pointee.start_time == CAV_NOPTS_VALUE ? 0 : pointee.start_time
    }

    /// Stream ticks → µs (saturating at the extremes, as av_rescale_q does).
    func micro(_ ticks: Int64) -> Int64 { av_rescale_q(ticks, pointee.time_base, cav_time_base_q()) }

    /// µs → stream ticks.
    func ticks(micro: Int64) -> Int64 { av_rescale_q(micro, cav_time_base_q(), pointee.time_base) }
}

extension UnsafeMutablePointer where Pointee == AVStream {
    /// One second in the stream's ticks.
    var secondTicks: Int64 { av_rescale_q(1, AVRational(num: 1, den: 1), pointee.time_base) }

    /// Where to seek to get back to a keyframe at `ticks` when the index is imprecise (MPEG-TS lands late):
    /// at it, 5 s and 60 s before it, then the start of the file (nil).
    func seekLadder(toReach ticks: Int64) -> [Int64?] {
        [ticks, ticks.minus(secondTicks.times(5)), ticks.minus(secondTicks.times(60)), nil]
    }
}

extension Packet {
    /// The presentation time, or the decode time when the container stores none (AVI, some MKV blocks).
    var presentationTime: Int64 { pts != CAV_NOPTS_VALUE ? pts : dts }

    /// Presentation and decode times with FFmpeg's gaps filled (a missing one takes the other).
    var timing: VideoPacket {
        let presented = presentationTime
        return VideoPacket(pts: presented, dts: dts != CAV_NOPTS_VALUE ? dts : presented, duration: duration,
                           isKeyframe: isKeyframe)
    }

    /// Moves the packet `shift` ticks earlier; missing times stay missing.
    func shift(by ticks: Int64) {
        if pts != CAV_NOPTS_VALUE { pointer.pointee.pts = pts.minus(ticks) }
        if dts != CAV_NOPTS_VALUE { pointer.pointee.dts = dts.minus(ticks) }
    }
}

extension Frame {
    /// The frame's presentation time in stream ticks (FFmpeg's best effort when pts is missing).
    var timestamp: Int64 {
        let value = pointer.pointee.best_effort_timestamp
        return value != CAV_NOPTS_VALUE ? value : pointer.pointee.pts
    }
}
