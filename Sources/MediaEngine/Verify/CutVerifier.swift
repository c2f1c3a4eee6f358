import CAV

/// Reads a written cut back: what a player will present, measured from the file (after its edit lists).
public struct MeasuredRange: Sendable, Equatable {
    /// Seconds on the output's own timeline.
    public var videoStartSeconds: Double?
    public var videoEndSeconds: Double?
    /// Video frames read (all of them only when the file was read whole).
    public var videoFrames: Int
    public var firstVideoPacketIsKeyframe: Bool
    public var audioStartSeconds: Double?
    public var audioEndSeconds: Double?

    /// The file stores no presentation times (AVI): the video times are decode-time slots.
    public var videoTimesAreDecodeTimes: Bool
    /// Video frames a player shows (packets outside the edit lists left out), counted over the whole file.
    public var shownFrames: Int?
    /// The first and last shown frames' presentation times (seconds, the output's own timeline).
    public var firstFrameSeconds: Double?
    public var lastFrameSeconds: Double?
    /// The shown frames' rate when every frame lasts as long as the others (within a tick of the stream's time base,
    /// which Matroska's millisecond times need): "30/1", "30000/1001"; nil when it varies or cannot be told.
    public var constantFrameRate: String?
    /// Whether the frame rate was measured constant (false: it varies; nil: fewer than three frames, or AVI's slots).
    public var frameRateIsConstant: Bool?

    /// The presented span: video when there is video, else audio.
    public var startSeconds: Double? { videoStartSeconds ?? audioStartSeconds }
    public var endSeconds: Double? { videoEndSeconds ?? audioEndSeconds }
}

public enum CutVerifier {
    /// When a container stores no per-packet duration: one frame at the stream's frame rate.
    static func frameDurationMicro(_ stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        guard rate.num > 0, rate.den > 0 else { return 0 }
        return av_rescale_q(1, AVRational(num: rate.den, den: rate.num), cav_time_base_q())
    }

    /// Audio an edit list trims inside the first packet (skip-samples side data).
    static func skippedMicro(_ packet: Packet, _ stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        var size = 0
        guard let data = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 4,
              let rate = stream.pointee.codecpar?.pointee.sample_rate, rate > 0 else { return 0 }
        let samples = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24
        return av_rescale_q(Int64(samples), AVRational(num: 1, den: rate), cav_time_base_q())
    }

    /// Files larger than this are read at the head and the tail only.
    static let fullReadBytes: Int64 = 16 << 20

    /// Reads `path` back: the head (first presented frame and sample, first packet a keyframe) and the
    /// tail (last presented frame and sample), or all of it when small. Any read error fails; errors name
    /// `outputName` (the final name), never the temporary file, and `input` (the cut's source).
    public static func measure(path: String, outputName: String, input source: String) throws(MediaError) -> MeasuredRange {
        let started = ContinuousClock.now
        defer { StageTimes.add("verify", seconds: started.duration(to: .now).seconds) }
        let size = (try? InputCheck.regularFile(path)) ?? 0
        let input: InputFile
        do {
            input = try InputFile(path: path, analyze: false)
        } catch {
            throw MediaError(.verifyFailed, path: source, operation: error.operation,
                             reason: "the written output \(outputName) cannot be read back (\(error.reason))")
        }
        let video = VideoStreamChoice.best(in: input)
        let audio = (0..<input.streamCount).first {
            input.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        }
        var scan = Scan(input: input, path: source, outputName: outputName, video: video, audio: audio)
        let duration = input.format.pointee.duration
        let hasDuration = duration != CAV_NOPTS_VALUE && duration > 0
        if size <= fullReadBytes || !hasDuration {
            try scan.read(until: nil)
        } else {
            try scan.read(until: { $0.headComplete })
            let origin = input.originMicro
            let tail = origin.plus(duration).minus(4 * Int64(AV_TIME_BASE))
            if av_seek_frame(input.format, -1, tail, AVSEEK_FLAG_BACKWARD) >= 0 {
                scan.resetLastFrames()
                try scan.read(until: nil)
            } else {
                try scan.read(until: nil)
            }
        }
        var range = scan.range
        // Matroska/WebM store times in milliseconds: the last frame's end read from rounded durations can
        // fall short of the Duration element the muxer wrote (20.233 for 20.250 s with 60 fps frames), which
        // is what players and ffprobe show. Within that rounding, the container's end is the end.
        if FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.contains("matroska") == true, hasDuration,
           let end = range.videoEndSeconds {
            let containerEnd = Micro.seconds(input.originMicro.plus(duration))
            let frame = video.flatMap(input.stream).map { Micro.seconds(frameDurationMicro($0)) } ?? 0
            // The muxer's own record of where the video track ends (FFmpeg's DURATION tag: the last block's time plus
            // its duration, which SimpleBlocks do not store) — a whole last frame longer than the default duration.
            let trackEnd = video.flatMap(input.stream).flatMap { MatroskaTrackEnd.seconds($0.pointee.metadata) }
            if let trackEnd, trackEnd > end, trackEnd <= containerEnd + 0.001 {
                range.videoEndSeconds = trackEnd
            } else if containerEnd > end, containerEnd - end <= max(0.001, frame / 2) + 1e-9 {
                range.videoEndSeconds = containerEnd
            }
        }
        // MP4/MOV: players show the video until its edit list ends (tkhd), whatever the sample durations
        // FFmpeg's demuxer derives from decode times (B-frames make the last frame's shorter).
        if let video, let stream = input.stream(video), range.videoStartSeconds != nil,
           FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.hasPrefix("mov") == true,
           let length = MovieBoxes.trackLengths(path: path)[Int(stream.pointee.id)] {
            range.videoEndSeconds = Micro.seconds(input.originMicro) + length
        }
        if video != nil, range.videoStartSeconds == nil {
            throw MediaError(.verifyFailed, path: source, operation: "verify", reason: "the written output \(outputName) has no video frames")
        }
        if let video, let stream = input.stream(video) {
            // Head and tail alone cannot tell a rate (the head stops in decode order, the middle is unread): whole reads only.
            if scan.readWhole { FrameTiming.measure(&range, times: scan.shownTimes, stream: stream) }
            range.shownFrames = scan.readWhole ? range.videoFrames : FrameTiming.countShown(input, stream: video)
        }
        return range
    }

