import CAV

/// The timing a cut's report proves from the written file's packets (no decode): how many frames are shown, the
/// first and last one's times, and whether the rate is constant.
enum FrameTiming {
    /// Fills the frame times and the rate from the shown frames' presentation times, read in stretches (the whole
    /// file, or its head and its tail).
    static func measure(_ range: inout MeasuredRange, times stretches: [[Int64]], stream: UnsafeMutablePointer<AVStream>) {
        let timeBase = stream.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else { return }
        let all = stretches.joined()
        // AVI stores decode slots only: no frame times to state.
        guard !range.videoTimesAreDecodeTimes, let first = all.min(), let last = all.max() else { return }
        range.firstFrameSeconds = seconds(first, timeBase)
        range.lastFrameSeconds = seconds(last, timeBase)
        let steps = stretches.flatMap { stretch -> [Int64] in
            let sorted = stretch.sorted()
            return zip(sorted.dropFirst(), sorted).map { $0.minus($1) }
        }
        guard steps.count >= 2, let shortest = steps.min(), let longest = steps.max(), shortest > 0 else { return }
        range.frameRateIsConstant = longest.minus(shortest) <= 1
        guard longest.minus(shortest) <= 1 else { return }
        let total = steps.reduce(Int64(0)) { $0.plus($1) }
        range.constantFrameRate = rate(steps: steps.count, ticks: total, timeBase: timeBase, stated: stream.pointee.avg_frame_rate)
    }

    /// The stream's stated rate where one of its frames lasts the measured mean within a tick; else the mean itself.
    static func rate(steps: Int, ticks: Int64, timeBase: AVRational, stated: AVRational) -> String? {
        guard steps > 0, ticks > 0 else { return nil }
        let mean = Double(ticks) / Double(steps)
        if stated.num > 0, stated.den > 0 {
            let statedTicks = Double(stated.den) * Double(timeBase.den) / (Double(stated.num) * Double(timeBase.num))
            if abs(statedTicks - mean) <= 1 { return "\(stated.num)/\(stated.den)" }
        }
        var num: Int32 = 0, den: Int32 = 0
        // frames per second = steps × den / (ticks × num)
        av_reduce(&num, &den, Int64(steps).times(Int64(timeBase.den)), ticks.times(Int64(timeBase.num)), Int64(Int32.max))
        return den > 0 && num > 0 ? "\(num)/\(den)" : nil
    }

    /// Shown video frames of a file read only at its head and tail: from MP4's index (entries an edit list hides
    /// are flagged), else by reading every packet (no decode).
    static func countShown(_ input: InputFile, stream index: Int) -> Int? {
        guard let stream = input.stream(index) else { return nil }
        let entries = avformat_index_get_entries_count(stream)
        if FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.hasPrefix("mov") == true, entries > 0 {
            return (0..<entries).reduce(0) { count, entry in
                guard let item = avformat_index_get_entry(stream, entry) else { return count }
                return item.pointee.flags & AVINDEX_DISCARD_FRAME == 0 ? count + 1 : count
            }
        }
        guard (try? input.seekToStart()) != nil, let packet = try? Packet() else { return nil }
        var count = 0
        while true {
            // A read error leaves the count unknown, never a part of it.
            guard let result = try? input.read(into: packet) else { return nil }
            if result == .endOfFile { return count }
            if packet.streamIndex == index, packet.pointer.pointee.flags & AV_PKT_FLAG_DISCARD == 0 { count += 1 }
        }
    }

    private static func seconds(_ ticks: Int64, _ timeBase: AVRational) -> Double {
        Double(ticks) * Double(timeBase.num) / Double(timeBase.den)
    }
}
