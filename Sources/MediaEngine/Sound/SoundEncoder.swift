import CAV

/// Decodes ranges of one audio stream and encodes them back to back with one encoder: each range's samples taken by
/// their timestamps, so every range starts and ends on its own sample. The decoder starts a second before each range
/// (an MP3's reservoir, Opus's state) and libswresample converts where the encoder takes another sample format, rate or
/// channel count (a pass-through when it takes the decoder's). Encoders signal their own priming and padding
/// (libmp3lame's skip samples, AAC's negative first time, libopus's pre-skip), which the muxers write.
final class SoundEncoder {
    private let source: InputFile
    private let streamIndex: Int
    private let decoder: Decoder
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private let writer: AudioFrameWriter
    private let frame: Frame
    private let packet: Packet
    private let sourceTimeBase: AVRational
    private let decodedRate: Int32
    private let frameSize: Int32
    private var sent: Int64 = 0
    /// MP3 and ADTS are read from their start (`SoundSurvey.readsFromStart`); the last packet read (source ticks).
    private let sequential: Bool
    private var lastRead: Int64?
    var errors: Int { decoder.errors }

    init(path: String, streamIndex: Int, encoder name: String, bitRate: Int64, output: OutputFile) throws {
        source = try InputFile(path: path)
        guard let stream = source.stream(streamIndex) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "audio stream #\(streamIndex)") }
        for index in 0..<source.streamCount where index != streamIndex { source.stream(index)?.pointee.discard = AVDISCARD_ALL }
        self.streamIndex = streamIndex
        sequential = SoundSurvey.readsFromStart(source)
        sourceTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream, threads: 1)
        decodedRate = decoder.codecContext.pointee.sample_rate
        guard decodedRate > 0 else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "audio sample rate") }
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw AVFailure(code: CAV_AVERROR_ENCODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        // Owned by locals until every step has worked (a throwing init never runs deinit).
        var context = avcodec_alloc_context3(codec)
        var resampler: OpaquePointer?
        var fifo: OpaquePointer?
        var succeeded = false
        defer {
            if !succeeded {
                av_audio_fifo_free(fifo)
                swr_free(&resampler)
                avcodec_free_context(&context)
            }
        }
        guard let opened = context else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3") }
        var status = cav_audio_encoder_for(opened, decoder.codecContext, bitRate, (output.muxer?.needsGlobalHeader ?? false) ? 1 : 0)
        if status < 0 { throw AVFailure(code: status, operation: "audio encoder setup (\(name))") }
        status = avcodec_open2(opened, codec, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(name))") }
        resampler = cav_preview_resampler(decoder.codecContext, opened)
        guard resampler != nil else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "swr_init") }
        let variable = opened.pointee.codec.map { $0.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0 } ?? false
        frameSize = opened.pointee.frame_size > 0 && !variable ? opened.pointee.frame_size : 4096
        fifo = av_audio_fifo_alloc(opened.pointee.sample_fmt, opened.pointee.ch_layout.nb_channels, frameSize)
        guard fifo != nil else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_audio_fifo_alloc") }
        let out = try output.addStream()
        status = avcodec_parameters_from_context(out.pointee.codecpar, opened)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
        out.pointee.time_base = opened.pointee.time_base
        av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
        writer = try AudioFrameWriter(output: output, outputIndex: Int(out.pointee.index))
        frame = try Frame()
        packet = try Packet()
        encoder = opened
        self.resampler = resampler
        self.fifo = fifo
        succeeded = true
    }

    deinit {
        av_audio_fifo_free(fifo)
        swr_free(&resampler)
        avcodec_free_context(&encoder)
    }

    private var context: UnsafeMutablePointer<AVCodecContext> { encoder.unsafelyUnwrapped }

    /// Decodes `range` (source samples) and queues exactly its samples.
    func add(_ range: SoundPlan.SampleRange, shouldStop: () -> Bool, progress: (Double) -> Void) throws {
        let samples = AVRational(num: 1, den: decodedRate)
        decoder.flush()
        let from = av_rescale_q(range.start.minus(Int64(decodedRate)), samples, sourceTimeBase)
        if sequential {
            // Read on from where the range before stopped, when that lies before this one.
            if lastRead.map({ $0 >= from }) ?? true { try source.seekToStart() }
        } else if (try? source.seek(streamIndex: streamIndex, timestamp: from)) == nil {
            try source.seekToStart()
        }
        var done = false
        while !done {
            if shouldStop() { throw CutInterrupted() }
            guard try source.read(into: packet) == .packet else {
                try decoder.decode(nil, into: frame) { decoded in done = try take(decoded, range: range) }
                break
            }
            guard packet.streamIndex == streamIndex else { continue }
            if packet.pts != CAV_NOPTS_VALUE { lastRead = packet.pts }
            // Read from the start (MP3, ADTS): decoded only from a second before the range.
            if packet.pts != CAV_NOPTS_VALUE, packet.pts.plus(packet.duration) < from { continue }
            try decoder.decode(packet, into: frame) { decoded in
                if !done { done = try take(decoded, range: range) }
            }
            if packet.pts != CAV_NOPTS_VALUE, range.count > 0 {
                let at = av_rescale_q(packet.pts, sourceTimeBase, samples).minus(range.start)
                progress(min(1, max(0, Double(at) / Double(range.count))))
            }
        }
    }

    /// Queues the part of a decoded frame inside `range`; true once the range is complete.
    private func take(_ decoded: Frame, range: SoundPlan.SampleRange) throws -> Bool {
        let frame = decoded.pointer.pointee
        let timestamp = frame.best_effort_timestamp != CAV_NOPTS_VALUE ? frame.best_effort_timestamp : frame.pts
        guard timestamp != CAV_NOPTS_VALUE else { return false }
        let first = av_rescale_q(timestamp, sourceTimeBase, AVRational(num: 1, den: decodedRate))
        let count = Int64(frame.nb_samples)
        if first >= range.end { return true }
        let from = max(first, range.start), to = min(first.plus(count), range.end)
        guard to > from else { return false }
        try part(decoded, offset: from.minus(first), count: to.minus(from))
        try encode(all: false)
        return to >= range.end
    }

    /// `count` samples of a decoded frame from `offset`, converted into the FIFO.
    private func part(_ decoded: Frame, offset: Int64, count: Int64) throws {
        let status = cav_resample_part_into_fifo(resampler, fifo, decoded.pointer, Int32(clamping: offset), Int32(clamping: count),
                                                 decoder.codecContext, context)
        if status < 0 { throw AVFailure(code: status, operation: "swr_convert") }
    }

    private func encode(all: Bool) throws {
        sent = try writer.encode(fifo, context, frameSize: frameSize, all: all, from: sent)
    }

    /// After the last range: what the resampler holds, the FIFO, then the encoder's own delay.
    func finish() throws {
        let flushed = cav_resample_into_fifo(resampler, fifo, nil, decoder.codecContext, context)
        if flushed < 0 { throw AVFailure(code: flushed, operation: "swr_convert") }
        let capabilities = context.pointee.codec.map { $0.pointee.capabilities } ?? 0
        let partial = av_audio_fifo_size(fifo) % frameSize
        if partial > 0, capabilities & (AV_CODEC_CAP_SMALL_LAST_FRAME | AV_CODEC_CAP_VARIABLE_FRAME_SIZE) == 0 {
            let status = cav_audio_fifo_write_silence(fifo, context.pointee.sample_fmt, context.pointee.ch_layout.nb_channels, frameSize - partial)
            if status < 0 { throw AVFailure(code: status, operation: "audio silence") }
        }
        try encode(all: true)
        try writer.drain(context)
    }
}
