import CAV

/// `vtrim probe`: what a file is. Reads headers, the index or the last few MiB (how much is really
/// there), and decodes the video's first frame (`decodable`).
public enum Probe {
    public static func probe(path: String) throws(MediaError) -> MediaInfo {
        let size = try InputCheck.regularFile(path)
        let input = try InputFile(path: path)
        var info = try inspect(input, sizeBytes: size)
        if var video = info.video, video.decoderAvailable {
            let failure = FirstFrame.failure(input, streamIndex: video.index)
            video.firstFrameDecoded = failure == nil
            info.video = video
            if let failure {
                info.warnings.append(MediaWarning(code: "not_decodable", message: "the video cannot be decoded: \(failure)"))
            }
        }
        return info
    }

    /// Every stream in a line, and the audio streams' facts.
    private static func streamSummaries(_ input: InputFile) -> (streams: [StreamSummary], audio: [AudioStreamInfo]) {
        var streams: [StreamSummary] = []
        var audio: [AudioStreamInfo] = []
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), let parameters = stream.pointee.codecpar else { continue }
            let summary = StreamSummary(
                index: index,
                type: mediaTypeName(parameters.pointee.codec_type),
                codec: codecName(parameters.pointee.codec_id),
                codecTag: fourCC(parameters.pointee.codec_tag),
                isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0
            )
            streams.append(summary)
            if parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
                audio.append(AudioStreamInfo(
                    index: index,
                    codec: summary.codec,
                    sampleRate: Int(parameters.pointee.sample_rate),
                    channels: Int(parameters.pointee.ch_layout.nb_channels),
                    durationSeconds: streamDurationSeconds(stream),
                    language: metadataValue(stream.pointee.metadata, "language")
                ))
            }
        }
        return (streams, audio)
    }

    static func inspect(_ input: InputFile, sizeBytes: Int64) throws(MediaError) -> MediaInfo {
        let format = input.format.pointee
        var warnings: [MediaWarning] = []
        let startTicks = input.originMicro

        let (streams, audio) = streamSummaries(input)

        var video: VideoStreamInfo?
        if let videoIndex = VideoStreamChoice.best(in: input) {
            video = videoInfo(input, index: videoIndex, warnings: &warnings)
        } else if streams.contains(where: { $0.type == "video" && $0.isAttachedPicture }) {
            warnings.append(MediaWarning(code: "cover_art_only", message: "the only video stream is cover art"))
        }

        var durationSeconds: Double
        var durationSource = MediaInfo.DurationSource.container
        if format.duration != CAV_NOPTS_VALUE, format.duration > 0 {
            durationSeconds = Double(format.duration) / Double(AV_TIME_BASE)
        } else {
            durationSource = .streams
            durationSeconds = measuredDurationSeconds(input, startTicks: startTicks)
            warnings.append(MediaWarning(
                code: "duration_estimated",
                message: "the container states no duration; \(formatSeconds(durationSeconds)) s measured from the streams"))
        }
        if !durationSeconds.isFinite || durationSeconds < 0 { durationSeconds = 0 }
        let extent = Extent.measure(input, sizeBytes: sizeBytes)
        if let index = video?.index, let end = extent.readableEndMicro[index] {
            video?.measuredEndSeconds = max(0, Micro.seconds(end.minus(input.originMicro)))
        }
        var (readable, shortfall, measuredInstead) = readableDuration(input, extent: extent, sizeBytes: sizeBytes, declared: durationSeconds,
                                                       declaredByContainer: durationSource == .container,
                                                       focus: video?.index ?? audio.first?.index, warnings: &warnings)
        if let window = input.window {
            // A URL's spool holds the segments a command needs, not the stream: its length is the manifest's.
            durationSeconds = Micro.seconds(window.durationMicro)
            durationSource = .container
            (readable, shortfall, measuredInstead) = (durationSeconds, nil, nil)
            warnings.removeAll { ["duration_estimated", "truncated", "duration_suspect"].contains($0.code) }
        }
        if let measuredInstead {
            durationSeconds = measuredInstead
            durationSource = .streams
        }

        var timecode = FFmpegText.string(av_dict_get(format.metadata, "timecode", nil, 0)?.pointee.value)
        for index in 0..<input.streamCount where timecode == nil {
            timecode = input.stream(index).flatMap { FFmpegText.string(av_dict_get($0.pointee.metadata, "timecode", nil, 0)?.pointee.value) }
        }
        var info = MediaInfo(
            path: input.path,
            durationSeconds: durationSeconds,
            durationSource: durationSource,
            readableDurationSeconds: readable,
            shortfall: shortfall,
            startTimeSeconds: Double(startTicks) / Double(AV_TIME_BASE),
            sizeBytes: sizeBytes,
            formatName: input.window?.formatName ?? FFmpegText.string(format.iformat?.pointee.name) ?? "unknown",
            formatLongName: FFmpegText.string(format.iformat?.pointee.long_name),
            bitRate: format.bit_rate > 0 ? format.bit_rate : nil,
            video: video,
            audio: audio,
            streams: streams,
            warnings: warnings
        )
        info.startTimecode = timecode
        return info
    }

    /// How much media is really there (seconds from the origin), with a `truncated` warning where the file
    /// ends before its index or header says, and `duration_suspect` where the container's duration
    /// disagrees wildly with the streams' (the file is whole, its container wrong: the streams' duration is
    /// returned as `measuredInstead`, so strips and timelines span the media that is there).
    private static func readableDuration(_ input: InputFile, extent: Extent, sizeBytes: Int64, declared: Double, declaredByContainer: Bool,
                                         focus: Int?, warnings: inout [MediaWarning])
        -> (seconds: Double, shortfall: String?, measuredInstead: Double?) {
        let origin = input.originMicro
        func seconds(_ micro: Int64) -> Double { max(0, Micro.seconds(micro.minus(origin))) }
        // The stream the user sees (video, else the first audio) decides; any other measured stream if it has no end.
        let endMicro = focus.flatMap { extent.readableEndMicro[$0] } ?? extent.readableEndMicro.values.max()
        let measured = endMicro.map(seconds)
        if !extent.truncatedStreams.isEmpty || extent.cutShort != nil {
            // Nothing measured: a small file was read whole and holds no packets; of a large one only the tail was.
            let wholeFileRead = sizeBytes <= Extent.tailBytes
            let readable = min(declared, measured ?? (wholeFileRead ? 0 : declared))
            let what = extent.truncatedStreams.isEmpty ? extent.cutShort ?? "" : "it ends before its index says"
            let extentText = measured == nil && !wholeFileRead ? "how much can be read is unknown"
                : readable < declared - 0.0005 ? "\(Words.seconds(readable)) of \(Words.seconds(declared)) can be read"
                : "its last frame may be incomplete"
            warnings.append(MediaWarning(code: "truncated", message: "the file is truncated (\(what)): \(extentText)"))
            return (readable, what, nil)
        }
        guard declaredByContainer, let measured, measured.isFinite else { return (declared, nil, nil) }
        let matroska = FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.contains("matroska") == true
        if matroska, !extent.sizeConfirmed, declared - measured > max(1.0, 0.05 * declared) {
            // Matroska's duration is written when muxing ends: data that stops well before it was cut off
            // (unless the Segment's stated size is all there: then the duration is what is wrong).
            let what = "its data stops before the duration its header states"
            warnings.append(MediaWarning(code: "truncated", message: "the file is truncated (\(what)): \(Words.seconds(measured)) of \(Words.seconds(declared)) can be read"))
            return (measured, what, nil)
        }
        // Wildly: a factor of two and more than a second apart (edit lists and audio priming move ends by less).
        func wildlyApart(_ a: Double, _ b: Double) -> Bool { abs(a - b) > 1 && max(a, b) > 2 * min(a, b) }
        // MP4's duration may count from presentation time 0 rather than from the first frame (an empty edit
        // before media starting at 10 s: 14 s for 4 s of video); that reading agrees, so it is not suspect.
        let endFromZero = endMicro.map { max(0, Micro.seconds($0)) } ?? measured
        if wildlyApart(declared, measured), wildlyApart(declared, endFromZero) {
            warnings.append(MediaWarning(code: "duration_suspect", message: "the container says \(Words.seconds(declared)) but the \(focus.map { input.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO ? "video" : "audio" } ?? "media") ends at \(Words.seconds(measured)); the duration is measured from the streams"))
            return (measured, nil, measured)
        }
        return (declared, nil, nil)
    }

    private static func videoInfo(_ input: InputFile, index: Int, warnings: inout [MediaWarning]) -> VideoStreamInfo? {
        guard let stream = input.stream(index), let parameters = stream.pointee.codecpar?.pointee else { return nil }
        let codecID = parameters.codec_id
        let codec = codecName(codecID)
        let tag = fourCC(parameters.codec_tag)
        let decoderAvailable = codecID != AV_CODEC_ID_NONE && avcodec_find_decoder(codecID) != nil
        if !decoderAvailable {
            warnings.append(MediaWarning(
                code: "no_decoder",
                message: "this FFmpeg has no decoder for the video codec \(codec == "unknown" ? (tag ?? codec) : codec); thumbnails and re-encoding are unavailable"))
        }

        // Profiles 5 and 10.0 have no base layer in standard colours: decoded as stored (IPT), pictures look green and purple.
        if let vision = DolbyVisionConfiguration.of(stream), vision.compatibility == 0 {
            warnings.append(MediaWarning(code: "dolby_vision_colours",
                                         message: "Dolby Vision \(vision.name): its pictures are in Dolby Vision's own colour space, so thumbnails show them with wrong colours (a cut that keeps Dolby Vision keeps them for its players)"))
        }

        let stored = av_guess_sample_aspect_ratio(input.format, stream, nil)
        let orientation = readOrientation(stream, warnings: &warnings)
        let width = Int(parameters.width), height = Int(parameters.height)
        let display = DisplaySize.resolve(codedWidth: width, codedHeight: height, sar: (Int(stored.num), Int(stored.den)),
                                          swapsDimensions: orientation.swapsDimensions)
        warnings += display.warnings

        let pixelFormat = AVPixelFormat(rawValue: parameters.format)
        let descriptor = parameters.format >= 0 ? av_pix_fmt_desc_get(pixelFormat) : nil
        let rate = frameRate(input, stream: stream, index: index)

        return VideoStreamInfo(
            index: index,
            codec: codec,
            codecTag: tag,
            profile: FFmpegText.string(avcodec_profile_name(codecID, parameters.profile)),
            width: width,
            height: height,
            storedSampleAspectRatio: stored.num > 0 && stored.den > 0 ? Rational(Int(stored.num), Int(stored.den)) : Rational(1, 1),
            sampleAspectRatio: display.sampleAspectRatio,
            displayWidth: display.width,
            displayHeight: display.height,
            sizeIsValid: display.storedSizeValid,
            orientation: orientation,
            framesPerSecond: rate,
            hasBFrames: Int(parameters.video_delay),
            pixelFormat: descriptor.flatMap { FFmpegText.string($0.pointee.name) },
            bitDepth: descriptor.map { Int($0.pointee.comp.0.depth) },
            colorTransfer: parameters.color_trc == AVCOL_TRC_UNSPECIFIED ? nil : FFmpegText.string(av_color_transfer_name(parameters.color_trc)),
            frameCount: stream.pointee.nb_frames > 0 ? stream.pointee.nb_frames : nil,
            durationSeconds: streamDurationSeconds(stream),
            timeBase: Rational(Int(stream.pointee.time_base.num), Int(stream.pointee.time_base.den)),
            decoderAvailable: decoderAvailable
        )
    }

    static func readOrientation(_ stream: UnsafeMutablePointer<AVStream>, warnings: inout [MediaWarning]) -> Orientation {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size) else { return .upright }
        guard size >= 9 * MemoryLayout<Int32>.size else {
            warnings.append(MediaWarning(code: "invalid_display_matrix", message: "display matrix side data is \(size) bytes, not 36; shown upright"))
            return .upright
        }
        let matrix = UnsafeRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        switch Orientation.read(matrix: matrix) {
        case let .valid(orientation, snapped):
            if snapped {
                warnings.append(MediaWarning(code: "rotation_snapped", message: "display matrix turns the picture by an angle that is not a multiple of 90°; using \(orientation.rotationDegrees)°"))
            }
            return orientation
        case let .invalid(reason):
            warnings.append(MediaWarning(code: "invalid_display_matrix", message: "\(reason); shown upright"))
            return .upright
        }
    }

    /// Where the container has no duration (e.g. browser-recorded WebM): the latest packet end,
    /// relative to the container start.
    private static func measuredDurationSeconds(_ input: InputFile, startTicks: Int64) -> Double {
        var latestEnd = Int64.min
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), stream.pointee.duration != CAV_NOPTS_VALUE, stream.pointee.duration > 0 else { continue }
            let start = stream.startTicksOrZero
            latestEnd = max(latestEnd, av_rescale_q(start.plus(stream.pointee.duration), stream.pointee.time_base, cav_time_base_q()))
        }
        if latestEnd == Int64.min, let packet = try? Packet() {
            while let result = try? input.read(into: packet), result == .packet {
                guard let stream = input.stream(packet.streamIndex) else { continue }
                let timestamp = packet.presentationTime
                guard timestamp != CAV_NOPTS_VALUE else { continue }
                let end = av_rescale_q(timestamp.plus(max(packet.duration, 0)), stream.pointee.time_base, cav_time_base_q())
                latestEnd = max(latestEnd, end)
            }
        }
        guard latestEnd != Int64.min else { return 0 }
        return Double(latestEnd.minus(startTicks)) / Double(AV_TIME_BASE)
    }

    static func streamDurationSeconds(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let duration = stream.pointee.duration
        guard duration != CAV_NOPTS_VALUE, duration > 0 else { return nil }
        return Double(duration) * av_q2d(stream.pointee.time_base)
    }

    /// The container's frame rate, unless it claims 100 fps or more that the first packets do not bear
    /// out (FLV states 1000 fps, a frame per tick of its 1/1000 time base, for 30 fps video): then the rate
    /// the packets' times give. High-speed video (240 fps slow motion) keeps its rate: its packets agree.
    private static func frameRate(_ input: InputFile, stream: UnsafeMutablePointer<AVStream>, index: Int) -> Double? {
        let stated = validRate(stream.pointee.avg_frame_rate) ?? validRate(stream.pointee.r_frame_rate)
        if let stated, stated < 100 { return stated }
        guard let measured = packetFrameRate(input, stream: stream, index: index) else { return stated }
        guard let stated else { return measured }
        return stated > 2 * measured ? measured : stated
    }

    /// Frames per second over the stream's first 64 packets (their span ÷ their count − 1: millisecond
    /// timestamps alternate 33 and 34 ms for 30 fps, so no single interval says it).
    private static func packetFrameRate(_ input: InputFile, stream: UnsafeMutablePointer<AVStream>, index: Int) -> Double? {
        defer { try? input.seekToStart() }
        guard (try? input.seekToStart()) != nil, let packet = try? Packet() else { return nil }
        var times: [Int64] = []
        var read = 0
        while times.count < 64, read < 4096, (try? input.read(into: packet)) == .packet {
            read += 1
            if packet.streamIndex == index, packet.presentationTime != CAV_NOPTS_VALUE { times.append(packet.presentationTime) }
        }
        let distinct = Array(Set(times)).sorted()
        guard distinct.count >= 5, let first = distinct.first, let last = distinct.last else { return nil }
        let seconds = av_q2d(stream.pointee.time_base) * Double(last.minus(first)) / Double(distinct.count - 1)
        guard seconds.isFinite, seconds > 0 else { return nil }
        return 1 / seconds
    }

    private static func validRate(_ rate: AVRational) -> Double? {
        guard rate.num > 0, rate.den > 0 else { return nil }
        return av_q2d(rate)
    }

    static func codecName(_ id: AVCodecID) -> String {
        id == AV_CODEC_ID_NONE ? "unknown" : (FFmpegText.string(avcodec_get_name(id)) ?? "unknown")
    }

    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xff) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func mediaTypeName(_ type: AVMediaType) -> String {
        switch type {
        case AVMEDIA_TYPE_VIDEO: return "video"
        case AVMEDIA_TYPE_AUDIO: return "audio"
        case AVMEDIA_TYPE_SUBTITLE: return "subtitle"
        case AVMEDIA_TYPE_DATA: return "data"
        case AVMEDIA_TYPE_ATTACHMENT: return "attachment"
        default: return "unknown"
        }
    }

    private static func metadataValue(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0) else { return nil }
        return FFmpegText.string(entry.pointee.value)
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        let millis = (seconds * 1000).rounded()
        return "\(millis / 1000)"
    }
}

/// The video stream vtrim works on: FFmpeg's best video stream unless that is cover art, then the
/// largest other video stream.
enum VideoStreamChoice {
    static func best(in input: InputFile) -> Int? {
        func isCandidate(_ index: Int) -> Bool {
            guard let stream = input.stream(index), let parameters = stream.pointee.codecpar else { return false }
            return parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
        let best = av_find_best_stream(input.format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        if best >= 0, isCandidate(Int(best)) { return Int(best) }
        let candidates = (0..<input.streamCount).filter(isCandidate)
        return candidates.max { lhs, rhs in
            area(input, lhs) < area(input, rhs)
        }
    }

    private static func area(_ input: InputFile, _ index: Int) -> Int {
        guard let parameters = input.stream(index)?.pointee.codecpar?.pointee else { return 0 }
        return Int(parameters.width) * Int(parameters.height)
    }
}