    /// Packet-level facts gathered while demuxing.
    private struct Scan {
        let input: InputFile
        let path: String
        let outputName: String
        let video: Int?
        let audio: Int?
        var range = MeasuredRange(videoFrames: 0, firstVideoPacketIsKeyframe: false, videoTimesAreDecodeTimes: false)
        private var sawVideo = false
        private var videoStart = Int64.max, videoEnd = Int64.min, audioStart = Int64.max, audioEnd = Int64.min
        // Containers that store no per-frame durations: the last frame lasts as long as the one before it,
        // but never past the container's own duration.
        private var lastVideoStart = Int64.min, previousVideoStart = Int64.min, videoDurationsMissing = false
        private var previousAudioStart = Int64.min
        /// Presentation times (stream ticks) of the shown frames, per stretch read without a seek.
        private(set) var shownTimes: [[Int64]] = [[]]
        private(set) var readWhole = true

        init(input: InputFile, path: String, outputName: String, video: Int?, audio: Int?) {
            self.input = input
            self.path = path
            self.outputName = outputName
            self.video = video
            self.audio = audio
        }

        var headComplete: Bool {
            (video == nil || videoStart != Int64.max) && (audio == nil || audioStart != Int64.max)
        }

        mutating func resetLastFrames() {
            lastVideoStart = Int64.min
            previousVideoStart = Int64.min
            shownTimes.append([])
            readWhole = false
        }

        mutating func read(until done: ((Scan) -> Bool)?) throws(MediaError) {
            let packet: Packet
            do { packet = try Packet() } catch {
                throw MediaError(.verifyFailed, path: path, operation: error.operation, reason: "out of memory")
            }
            while !(done?(self) ?? false) {
                let result: InputFile.ReadResult
                do { result = try input.read(into: packet) } catch {
                    throw MediaError(.verifyFailed, path: path, operation: error.operation,
                                     reason: "the written output \(outputName) cannot be read back (\(error.text))")
                }
                if result == .endOfFile { break }
                take(packet)
            }
            finish()
        }

        private mutating func take(_ packet: Packet) {
            let index = packet.streamIndex
            guard index == video || index == audio, let stream = input.stream(index) else { return }
            if index == video, !sawVideo {
                sawVideo = true
                range.firstVideoPacketIsKeyframe = packet.isKeyframe
            }
            // Packets an edit list hides (the lead-in) are demuxed with the discard flag.
            guard packet.pointer.pointee.flags & AV_PKT_FLAG_DISCARD == 0 else { return }
            let timestamp = packet.presentationTime
            guard timestamp != CAV_NOPTS_VALUE else { return }
            if index == video, packet.pts == CAV_NOPTS_VALUE { range.videoTimesAreDecodeTimes = true }
            var start = av_rescale_q(timestamp, stream.pointee.time_base, cav_time_base_q())
            // AVI's packet durations are not frame durations: a frame lasts until the next slot.
            let decodeSlots = index == video && packet.pts == CAV_NOPTS_VALUE
            let duration = decodeSlots ? 0 : av_rescale_q(max(0, packet.duration), stream.pointee.time_base, cav_time_base_q())
            if index == video {
                range.videoFrames += 1
                if packet.pts != CAV_NOPTS_VALUE { shownTimes[shownTimes.count - 1].append(packet.pts) }
                if start > lastVideoStart {
                    previousVideoStart = lastVideoStart
                    lastVideoStart = start
                } else if start > previousVideoStart {
                    previousVideoStart = start
                }
                if duration == 0 { videoDurationsMissing = true }
                videoStart = min(videoStart, start)
                videoEnd = max(videoEnd, start.plus(duration))
            } else {
                // Without stream analysis Matroska's audio blocks carry no duration: one codec frame, or as
                // long as the packet before.
                var length = duration
                if length == 0, let parameters = stream.pointee.codecpar?.pointee, parameters.frame_size > 0, parameters.sample_rate > 0 {
                    length = av_rescale_q(Int64(parameters.frame_size), AVRational(num: 1, den: parameters.sample_rate), cav_time_base_q())
                }
                if length == 0, previousAudioStart != Int64.min, start > previousAudioStart { length = start.minus(previousAudioStart) }
                previousAudioStart = start
                let end = start.plus(length)
                start = start.plus(CutVerifier.skippedMicro(packet, stream))
                audioStart = min(audioStart, start)
                audioEnd = max(audioEnd, end)
            }
        }

