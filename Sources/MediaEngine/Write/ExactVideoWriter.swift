import CAV

/// Exact cut: decodes from the plan's keyframe through the last packet the wanted frames need and
/// re-encodes the frame shown at `start` (at output time 0) through the last frame that begins before
/// `end`, each for its own source duration (the plan's span). Frames keep their source times (shifted by the plan).
/// A join's ranges go through one encoder, back to back: `begin` starts the next range's decoding.
final class ExactVideoWriter: VideoWriter {
    let outputIndex: Int
    private let source: UnsafeMutablePointer<AVStream>
    private let decoderThreads: Int
    private var decoder: Decoder
    private let encoder: FrameEncoder
    private let converter = FrameConverter(flags: SWS_BICUBIC)
    private let sourceTimeBase: AVRational
    /// The encoder's (and the output's) finer grid: `ExactTiming`.
    private let timeBase: AVRational
    private var timing: ExactTiming
    private var video: VideoCut
    /// The output's video stream: what decoders opened mid-stream need, and whether its B-frames are packed.
    private let stream: OutputVideo
    private let transform: (a: Int, b: Int, c: Int, d: Int)?
    private let targetFormat: AVPixelFormat
    private let tagsLimitedRange: Bool
    private let decoded: Frame
    private var startFrame: StartFrameHold
    private var started = false
    private var fedLastNeeded = false
    private var finished = false
    /// Frames dropped here (no time, or out of order), and what the decoders of earlier ranges counted.
    private var droppedFrames = 0, earlierDecoderErrors = 0
    private var decodeErrors: Int { droppedFrames + earlierDecoderErrors + decoder.errors }
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    /// The last frame's time and the step before it: a frame the decoder gives without any timestamp (a
    /// DivX/Xvid packed B-frame, released only when the decoder is drained) follows it by that step.
    private var lastTimestamp: Int64?, lastStep: Int64 = 1
    /// Packed B-frames: the times of the packets fed and not yet shown, earliest first (`packedFrames`).
    private var unshownSlots: [Int64] = []
    /// `ExactTiming.fillsLastSlot`: the last picture encoded, and when.
    private var lastPicture: Frame?, lastOutputPts: Int64?
    /// Each source frame's Dolby Vision RPU and HDR10+, put into the frame re-encoded from it (`OutputVideo`).
    private let metadata: FrameMetadataCarrier?
    var notices: [CutNotice] { decodeErrors > 0 ? [.decodeErrors(count: decodeErrors)] : [] }

