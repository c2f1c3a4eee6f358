import CAV

/// One pass over a file for `vtrim propose`: only the streams a detector needs are decoded, every other stream is
/// discarded by the demuxer. Silence alone decodes the audio alone; the video's packets are then read, not decoded,
/// only around the silences found (`VideoWindows`) for its clean starts and frame times. The video decoder uses the
/// thread budget.
public enum ContentAnalyzer {
    /// `info`: the file's probe (its duration and warnings). `keeping`: where the scene pass holds the pictures from each
    /// possible cut to the next keyframe, for the smart heads of a cut that follows (`EdgeFrames`).
    public static func analyse(path: String, info: MediaInfo, query: ContentQuery, threads: Int, keeping edgeFrames: EdgeFrames? = nil,
                               progress: ((Double) -> Void)? = nil) throws(MediaError) -> ContentAnalysis {
        if let problem = query.problem { throw MediaError(.invalidRange, path: path, operation: "propose", reason: problem) }
        let input = try InputFile(path: path)
        let origin = input.originMicro
        let audioIndex = query.silence == nil ? -1 : Int(av_find_best_stream(input.format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0))
        if query.silence != nil, audioIndex < 0 {
            throw MediaError(.noAudio, path: path, operation: "av_find_best_stream", reason: "has no audio stream to find silences in")
        }
        let decodesVideo = query.black != nil || query.scenes != nil
        // The video's packets are read in any case: their times say which kept ranges would show no frame of their own.
        let videoIndex = info.video?.index ?? -1
        if decodesVideo, videoIndex < 0 {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream to find black or scene cuts in")
        }
        // Silence alone: the audio first, the video around what it finds after.
        let windowed = !decodesVideo && audioIndex >= 0 && videoIndex >= 0
        let passVideoIndex = windowed ? -1 : videoIndex
        for index in 0..<Int(input.format.pointee.nb_streams) where index != audioIndex && index != passVideoIndex {
            input.stream(index)?.pointee.discard = AVDISCARD_ALL
        }
        let durationMicro = Micro.from(seconds: info.durationSeconds) ?? 0
        do {
            var pass = try Pass(input: input, query: query, audioIndex: audioIndex, videoIndex: passVideoIndex, decodesVideo: decodesVideo,
                                threads: threads, origin: origin, edgeFrames: edgeFrames)
            try pass.run(durationMicro: durationMicro, progress: progress)
            if windowed, let stream = input.stream(videoIndex), let silences = pass.silence?.found, !silences.isEmpty {
                input.stream(audioIndex)?.pointee.discard = AVDISCARD_ALL
                stream.pointee.discard = AVDISCARD_DEFAULT
                var times = VideoPacketTimes(stream: stream, origin: origin)
                if !(try VideoWindows.read(input, videoIndex: videoIndex, windows: silences.map { ($0.startMicro, $0.endMicro) }, into: &times)) {
                    // No seek reaches a window: every packet, from the start.
                    times = VideoPacketTimes(stream: stream, origin: origin)
                    try input.seekToStart()
                    let packet = try Packet()
                    while try input.read(into: packet) == .packet {
                        if packet.streamIndex == videoIndex { times.take(packet) }
                    }
                }
                pass.times = times
            }
            var warnings = info.warnings
            if pass.decodeErrors > 0 {
                warnings.append(MediaWarning(code: "frame_damaged", message: "\(pass.decodeErrors) damaged packets or frames were skipped; what they held was not analysed"))
            }
            var detections = pass.silence?.found ?? []
            detections += pass.black?.found ?? []
            detections += pass.scenes?.scenes(durationMicro: durationMicro) ?? []
            return ContentAnalysis(durationMicro: durationMicro, detections: detections,
                                   cleanStarts: pass.times?.sortedCleanStarts ?? [], frameStartsMicro: pass.times?.sortedFrameStarts ?? [],
                                   warnings: warnings)
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "cannot be analysed (\(error))")
        }
    }

    private struct Pass {
        let input: InputFile
        let audioIndex: Int, videoIndex: Int
        let origin: Int64
        let audioDecoder: Decoder?, videoDecoder: Decoder?
        let audioStream: UnsafeMutablePointer<AVStream>?, videoStream: UnsafeMutablePointer<AVStream>?
        var silence: SilenceDetector?
        let black: BlackDetector?
        let scenes: SceneDetector?
        /// The video's clean starts and frame times, from its packets.
        var times: VideoPacketTimes?
        /// Pictures kept for the smart heads of the cut that follows (scenes only).
        var edgeFrames: EdgeFrameCollector?

        init(input: InputFile, query: ContentQuery, audioIndex: Int, videoIndex: Int, decodesVideo: Bool, threads: Int, origin: Int64,
             edgeFrames: EdgeFrames?) throws(AVFailure) {
            self.input = input
            self.audioIndex = audioIndex
            self.videoIndex = videoIndex
            self.origin = origin
            audioStream = audioIndex >= 0 ? input.stream(audioIndex) : nil
            videoStream = videoIndex >= 0 ? input.stream(videoIndex) : nil
            audioDecoder = try audioStream.map { stream throws(AVFailure) in try Decoder(stream: stream, threads: 1) }
            var skipsDeblocking = false
            if decodesVideo, let videoStream {
                let decoder = try Decoder(stream: videoStream, threads: max(1, threads))
                // Scenes alone, in a stream with B-frames: deblocking is skipped on pictures nothing refers to (a 256-pixel
                // score cannot tell; 6–12 % of a 720p decode). Not on the others: their error would build up over a group
                // of pictures and snap back at each keyframe, a score spike every GOP (measured: four false cuts in ten
                // minutes of an animated shot with AVDISCARD_ALL). A stream without B-frames rarely has such pictures: it
                // is decoded whole, so its pictures can be kept for the heads. The rule is the stream's alone, so `propose`
                // and `cut --propose` score alike.
                skipsDeblocking = query.black == nil && (videoStream.pointee.codecpar?.pointee.video_delay ?? 0) > 0
                if skipsDeblocking { decoder.codecContext.pointee.skip_loop_filter = AVDISCARD_NONREF }
                videoDecoder = decoder
            } else {
                videoDecoder = nil
            }
            times = videoStream.map { VideoPacketTimes(stream: $0, origin: origin) }
            silence = query.silence.map { SilenceDetector($0) }
            if let blackQuery = query.black, let stream = input.stream(videoIndex) {
                black = BlackDetector(blackQuery, timeBase: stream.pointee.time_base, originMicro: origin)
            } else {
                black = nil
            }
            scenes = query.scenes.map { SceneDetector($0) }
            // Kept pictures must be what the heads' own decoders give: none where deblocking was skipped.
            self.edgeFrames = scenes != nil && videoDecoder != nil && !skipsDeblocking ? edgeFrames.map { EdgeFrameCollector($0) } : nil
        }

        var decodeErrors: Int { (audioDecoder?.errors ?? 0) + (videoDecoder?.errors ?? 0) }

        mutating func run(durationMicro: Int64, progress: ((Double) -> Void)?) throws(AVFailure) {
            let packet = try Packet(), audioFrame = try Frame(), videoFrame = try Frame()
            var lastReported = -1.0
            while try input.read(into: packet) == .packet {
                let index = packet.streamIndex
                if index == audioIndex, let audioDecoder, let audioStream {
                    try decodeAudio(audioDecoder, audioStream, packet, audioFrame)
                } else if index == videoIndex, let videoStream {
                    times?.take(packet)
                    if let videoDecoder { try decodeVideo(videoDecoder, videoStream, packet, videoFrame) }
                }
                if let progress, durationMicro > 0, packet.pts != CAV_NOPTS_VALUE, let stream = input.stream(index) {
                    let fraction = min(1, max(0, Double(stream.micro(packet.pts).minus(origin)) / Double(durationMicro)))
                    if fraction - lastReported >= 0.01 {
                        lastReported = fraction
                        progress(fraction)
                    }
                }
                packet.unref()
            }
            if let audioDecoder, let audioStream { try decodeAudio(audioDecoder, audioStream, nil, audioFrame) }
            if let videoDecoder, let videoStream { try decodeVideo(videoDecoder, videoStream, nil, videoFrame) }
            edgeFrames?.finish()
            silence?.finish()
            try black?.finish()
        }

        private mutating func decodeAudio(_ decoder: Decoder, _ stream: UnsafeMutablePointer<AVStream>, _ packet: Packet?, _ frame: Frame) throws(AVFailure) {
            do {
                try decoder.decode(packet, into: frame) { decoded in
                    let timestamp = Self.timestamp(decoded)
                    guard timestamp != CAV_NOPTS_VALUE else { return }
                    silence?.take(decoded, frameMicro: stream.micro(timestamp).minus(origin))
                }
            } catch {
                throw error as? AVFailure ?? AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "avcodec_receive_frame")
            }
        }

        private mutating func decodeVideo(_ decoder: Decoder, _ stream: UnsafeMutablePointer<AVStream>, _ packet: Packet?, _ frame: Frame) throws(AVFailure) {
            do {
                try decoder.decode(packet, into: frame) { decoded in
                    let timestamp = Self.timestamp(decoded)
                    guard timestamp != CAV_NOPTS_VALUE else {
                        edgeFrames?.take(decoded, timestamp: nil, startsRun: false, decoderErrors: decoder.errors)
                        return
                    }
                    decoded.pointer.pointee.pts = timestamp
                    let micro = stream.micro(timestamp).minus(origin)
                    let duration = decoded.pointer.pointee.pkt_duration > 0 ? stream.micro(decoded.pointer.pointee.pkt_duration) : 0
                    try black?.take(decoded)
                    let cut = try scenes?.take(decoded, micro: micro, durationMicro: duration) ?? false
                    edgeFrames?.take(decoded, timestamp: timestamp, startsRun: cut, decoderErrors: decoder.errors)
                }
            } catch {
                throw error as? AVFailure ?? AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "avcodec_receive_frame")
            }
        }

        private static func timestamp(_ frame: Frame) -> Int64 {
            let f = frame.pointer.pointee
            return f.best_effort_timestamp != CAV_NOPTS_VALUE ? f.best_effort_timestamp : f.pts
        }
    }
}