        private mutating func finish() {
            if videoDurationsMissing, lastVideoStart != Int64.min {
                var frame = previousVideoStart != Int64.min ? lastVideoStart.minus(previousVideoStart) : 0
                if frame <= 0, let stream = video.flatMap(input.stream) { frame = CutVerifier.frameDurationMicro(stream) }
                var end = lastVideoStart.plus(frame)
                // The track's own duration, where it ends after the last frame starts, bounds it too
                // (MP4's sample durations add up to it; with B-frames and a varying rate they may not).
                if let stream = video.flatMap(input.stream), stream.pointee.duration != CAV_NOPTS_VALUE, stream.pointee.duration > 0 {
                    let first = stream.startTicksOrZero
                    let trackEnd = av_rescale_q(first.plus(stream.pointee.duration), stream.pointee.time_base, cav_time_base_q())
                    if trackEnd > lastVideoStart { end = min(end, trackEnd) }
                }
                videoEnd = max(videoEnd, end)
            }
            // A player stops at the container's end (an MP4 edit list's, Matroska's segment duration) even
            // where the last packet's stored duration runs on (B-frames in MP4's decode-time durations,
            // Matroska's default duration for a shortened last frame).
            let duration = input.format.pointee.duration
            if duration != CAV_NOPTS_VALUE, duration > 0 {
                let containerEnd = input.originMicro.plus(duration)
                if videoEnd != Int64.min, containerEnd > videoStart { videoEnd = min(videoEnd, containerEnd) }
                if audioEnd != Int64.min, containerEnd > audioStart { audioEnd = min(audioEnd, containerEnd) }
            }
            if videoStart != Int64.max {
                range.videoStartSeconds = Double(videoStart) / Double(AV_TIME_BASE)
                range.videoEndSeconds = Double(videoEnd) / Double(AV_TIME_BASE)
            }
            if audioStart != Int64.max {
                range.audioStartSeconds = Double(audioStart) / Double(AV_TIME_BASE)
                range.audioEndSeconds = Double(audioEnd) / Double(AV_TIME_BASE)
            }
        }
    }
}

extension CutVerifier {
    /// The presentation times (seconds, the output's own timeline, sorted) of every video frame a written
    /// output shows: where a join's ranges begin and end is measured from these.
    public static func videoFrameTimes(path: String, outputName: String, input source: String) throws(MediaError) -> [Double] {
        let input: InputFile
        do {
            input = try InputFile(path: path, analyze: false)
        } catch {
            throw MediaError(.verifyFailed, path: source, operation: error.operation,
                             reason: "the written output \(outputName) cannot be read back (\(error.reason))")
        }
        guard let video = VideoStreamChoice.best(in: input), let stream = input.stream(video) else { return [] }
        var times: [Double] = []
        do {
            let packet = try Packet()
            while try input.read(into: packet) == .packet {
                guard packet.streamIndex == video, packet.pointer.pointee.flags & AV_PKT_FLAG_DISCARD == 0 else { continue }
                let timestamp = packet.presentationTime
                if timestamp != CAV_NOPTS_VALUE { times.append(Micro.seconds(stream.micro(timestamp))) }
            }
        } catch {
            throw MediaError(.verifyFailed, path: source, operation: "av_read_frame", reason: "the written output \(outputName) cannot be read back (\(error))")
        }
        return times.sorted()
    }
}

/// FFmpeg's Matroska muxer tags each track with where it ends ("DURATION": `HH:MM:SS.nnnnnnnnn`). Read as text from
/// the file, so parsed defensively: nil for anything else.
enum MatroskaTrackEnd {
    static func seconds(_ metadata: OpaquePointer?) -> Double? {
        guard let text = FFmpegText.string(av_dict_get(metadata, "DURATION", nil, 0)?.pointee.value) else { return nil }
        return parse(text)
    }

    static func parse(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let hours = Int(fields[0]), let minutes = Int(fields[1]), let seconds = Double(fields[2]),
              (0..<1_000_000).contains(hours), (0..<60).contains(minutes), seconds >= 0, seconds < 60 else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }
}
