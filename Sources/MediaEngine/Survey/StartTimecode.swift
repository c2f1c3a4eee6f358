import CAV

/// A source's start timecode (a camera's or an editor's `tmcd`, or a `timecode` tag) and the rate it counts
/// at: a cut's own timecode starts at the timecode of its first kept frame, counted with libavutil's timecode
/// arithmetic (drop-frame too).
struct StartTimecode: Sendable, Equatable {
    var text: String
    var rate: Rational

    /// The timecode the file states (its container's tag, else a stream's), at the video's frame rate; nil when
    /// there is none or libavutil cannot read it at that rate (checked where it enters).
    static func read(_ input: InputFile, video: Int?) -> StartTimecode? {
        var text = FFmpegText.string(av_dict_get(input.format.pointee.metadata, "timecode", nil, 0)?.pointee.value)
        for index in 0..<input.streamCount where text == nil {
            text = input.stream(index).flatMap { FFmpegText.string(av_dict_get($0.pointee.metadata, "timecode", nil, 0)?.pointee.value) }
        }
        guard let text, let stream = video.flatMap(input.stream) else { return nil }
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        // libavutil counts a timecode's frames in an int: a crafted rate must not overflow it.
        guard rate.num > 0, rate.den > 0, Double(rate.num) / Double(rate.den) <= 1000, Double(rate.num) / Double(rate.den) >= 1 else { return nil }
        let timecode = StartTimecode(text: text, rate: Rational(Int(rate.num), Int(rate.den)))
        return timecode.advanced(bySeconds: 0) == nil ? nil : timecode
    }

    /// The timecode `seconds` later (to the nearest frame), or nil when it cannot be counted.
    func advanced(bySeconds seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds < 86_400 * 10, let num = Int32(exactly: rate.numerator), let den = Int32(exactly: rate.denominator) else {
            return nil
        }
        var timecode = AVTimecode()
        guard av_timecode_init_from_string(&timecode, AVRational(num: num, den: den), text, nil) >= 0 else { return nil }
        let frames = (seconds * Double(num) / Double(den)).rounded()
        guard let offset = Int32(exactly: frames) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(AV_TIMECODE_STR_SIZE))
        guard let made = av_timecode_make_string(&timecode, &buffer, offset) else { return nil }
        return String(cString: made)
    }
}
