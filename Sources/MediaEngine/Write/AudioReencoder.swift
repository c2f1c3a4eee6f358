import CAV

/// Sample-exact audio for a join: each range's audio is decoded, trimmed to the sample at the range's start
/// and to its length, and encoded back to back by one encoder of the source's codec, so every seam is exact
/// (copied audio can only follow on at a packet boundary, up to half an audio frame off). A gap in the source's
/// audio is filled with silence, so what follows keeps its place. MP4/MOV only: their edit list hides the
/// encoder's priming samples, which other containers would play as a delay.
/// It reads the audio through a demuxer of its own, from 200 ms before each range (the decoder needs the frame
/// before the first one kept), kept a second ahead of the video the main pass writes so the file interleaves.
final class AudioReencoder {
    /// One range: the source's samples from `sourceStart` land on the output from `outputStart` to `outputEnd`.
    struct Window {
        var sourceStart: Int64
        var outputStart: Int64
        var outputEnd: Int64
    }

    let input: Int
    let outputIndex: Int
    private let source: InputFile
    private let reader: Packet
    /// The latest time read from the source (µs), and whether the source's audio has ended.
    private var readMicro = Int64.min
    private var exhausted = false
    private let output: OutputFile
    private let decoder: Decoder
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var fifo: OpaquePointer?
    private let sourceTimeBase: AVRational
    private let sampleTimeBase: AVRational
    private let frameSize: Int32
    private let frame: Frame
    private let writer: AudioFrameWriter
    private var window = Window(sourceStart: 0, outputStart: 0, outputEnd: 0)
    /// Output samples queued for the encoder, and sent to it (the next frame's pts).
    private var queued: Int64 = 0
    private var sent: Int64 = 0
    private(set) var done = false
    /// Damaged audio the decoder met.
    var errors: Int { decoder.errors }

