import CAV

/// Exact cut: decodes from the plan's keyframe through the last packet the wanted frames need and
/// re-encodes the frame shown at `start` (at output time 0) through the last frame that begins before
/// `end`, which lasts until `end − start`. Frames between keep their source times (shifted by the plan).
final class ExactVideoWriter: VideoWriter {
    let outputIndex: Int
    private let output: OutputFile
    private let decoder: Decoder
    private let encoder: Encoder
    private let sourceTimeBase: AVRational
    /// The encoder's (and the output's) finer grid: `ExactTiming`.
    private let timeBase: AVRational
    private let timing: ExactTiming
    private let video: VideoCut
    private let transform: (a: Int, b: Int, c: Int, d: Int)?
    private let targetFormat: AVPixelFormat
    private let convertsToLimitedRange: Bool
    private let packet: Packet
    private let decoded: Frame
    private let startFrame: StartFrameHold
    private var converter: OpaquePointer?
    private var started = false
    private var fedLastNeeded = false
    private var finished = false
    private var durations = FrameDurations()
    private var decodeErrors = 0
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    var notices: [CutNotice] { decodeErrors > 0 ? [.decodeErrors(count: decodeErrors)] : [] }

    private let shouldStop: @Sendable () -> Bool

    init(stream: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: CutPlan, video: VideoCut,
         shouldStop: @escaping @Sendable () -> Bool) throws {
        self.output = output
        self.shouldStop = shouldStop
        self.video = video
        sourceTimeBase = stream.pointee.time_base
        guard let timing = video.exact else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "exact timing") }
        self.timing = timing
        timeBase = AVRational(num: Int32(clamping: timing.timeBase.numerator), den: Int32(clamping: timing.timeBase.denominator))
        // The frame shown at `start` is held until a later frame (or the end) releases it to output time 0.
        startFrame = StartFrameHold(startTicks: video.startTicks)
        guard let parameters = stream.pointee.codecpar?.pointee, let name = plan.encoder, let muxer = output.muxer else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar")
        }
        decoder = try Decoder(stream: stream, threads: plan.threads.decoder, beginning: video.beginning)
        packet = try Packet()
        decoded = try Frame()

        var ignored: [MediaWarning] = []
        let orientation = Probe.readOrientation(stream, warnings: &ignored)
        let bake = !orientation.isUpright && !muxer.carriesDisplayMatrix
        transform = bake ? orientation.transform : nil
        let sourceFormat = AVPixelFormat(rawValue: parameters.format)
        targetFormat = EncoderChoice.pixelFormat(for: name, source: sourceFormat, turnsSideways: bake && orientation.swapsDimensions)
        convertsToLimitedRange = EncoderChoice.isFullRangeFormat(sourceFormat) && !EncoderChoice.isFullRangeFormat(targetFormat)
        var settings = Encoder.Settings(
            source: parameters, stream: stream, pixelFormat: targetFormat, threads: plan.threads.encoder,
            swapsDimensions: bake && orientation.swapsDimensions, globalHeader: muxer.needsGlobalHeader,
            options: EncoderChoice.withHDRMetadata(EncoderChoice.options(for: name, crf: plan.crf, preset: plan.preset, threads: plan.threads.encoder),
                                                   encoder: name, stream: stream))
        settings.timeBase = timeBase
        // Tag the range of what is encoded, not the source's (a J format converted is limited range now).
        if convertsToLimitedRange { settings.colorRange = AVCOL_RANGE_MPEG }
        encoder = try Encoder(name: name, settings: settings)
        let out = try output.addStream()
        try encoder.copyParameters(to: out)
        // Every parameter set the encoder writes is in the sample entry (global header), none in the samples:
        // say so with `hvc1`, which Apple's players require (FFmpeg 5.1's muxer tags HEVC `hev1` by default).
        if muxer.supportsEditLists, out.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC {
            out.pointee.codecpar.pointee.codec_tag = SmartVideoWriter.tag("hvc1")
        }
        av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
        OutputFile.dropTimecode(&out.pointee.metadata)
        out.pointee.disposition = stream.pointee.disposition
        if !bake { try output.copySideData(from: stream, to: out, only: AV_PKT_DATA_DISPLAYMATRIX) }
        try HDRMetadata.copy(from: stream, to: out, output: output)
        outputIndex = Int(out.pointee.index)
    }

    deinit {
        sws_freeContext(converter)
    }

    func consume(_ input: Packet) throws -> Bool {
        if finished || fedLastNeeded { return true }
        let timing = input.timing
        if !started {
            guard timing.isSame(as: video.keyframe) else { return false }
            started = true
        }
        if timing.pts < video.keyframe.pts, !timing.isKeyframe { return false }
        try decoder.decode(input, into: decoded, errors: &decodeErrors) { frame throws in try self.handle(frame) }
        if timing.isSame(as: video.lastNeeded) {
            fedLastNeeded = true
            reachedPlannedEnd = true
        }
        return finished || fedLastNeeded
    }

    func finish() throws {
        if !finished {
            try decoder.decode(nil, into: decoded, errors: &decodeErrors) { frame throws in try self.handle(frame) }
        }
        if let held = startFrame.release() { try encode(held, outputPts: 0) }
        // The last frame lasts until `end` (the plan's presented end).
        durations.close(at: timing.end.minus(timing.zero))
        try encoder.send(nil)
        try drainEncoder()
        finished = true
    }

    /// The frame shown at `start` goes out at output time 0, later ones at their own times, until `end`.
    private func handle(_ frame: Frame) throws {
        guard !finished else { return }
        let timestamp = frame.timestamp
        if try startFrame.take(frame) { return }
        if let held = startFrame.release() { try encode(held, outputPts: 0) }
        if timestamp >= video.endTicks {
            finished = true
            return
        }
        latestPresentedEnd = max(latestPresentedEnd, timestamp)
        try encode(frame, outputPts: av_rescale_q(timestamp, sourceTimeBase, timeBase).minus(timing.shift))
    }

    private func encode(_ frame: Frame, outputPts: Int64) throws {
        durations.frameSent(at: outputPts)
        let picture = try prepare(frame)
        picture.pointer.pointee.pts = outputPts
        picture.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        picture.pointer.pointee.key_frame = 0
        try encoder.send(picture)
        try drainEncoder()
        if picture !== frame { picture.unref() } else { frame.unref() }
    }

    private func drainEncoder() throws {
        while try encoder.receive(into: packet) {
            if shouldStop() { throw CutInterrupted() }
            durations.apply(to: packet)
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
            // NULL for a size or format swscale refuses (a damaged stream's frame): an error, never a crash.
            guard converter != nil else { throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getCachedContext") }
            status = sws_scale_frame(converter, converted.pointer, frame.pointer)
            if status < 0 { throw AVFailure(code: status, operation: "sws_scale_frame") }
            av_frame_copy_props(converted.pointer, frame.pointer)
            if convertsToLimitedRange { converted.pointer.pointee.color_range = AVCOL_RANGE_MPEG }
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
