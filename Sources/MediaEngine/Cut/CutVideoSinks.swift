import CAV

/// Receives the video packets of a cut, from the keyframe on, and says when the video is complete.
protocol VideoSink: AnyObject {
    /// Returns the presented end (container µs) once the video needs no more packets.
    func consume(_ packet: Packet) throws -> Int64?
    /// At the end of the input: flush, return the presented end.
    func finish() throws -> Int64
    var warnings: [MediaWarning] { get }
    var notes: [String] { get }
}

/// Stream copy from the keyframe to where `CopyTail` stops. Leading pictures of an open GOP (shown
/// before the keyframe, referencing the previous GOP) are dropped: they would not decode, and they lie
/// before the start anyway.
final class CopyVideoSink: VideoSink {
    let output: OutputFile
    let outputIndex: Int
    let timeBase: AVRational
    let plan: CutPlan
    private var tail: CopyTail<Packet>
    private var started = false
    private var droppedLeading = 0
    var warnings: [MediaWarning] = []
    var notes: [String] {
        droppedLeading > 0 ? ["\(droppedLeading) leading frame(s) of an open GOP before the keyframe were left out (they reference earlier frames)"] : []
    }

    init(output: OutputFile, outputIndex: Int, stream: UnsafeMutablePointer<AVStream>, plan: CutPlan, endTicks: Int64) {
        self.output = output
        self.outputIndex = outputIndex
        self.timeBase = stream.pointee.time_base
        self.plan = plan
        tail = CopyTail(end: endTicks)
    }

    func consume(_ packet: Packet) throws -> Int64? {
        let timing = packet.timing
        if !started {
            guard packet.isKeyframe, timing.pts == plan.keyframe.pts else { return nil }
            started = true
        }
        if timing.pts < plan.keyframe.pts {
            droppedLeading += 1
            return nil
        }
        // A reference to the packet's data (the reader reuses the packet), held while the tail decides.
        guard let ready = tail.offer(timing, try packet.clone()) else {
            return try finish()
        }
        for item in ready { try write(item) }
        return nil
    }

    func finish() throws -> Int64 {
        for item in tail.finish() { try write(item) }
        return av_rescale_q(tail.latestEnd == Int64.min ? plan.presentedStart : tail.latestEnd, timeBase, cav_time_base_q())
    }

    private func write(_ packet: Packet) throws {
        let pts = packet.pts != CAV_NOPTS_VALUE ? packet.pts : packet.dts
        packet.pointer.pointee.pts = pts - plan.shift
        // A missing decode time (Matroska's first packets) stays missing: the muxer derives it from the
        // presentation times and the reorder depth, which keeps it monotonic.
        if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts = packet.dts - plan.shift }
        try output.write(packet, stream: outputIndex, timeBase: timeBase)
    }
}

extension Packet {
    /// Presentation and decode times with FFmpeg's gaps filled (a missing one takes the other).
    var timing: CutPlan.VideoPacket {
        let pts = self.pts != CAV_NOPTS_VALUE ? self.pts : dts
        return CutPlan.VideoPacket(pts: pts, dts: dts != CAV_NOPTS_VALUE ? dts : pts, duration: duration, isKeyframe: isKeyframe)
    }
}

/// Exact cut: decodes from the keyframe, re-encodes from the frame at `start` (shown from output time 0)
/// to the last frame that begins before `end` (its duration trimmed to end there).
final class EncodingVideoSink: VideoSink {
    let output: OutputFile
    let outputIndex: Int
    let encoderName: String
    private let decoder: Decoder
    private let encoder: Encoder
    private let timeBase: AVRational
    private let plan: CutPlan
    private let startTicks: Int64
    private let endTicks: Int64
    private let endMicro: Int64
    private let transform: (a: Int, b: Int, c: Int, d: Int)?
    private let targetFormat: AVPixelFormat
    private let packet: Packet
    private let decoded: Frame
    private let startFrame: StartFrameHold
    private var converter: OpaquePointer?
    private var started = false
    private var finished = false
    private var lastOutputPts: Int64?
    private var durations: [Int64: Int64] = [:]
    private var decodeErrors = 0
    private var framesEncoded = 0
    var notes: [String] = []
    var warnings: [MediaWarning] {
        decodeErrors > 0 ? [MediaWarning(code: "decode_errors", message: "\(decodeErrors) packet(s) could not be decoded while re-encoding")] : []
    }