    init(path: String, streamIndex: Int, encoderName: String, output: OutputFile) throws {
        source = try InputFile(path: path)
        guard let stream = source.stream(streamIndex) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "audio stream #\(streamIndex)") }
        // Only this stream is read.
        for index in 0..<Int(source.format.pointee.nb_streams) where index != streamIndex {
            source.stream(index)?.pointee.discard = AVDISCARD_ALL
        }
        input = streamIndex
        reader = try Packet()
        self.output = output
        sourceTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream, threads: 1)
        let decoding = decoder.codecContext
        guard decoding.pointee.sample_rate > 0 else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "audio sample rate") }
        sampleTimeBase = AVRational(num: 1, den: decoding.pointee.sample_rate)
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw AVFailure(code: CAV_AVERROR_DECODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(encoderName))")
        }
        // Owned by locals until every step has worked (a throwing init never runs deinit).
        var context = avcodec_alloc_context3(codec)
        var fifo: OpaquePointer?
        var succeeded = false
        defer {
            if !succeeded {
                av_audio_fifo_free(fifo)
                avcodec_free_context(&context)
            }
        }
        guard let opened = context else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3") }
        frame = try Frame()
        let globalHeader = output.outputFormat.map { $0.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? false
        var status = cav_audio_encoder_like(opened, decoding, stream.pointee.codecpar.pointee.bit_rate, globalHeader ? 1 : 0)
        if status < 0 { throw AVFailure(code: status, operation: "audio encoder setup (\(encoderName))") }
        status = avcodec_open2(opened, codec, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(encoderName))") }
        frameSize = opened.pointee.frame_size > 0 ? opened.pointee.frame_size : 1024
        fifo = av_audio_fifo_alloc(opened.pointee.sample_fmt, opened.pointee.ch_layout.nb_channels, frameSize)
        guard fifo != nil else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_audio_fifo_alloc") }
        let out = try output.addStream()
        status = avcodec_parameters_from_context(out.pointee.codecpar, opened)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
        out.pointee.time_base = opened.pointee.time_base
        out.pointee.disposition = stream.pointee.disposition
        av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
        outputIndex = Int(out.pointee.index)
        writer = try AudioFrameWriter(output: output, outputIndex: outputIndex)
        encoder = opened
        self.fifo = fifo
        succeeded = true
    }

    /// The encoder of a join's sample-exact audio, when it opens with this stream's rate, channels and sample
    /// format (checked while planning, so a plan never promises what the writer cannot do); nil otherwise.
    static func encoderThatOpens(for stream: UnsafeMutablePointer<AVStream>) -> String? {
        guard let parameters = stream.pointee.codecpar,
              let name = AudioSeams.encoder(forCodec: Probe.codecName(parameters.pointee.codec_id)),
              let codec = avcodec_find_encoder_by_name(name), let decoder = try? Decoder(stream: stream, threads: 1) else { return nil }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let opening = context, cav_audio_encoder_like(opening, decoder.codecContext, parameters.pointee.bit_rate, 1) >= 0,
              avcodec_open2(opening, codec, nil) >= 0 else { return nil }
        return name
    }

    deinit {
        av_audio_fifo_free(fifo)
        avcodec_free_context(&encoder)
    }

    /// The next range: `sourceStartMicro` (container µs) lands at `outputStartMicro` and the range lasts `durationMicro`.
    func begin(sourceStartMicro: Int64, outputStartMicro: Int64, durationMicro: Int64) throws {
        let micro = AVRational(num: 1, den: 1_000_000)
        let outputStart = av_rescale_q(outputStartMicro, micro, sampleTimeBase)
        window = Window(sourceStart: av_rescale_q(sourceStartMicro, micro, sampleTimeBase), outputStart: outputStart,
                        outputEnd: av_rescale_q(outputStartMicro.plus(durationMicro), micro, sampleTimeBase))
        // The decoder starts afresh at the new place, primed by what lies before the start.
        decoder.flush()
        done = window.outputEnd <= outputStart
        exhausted = false
        readMicro = .min
        let from = av_rescale_q(sourceStartMicro.minus(200_000), micro, sourceTimeBase)
        // A source that cannot seek there is read from its start (the window still takes only its own samples).
        if (try? source.seek(streamIndex: input, timestamp: from)) == nil { try source.seekToStart() }
    }

    /// Reads, decodes and queues the range's audio up to `micro` on the source's timeline (`.max`: all of it).
    func advance(untilMicro micro: Int64) throws {
        while !done, !exhausted, readMicro < micro {
            guard try source.read(into: reader) == .packet else {
                exhausted = true
                try decoder.decode(nil, into: frame) { decoded in try take(decoded) }
                decoder.flush()
                return
            }
            guard reader.streamIndex == input else { continue }
            if reader.presentationTime != CAV_NOPTS_VALUE {
                readMicro = av_rescale_q(reader.presentationTime, sourceTimeBase, AVRational(num: 1, den: 1_000_000))
            }
            try decoder.decode(reader, into: frame) { decoded in try take(decoded) }
        }
    }

    /// Queues the part of a decoded frame inside the window, at its own place on the output.
    private func take(_ decoded: Frame) throws {
        guard !done else { return }
        let timestamp = decoded.pointer.pointee.best_effort_timestamp != CAV_NOPTS_VALUE ? decoded.pointer.pointee.best_effort_timestamp
            : decoded.pointer.pointee.pts
        guard timestamp != CAV_NOPTS_VALUE else { return }
        let first = av_rescale_q(timestamp, sourceTimeBase, sampleTimeBase)
        let count = Int64(decoded.pointer.pointee.nb_samples)
        let length = window.outputEnd.minus(window.outputStart)
        var from = max(first, window.sourceStart)
        let to = min(first.plus(count), window.sourceStart.plus(length))
        if first >= window.sourceStart.plus(length) {
            done = true
            return
        }
        guard to > from else { return }
        var place = window.outputStart.plus(from.minus(window.sourceStart))
        // The FIFO and the encoder take the format the decoder opened with; a stream that changes it mid-way
        // (channels, rate, sample format) is refused rather than mixed up.
        let context = encoderContext.pointee
        guard decoded.pointer.pointee.format == context.sample_fmt.rawValue, decoded.pointer.pointee.sample_rate == context.sample_rate,
              decoded.pointer.pointee.ch_layout.nb_channels == context.ch_layout.nb_channels else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "audio format changes mid-stream (re-encoding needs one format; use --audio-seams nearest)")
        }
        if place > queued {
            // The source has no audio here: silence, a frame at a time, so what follows keeps its place.
            while place > queued {
                let chunk = min(place.minus(queued), Int64(frameSize))
                try check(cav_audio_fifo_write_silence(fifo, context.sample_fmt, context.ch_layout.nb_channels, Int32(chunk)), "audio silence")
                queued = queued.plus(chunk)
                try encodeQueued(all: false)
            }
        } else if place < queued {
            // Already queued (overlapping timestamps): only what is new.
            from = from.plus(queued.minus(place))
            place = queued
            guard to > from else { return }
        }
        try check(cav_audio_fifo_write_part(fifo, decoded.pointer, Int32(clamping: from.minus(first)), Int32(clamping: to.minus(from)),
                                            context.ch_layout.nb_channels, context.sample_fmt), "av_audio_fifo_write")
        queued = queued.plus(to.minus(from))
        if to >= window.sourceStart.plus(length) { done = true }
        try encodeQueued(all: false)
    }

    /// After the last range: what is queued, then the encoder's own delay.
    func finish() throws {
        // An encoder that takes only whole frames gets the last one filled with silence (the edit ends the track).
        let capabilities = encoderContext.pointee.codec.map { $0.pointee.capabilities } ?? 0
        let partial = av_audio_fifo_size(fifo) % frameSize
        if partial > 0, capabilities & (AV_CODEC_CAP_SMALL_LAST_FRAME | AV_CODEC_CAP_VARIABLE_FRAME_SIZE) == 0 {
            try check(cav_audio_fifo_write_silence(fifo, encoderContext.pointee.sample_fmt, encoderContext.pointee.ch_layout.nb_channels,
                                                   frameSize - partial), "audio silence")
        }
        try encodeQueued(all: true)
        try writer.drain(encoderContext)
    }

    private var encoderContext: UnsafeMutablePointer<AVCodecContext> { encoder.unsafelyUnwrapped }

    private func encodeQueued(all: Bool) throws {
        sent = try writer.encode(fifo, encoderContext, frameSize: frameSize, all: all, from: sent)
    }

    private func check(_ status: Int32, _ operation: String) throws(AVFailure) {
        if status < 0 { throw AVFailure(code: status, operation: operation) }
    }
}
