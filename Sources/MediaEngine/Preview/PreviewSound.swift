import CAV

/// A preview's sound where the source's is one browsers do not play (AC-3, MP2, PCM, FLAC, Opus or Vorbis outside
/// WebM, …): decoded, resampled by libswresample to float planar (mono, or stereo for everything else) at a rate AAC
/// has, and encoded to AAC-LC by libavcodec's encoder, on the preview's timeline (0 = the source's start). A frame of
/// another format than the stream began with (a broadcast switching channel layouts) is left out, counted.
final class PreviewSound {
    let input: Int
    let outputIndex: Int
    private let decoder: Decoder
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private let output: OutputFile
    private let sourceTimeBase: AVRational
    private let originMicro: Int64
    private let frameSize: Int32
    private let decoded: Frame
    private let writer: AudioFrameWriter
    /// The next encoded frame's first sample on the output (nil until the first decoded frame places the sound).
    private var next: Int64?
    /// Frames left out (their format changed mid-stream).
    private(set) var skipped = 0

    init(stream: UnsafeMutablePointer<AVStream>, index: Int, output: OutputFile, originMicro: Int64) throws {
        input = index
        self.output = output
        self.originMicro = originMicro
        sourceTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream, threads: 1)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            throw AVFailure(code: CAV_AVERROR_ENCODER_NOT_FOUND, operation: "avcodec_find_encoder(aac)")
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
        var status = cav_audio_encoder_for_preview(opened, decoder.codecContext, (output.muxer?.needsGlobalHeader ?? true) ? 1 : 0)
        if status < 0 { throw AVFailure(code: status, operation: "preview sound setup") }
        status = avcodec_open2(opened, codec, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(aac)") }
        resampler = cav_preview_resampler(decoder.codecContext, opened)
        guard resampler != nil else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "swr_init (preview sound)") }
        frameSize = opened.pointee.frame_size > 0 ? opened.pointee.frame_size : 1024
        fifo = av_audio_fifo_alloc(opened.pointee.sample_fmt, opened.pointee.ch_layout.nb_channels, frameSize)
        guard fifo != nil else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_audio_fifo_alloc") }
        decoded = try Frame()
        let out = try output.addStream()
        status = avcodec_parameters_from_context(out.pointee.codecpar, opened)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
        out.pointee.time_base = opened.pointee.time_base
        outputIndex = Int(out.pointee.index)
        writer = try AudioFrameWriter(output: output, outputIndex: outputIndex)
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

    private var encoderContext: UnsafeMutablePointer<AVCodecContext> { encoder.unsafelyUnwrapped }

    /// Decodes a packet of the source's sound (nil: the end) and writes what it makes.
    func take(_ reading: Packet?) throws {
        try decoder.decode(reading, into: decoded) { frame in
            if next == nil {
                // The first frame places the sound: its time on the preview's timeline, in output samples.
                let timestamp = frame.pointer.pointee.best_effort_timestamp
                let micro = timestamp == CAV_NOPTS_VALUE ? 0 : av_rescale_q(timestamp, sourceTimeBase, AVRational(num: 1, den: 1_000_000)).minus(originMicro)
                next = max(0, av_rescale_q(micro, AVRational(num: 1, den: 1_000_000), encoderContext.pointee.time_base))
            }
            if cav_resample_into_fifo(resampler, fifo, frame.pointer, decoder.codecContext, encoderContext) < 0 { skipped += 1 }
            try encodeQueued(all: false)
        }
        guard reading == nil else { return }
        _ = cav_resample_into_fifo(resampler, fifo, nil, decoder.codecContext, encoderContext)
        try encodeQueued(all: true)
        try writer.drain(encoderContext)
    }

    private func encodeQueued(all: Bool) throws {
        next = try writer.encode(fifo, encoderContext, frameSize: frameSize, all: all, from: next ?? 0)
    }
}