    /// Executes the output's `reencoding` (encoder, options, pixel format, range, orientation baked): it decides nothing.
    init(source: UnsafeMutablePointer<AVStream>, file output: OutputFile, output plan: OutputPlan, range: RangePlan,
         shouldStop: @escaping @Sendable () -> Bool) throws {
        guard let stream = plan.video, let video = range.video, let timing = video.exact, let grid = stream.exactTimeBase,
              let reencoding = plan.reencoding else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "exact plan")
        }
        self.video = video
        self.stream = stream
        self.source = source
        decoderThreads = plan.threads.decoder
        sourceTimeBase = source.pointee.time_base
        self.timing = timing
        let timeBase = AVRational(num: Int32(clamping: grid.numerator), den: Int32(clamping: grid.denominator))
        self.timeBase = timeBase
        // The frame shown at `start` is held until a later frame (or the end) releases it to output time 0.
        startFrame = StartFrameHold(startTicks: video.startTicks)
        guard let parameters = source.pointee.codecpar?.pointee, let muxer = output.muxer else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar")
        }
        targetFormat = av_get_pix_fmt(reencoding.pixelFormat)
        guard targetFormat != AV_PIX_FMT_NONE else { throw AVFailure(code: cav_averror(EINVAL), operation: "av_get_pix_fmt(\(reencoding.pixelFormat))") }
        tagsLimitedRange = reencoding.tagsLimitedRange
        transform = reencoding.bakedOrientation?.transform
        decoder = try Decoder(stream: source, threads: plan.threads.decoder, beginning: stream.beginning)
        decoded = try Frame()
        var settings = Encoder.Settings(source: parameters, stream: source, pixelFormat: targetFormat, threads: reencoding.threads,
                                        swapsDimensions: reencoding.bakedOrientation?.swapsDimensions ?? false,
                                        globalHeader: muxer.needsGlobalHeader, options: reencoding.options)
        settings.timeBase = timeBase
        // Tag the range of what is encoded, not the source's (a J format converted is limited range now).
        if tagsLimitedRange { settings.colorRange = AVCOL_RANGE_MPEG }
        let made = try Encoder(name: reencoding.encoder, settings: settings)
        let out = try output.addStream()
        try made.copyParameters(to: out)
        // Every parameter set the encoder writes is in the sample entry (global header), none in the samples:
        // say so with `hvc1`, which Apple's players require (FFmpeg 5.1's muxer tags HEVC `hev1` by default).
        if muxer.supportsEditLists, out.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC {
            out.pointee.codecpar.pointee.codec_tag = SmartVideoWriter.tag("hvc1")
        }
        av_dict_copy(&out.pointee.metadata, source.pointee.metadata, 0)
        OutputFile.dropTimecode(&out.pointee.metadata)
        out.pointee.disposition = source.pointee.disposition
        if reencoding.bakedOrientation == nil { try output.copySideData(from: source, to: out, only: AV_PKT_DATA_DISPLAYMATRIX) }
        try HDRMetadata.copy(from: source, to: out, output: output)
        if stream.dolbyVision != nil { try output.copySideData(from: source, to: out, only: AV_PKT_DATA_DOVI_CONF) }
        let metadata = FrameMetadataCarrier(codec: FrameMetadataCodec(codec: stream.codec), rpu: stream.dolbyVision != nil,
                                            hdr10Plus: stream.hdr10Plus, lengthSize: CleanStart(stream: source).lengthSize)
        self.metadata = metadata
        let index = Int(out.pointee.index)
        outputIndex = index
        let repeated = muxer.supportsEditLists ? RepeatedSets(encoder: made) : nil
        let rewrite: ((Packet) throws -> Void)? = repeated == nil && metadata == nil ? nil : { packet in
            try repeated?.drop(from: packet)
            try metadata?.carry(in: packet, shownAt: packet.pts)
        }
        encoder = try FrameEncoder(encoder: made, shouldStop: shouldStop, rewrite: rewrite) { packet in
            try output.write(packet, stream: index, timeBase: timeBase)
        }
    }

    /// The parameter sets an H.264/HEVC encoder states in its global header and repeats in its first packet (x265 does
    /// with HDR10 SEI): dropped from the packets, so an `hvc1`/`avc1` entry's samples hold none, as the entry says.
    struct RepeatedSets {
        let codec: NALUnits.Codec
        let header: Set<ArraySlice<UInt8>>

        init?(encoder: Encoder) {
            let context = encoder.codecContext.pointee
            switch context.codec_id {
            case AV_CODEC_ID_HEVC: codec = .hevc
            case AV_CODEC_ID_H264: codec = .h264
            default: return nil
            }
            let units = NALUnits.splitAnnexB(context.extradataBytes)
            let kind = codec
            let sets = Set(units.filter { NALUnits.isParameterSet($0, codec: kind) }.map { ArraySlice($0) })
            if sets.isEmpty { return nil }
            header = sets
        }

        func drop(from packet: Packet) throws {
            let units = NALUnits.splitAnnexB(packet.bytes)
            guard units.contains(where: { header.contains(ArraySlice($0)) }) else { return }
            try packet.setBytes(NALUnits.annexB(units.filter { !header.contains(ArraySlice($0)) }))
        }
    }

    func consume(_ input: Packet) throws -> Bool {
        if finished || fedLastNeeded { return true }
        let timing = input.timing
        if !started {
            guard timing.isSame(as: video.keyframe) else { return false }
            started = true
        }
        if timing.pts < video.keyframe.pts, !timing.isKeyframe { return false }
        metadata?.read(input, pts: timing.pts)
        if stream.packedFrames {
            let slot = timing.dts
            unshownSlots.insert(slot, at: unshownSlots.firstIndex { $0 > slot } ?? unshownSlots.endIndex)
        }
        // Frames before the one shown at `start` are only references: those nothing refers to need no decoding
        // (not in packed AVI frames, whose packets' times are slots, not the frames').
        decoder.skipNonReferenceFrames(!stream.packedFrames && timing.pts != CAV_NOPTS_VALUE && timing.pts < video.frameAtStart)
        try decoder.decode(input, into: decoded) { frame throws in try self.handle(frame) }
        if timing.isSame(as: video.lastNeeded) {
            fedLastNeeded = true
            reachedPlannedEnd = true
        }
        return finished || fedLastNeeded
    }

    func finish() throws {
        try endRange()
        // The last frame lasts until `end` (the plan's presented end).
        try encoder.finish(endPts: endPts)
    }

    /// Where the current range ends on the output's timeline (encoder ticks).
    private var endPts: Int64 { timing.outputEnd.value }
    private var rangeEnded = false

    /// Drains the current range's decoder; its last frame lasts until the range's end (the next range's
    /// first frame, or `finish`).
    private func endRange() throws {
        guard !rangeEnded else { return }
        rangeEnded = true
        if !finished {
            try decoder.decode(nil, into: decoded) { frame throws in try self.handle(frame) }
        }
        if let held = startFrame.release() { try encode(held, outputPts: timing.outputStart.value) }
        if timing.fillsLastSlot, let picture = lastPicture, let last = lastOutputPts, last < endPts.minus(1) {
            metadata?.repeatLast(as: endPts.minus(1))
            try encoder.encode(picture, outputPts: endPts.minus(1))
        }
        finished = true
    }

    /// A join: ends the current range and starts decoding the next one (`range`, timed on the output's exact grid,
    /// moved to where it begins on the output's timeline).
    func begin(_ range: RangePlan) throws {
        guard let next = range.video, let nextTiming = next.exact else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "exact plan")
        }
        try endRange()
        video = next
        timing = nextTiming
        earlierDecoderErrors += decoder.errors
        decoder = try Decoder(stream: source, threads: decoderThreads, beginning: stream.beginning)
        startFrame = StartFrameHold(startTicks: next.startTicks)
        started = false
        fedLastNeeded = false
        finished = false
        rangeEnded = false
        reachedPlannedEnd = false
        lastTimestamp = nil
        lastStep = 1
        unshownSlots = []
        lastOutputPts = nil
        lastPicture = nil
        latestPresentedEnd = .min
    }

    /// The frame shown at `start` goes out at output time 0, later ones at their own times, until `end`.
    private func handle(_ frame: Frame) throws {
        guard !finished else { return }
        var timestamp = frame.timestamp
        if stream.packedFrames, !unshownSlots.isEmpty {
            timestamp = unshownSlots.removeFirst()
            frame.pointer.pointee.best_effort_timestamp = timestamp
            frame.pointer.pointee.pts = timestamp
        }
        if timestamp == CAV_NOPTS_VALUE {
            guard let lastTimestamp else { droppedFrames += 1; return }
            timestamp = lastTimestamp.plus(lastStep)
            frame.pointer.pointee.best_effort_timestamp = timestamp
            frame.pointer.pointee.pts = timestamp
        }
        // A frame that does not come after the one before it cannot be shown in order: counted, not written.
        if let lastTimestamp {
            guard timestamp > lastTimestamp else { droppedFrames += 1; return }
            lastStep = timestamp.minus(lastTimestamp)
        }
        lastTimestamp = timestamp
        if try startFrame.take(frame) { return }
        if let held = startFrame.release() { try encode(held, outputPts: timing.outputStart.value) }
        if timestamp >= video.endTicks {
            finished = true
            return
        }
        latestPresentedEnd = max(latestPresentedEnd, timestamp)
        try encode(frame, outputPts: timing.output(av_rescale_q(timestamp, sourceTimeBase, timeBase)).value)
    }

    private func encode(_ frame: Frame, outputPts: Int64) throws {
        metadata?.reencode(sourcePts: frame.timestamp, as: outputPts)
        let picture = try prepare(frame)
        if timing.fillsLastSlot {
            let kept = try lastPicture ?? Frame()
            kept.unref()
            guard av_frame_ref(kept.pointer, picture.pointer) >= 0 else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_frame_ref") }
            lastPicture = kept
            lastOutputPts = outputPts
        }
        try encoder.encode(picture, outputPts: outputPts)
        if picture !== frame { frame.unref() }
    }

    /// The plan's pixel format, the picture turned upright where the plan bakes the orientation in.
    private func prepare(_ frame: Frame) throws -> Frame {
        var current = frame
        if AVPixelFormat(rawValue: frame.pointer.pointee.format) != targetFormat {
            current = try converter.convert(frame, width: frame.pointer.pointee.width, height: frame.pointer.pointee.height,
                                            format: targetFormat)
            if tagsLimitedRange { current.pointer.pointee.color_range = AVCOL_RANGE_MPEG }
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