    init(input: InputFile, stream: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: CutPlan,
         startMicro: Int64, endMicro: Int64, spec: CutSpec, path: String) throws {
        self.output = output
        self.plan = plan
        timeBase = stream.pointee.time_base
        startTicks = StreamTime.startTicks(startMicro, timeBase)
        endTicks = StreamTime.endTicks(endMicro, timeBase)
        startFrame = StartFrameHold(startTicks: startTicks)
        self.endMicro = endMicro
        guard let parameters = stream.pointee.codecpar?.pointee else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar") }
        decoder = try Decoder(stream: stream, threads: 0)
        packet = try Packet()
        decoded = try Frame()

        var warnings: [MediaWarning] = []
        let orientation = Probe.readOrientation(stream, warnings: &warnings)
        let bake = orientation != .upright && !output.carriesDisplayMatrix
        transform = bake ? orientation.transform : nil
        let swaps = bake && orientation.swapsDimensions

        let name = EncoderChoice.encoder(for: parameters.codec_id, output: output)
        encoderName = name
        let sourceFormat = AVPixelFormat(rawValue: parameters.format)
        let supported = Encoder.pixelFormats(name)
        targetFormat = supported.isEmpty || supported.contains(sourceFormat) ? sourceFormat
            : (supported.contains(AV_PIX_FMT_YUV420P) ? AV_PIX_FMT_YUV420P : supported[0])
        var sar = av_guess_sample_aspect_ratio(nil, stream, nil)
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        if swaps { sar = AVRational(num: sar.den, den: sar.num) }
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        let settings = Encoder.Settings(
            width: swaps ? parameters.height : parameters.width, height: swaps ? parameters.width : parameters.height,
            pixelFormat: targetFormat, timeBase: timeBase, frameRate: rate, sampleAspectRatio: sar,
            colorRange: parameters.color_range, colorPrimaries: parameters.color_primaries,
            colorTransfer: parameters.color_trc, colorSpace: parameters.color_space,
            chromaLocation: parameters.chroma_location,
            globalHeader: output.outputFormat.map { $0.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? false,
            threads: spec.encoderThreads, options: EncoderChoice.options(for: name, crf: spec.crf, preset: spec.preset))
        encoder = try Encoder(name: name, settings: settings)
        let out = try output.addStream()
        try encoder.copyParameters(to: out)
        av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
        OutputFile.dropTimecode(&out.pointee.metadata)
        out.pointee.disposition = stream.pointee.disposition
        if !bake { try output.copySideData(from: stream, to: out, only: AV_PKT_DATA_DISPLAYMATRIX) }
        outputIndex = Int(out.pointee.index)
        if sourceFormat != targetFormat {
            notes.append("pixel format \(FFmpegText.string(av_get_pix_fmt_name(sourceFormat)) ?? "?") converted to \(FFmpegText.string(av_get_pix_fmt_name(targetFormat)) ?? "?") for \(name)")
        }
    }

    deinit {
        sws_freeContext(converter)
    }

    func consume(_ input: Packet) throws -> Int64? {
        if finished { return endMicro }
        let pts = input.pts != CAV_NOPTS_VALUE ? input.pts : input.dts
        if !started {
            guard input.isKeyframe, pts == plan.keyframe.pts else { return nil }
            started = true
        }
        if pts < plan.keyframe.pts { return nil }
        var sent = false
        while !sent {
            switch try sendOrFull(input) {
            case .accepted, .drained: sent = true
            case .full: break
            }
            try receiveFrames()
            if finished { return try complete() }
        }
        return nil
    }

    func finish() throws -> Int64 {
        if !finished {
            _ = try? decoder.send(nil)
            try receiveFrames()
        }
        return try complete()
    }

    private func sendOrFull(_ input: Packet) throws -> Decoder.SendResult {
        do {
            return try decoder.send(input)
        } catch {
            decodeErrors += 1
            return .accepted
        }
    }

    private func receiveFrames() throws {
        while !finished {
            let result: Decoder.ReceiveResult
            do { result = try decoder.receive(into: decoded) } catch {
                decodeErrors += 1
                continue
            }
            guard result == .frame else { return }
            try handle(decoded)
        }
    }

    /// The frame shown at `start` is encoded at output time 0, later ones after it, until `end`.
    private func handle(_ frame: Frame) throws {
        let timestamp = frame.timestamp
        if try startFrame.take(frame) { return }
        if let held = startFrame.release() { try encode(held, outputPts: 0) }
        if timestamp >= endTicks {
            finished = true
            return
        }
        try encode(frame, outputPts: timestamp - startTicks)
    }

    private func complete() throws -> Int64 {
        if let held = startFrame.release() { try encode(held, outputPts: 0) }
        // The last frame lasts until `end` (or its own end when the input stops first).
        if let last = lastOutputPts {
            let untilEnd = endTicks - startTicks - last
            durations[last] = max(1, finished ? untilEnd : (durations[last] ?? untilEnd))
        }
        try encoder.send(nil)
        try drainEncoder()
        finished = true
        let last = lastOutputPts.map { $0 + (durations[$0] ?? 0) } ?? 0
        return av_rescale_q(startTicks + last, timeBase, cav_time_base_q())
    }

    private func encode(_ frame: Frame, outputPts: Int64) throws {
        if let previous = lastOutputPts { durations[previous] = outputPts - previous }
        let picture = try prepare(frame)
        picture.pointer.pointee.pts = outputPts
        picture.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        picture.pointer.pointee.key_frame = 0
        lastOutputPts = outputPts
        framesEncoded += 1
        try encoder.send(picture)
        try drainEncoder()
        if picture !== frame { picture.unref() } else { frame.unref() }
    }

    private func drainEncoder() throws {
        while try encoder.receive(into: packet) {
            if let duration = durations[packet.pts] { packet.pointer.pointee.duration = duration }
            try output.write(packet, stream: outputIndex, timeBase: timeBase)
        }
    }

    /// Converts the pixel format and turns the picture upright when needed.
    private func prepare(_ frame: Frame) throws -> Frame {
        var current = frame
        if AVPixelFormat(rawValue: frame.pointer.pointee.format) != targetFormat {
            let converted = try Frame()
            converted.pointer.pointee.format = targetFormat.rawValue
            converted.pointer.pointee.width = frame.pointer.pointee.width
            converted.pointer.pointee.height = frame.pointer.pointee.height
            var status = av_frame_get_buffer(converted.pointer, 0)
            if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
            converter = sws_getCachedContext(converter, frame.pointer.pointee.width, frame.pointer.pointee.height,
                                             AVPixelFormat(rawValue: frame.pointer.pointee.format),
                                             frame.pointer.pointee.width, frame.pointer.pointee.height, targetFormat,
                                             SWS_BICUBIC, nil, nil, nil)
            status = sws_scale_frame(converter, converted.pointer, frame.pointer)
            if status < 0 { throw AVFailure(code: status, operation: "sws_scale_frame") }
            av_frame_copy_props(converted.pointer, frame.pointer)
            current = converted
        }
        if let transform {
            let turned = try Frame()
            let swaps = transform.a == 0
            turned.pointer.pointee.format = current.pointer.pointee.format
            turned.pointer.pointee.width = swaps ? current.pointer.pointee.height : current.pointer.pointee.width
            turned.pointer.pointee.height = swaps ? current.pointer.pointee.width : current.pointer.pointee.height
            var status = av_frame_get_buffer(turned.pointer, 0)
            if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
            status = cav_frame_transform(current.pointer, turned.pointer, Int32(transform.a), Int32(transform.b),
                                         Int32(transform.c), Int32(transform.d))
            if status < 0 { throw AVFailure(code: status, operation: "turn picture upright") }
            av_frame_copy_props(turned.pointer, current.pointer)
            current = turned
        }
        return current
    }
}

/// The encoder for an exact cut: the source's family where Debian's FFmpeg has one, else one the
/// output container takes.
enum EncoderChoice {
    static func encoder(for codec: AVCodecID, output: OutputFile) -> String {
        let family: String?
        switch codec {
        case AV_CODEC_ID_H264: family = "libx264"
        case AV_CODEC_ID_HEVC: family = "libx265"
        case AV_CODEC_ID_VP8, AV_CODEC_ID_VP9: family = "libvpx-vp9"
        case AV_CODEC_ID_AV1: family = "libsvtav1"
        default: family = nil
        }
        if let family, let id = Encoder.codecID(family), output.canHold(id) { return family }
        let fallback = output.formatName == "webm" ? "libvpx-vp9" : "libx264"
        return fallback
    }

    static func options(for encoder: String, crf: Int, preset: String) -> [String: String] {
        switch encoder {
        case "libx264":
            return ["crf": String(crf), "preset": preset]
        case "libx265":
            return ["crf": String(crf), "preset": preset, "x265-params": "log-level=error"]
        case "libvpx-vp9":
            return ["crf": String(crf + 11), "b": "0", "deadline": "good", "row-mt": "1",
                    "cpu-used": String(speed(preset, slowest: 0, fastest: 8))]
        case "libsvtav1":
            return ["crf": String(crf + 10), "preset": String(speed(preset, slowest: 2, fastest: 12))]
        default:
            return [:]
        }
    }

    /// x264's preset names mapped onto another encoder's numeric speed scale.
    private static func speed(_ preset: String, slowest: Int, fastest: Int) -> Int {
        let names = ["veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast"]
        let position = names.firstIndex(of: preset) ?? 3
        return slowest + (fastest - slowest) * position / (names.count - 1)
    }
}
