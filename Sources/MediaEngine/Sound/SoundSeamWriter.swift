import CAV

/// Writes a join planned by `SoundSeamPlanner`: each range's packets copied onto the output's grid, and each seam's
/// window decoded from both ranges, crossfaded, and encoded again by a fresh AAC encoder fed from two frames before the
/// window (so its frames overlap the copied ones as the source's do), keeping only the window's own frames.
final class SoundSeamWriter {
    private let input: InputFile
    private let source: UnsafeMutablePointer<AVStream>
    private let output: OutputFile
    private let plan: SoundPlan
    private let seams: SoundSeams
    private let outputIndex: Int
    private let samples: AVRational
    private let decoder: Decoder
    private let packet: Packet

    /// Frames the encoder is fed before a window, so its first kept frame overlaps the copied one before it.
    static let leadInFrames: Int64 = 4

    init(input: InputFile, source: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: SoundPlan, seams: SoundSeams) throws {
        self.input = input
        self.source = source
        self.output = output
        self.plan = plan
        self.seams = seams
        samples = AVRational(num: 1, den: Int32(plan.sampleRate))
        let stream = try output.addCopy(of: source, keepSideData: false)
        stream.pointee.time_base = samples
        stream.pointee.codecpar?.pointee.initial_padding = 0
        outputIndex = Int(stream.pointee.index)
        decoder = try Decoder(stream: source, threads: 1)
        packet = try Packet()
        guard decoder.codecContext.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "AAC decoder sample format")
        }
    }

    func run(shouldStop: () -> Bool, progress: (@Sendable (Double) -> Void)?) throws {
        for (number, piece) in seams.pieces.enumerated() {
            if shouldStop() { throw CutInterrupted() }
            switch piece {
            case let .copy(span): try copy(span, last: number == seams.pieces.count - 1)
            case let .encode(window): try encode(window)
            }
            progress?(Double(number + 1) / Double(seams.pieces.count))
        }
    }

    private func ticks(_ sample: Int64) -> Int64 { av_rescale_q(sample, samples, source.pointee.time_base) }
    private func sample(_ ticks: Int64) -> Int64 { av_rescale_q(ticks, source.pointee.time_base, samples) }

    /// A range's packets whose first samples lie in the span, moved onto the output's timeline.
    private func copy(_ span: SoundSeams.CopySpan, last: Bool) throws {
        let from = span.outputStart.plus(span.toSource), to = span.outputEnd.plus(span.toSource)
        try input.seek(streamIndex: plan.streamIndex, timestamp: ticks(from))
        var written = false
        while try input.read(into: packet) == .packet {
            guard packet.streamIndex == plan.streamIndex, packet.pts != CAV_NOPTS_VALUE else { continue }
            let start = sample(packet.pts)
            if start < from { continue }
            if start >= to { break }
            let outputStart = start.minus(span.toSource)
            av_packet_shrink_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, 0)
            packet.pointer.pointee.pts = outputStart
            packet.pointer.pointee.dts = outputStart
            // The last frame ends the join where the edit list ends it.
            let end = outputStart.plus(seams.frame)
            packet.pointer.pointee.duration = last && end >= span.outputEnd ? max(1, seams.endSamples.minus(outputStart)) : seams.frame
            try output.write(packet, stream: outputIndex, timeBase: samples)
            written = true
        }
        guard written else {
            throw MediaError(.decodeFailed, path: input.path, operation: "av_read_frame", reason: "range \(span.range + 1)'s audio packets could not be read back")
        }
    }

    /// The window's samples as the output should hold them: the range before the seam, then the one after, crossfaded.
    private func encode(_ window: SoundSeams.Window) throws {
        let seam = window.seam, frame = seams.frame
        let fade = seams.crossfadeSamples, join = seams.outputStarts[seam]
        let feedStart = window.outputStart.minus(Self.leadInFrames.times(frame))
        let feedEnd = window.outputEnd.plus(2 * frame)
        let before = plan.ranges[seam - 1].start.minus(seams.outputStarts[seam - 1])
        let after = plan.ranges[seam].start.minus(join)
        let fadeStart = join.minus(fade / 2), fadeEnd = fadeStart.plus(fade)
        let first = try decode(from: feedStart.plus(before), count: fadeEnd.minus(feedStart))
        let second = try decode(from: fadeStart.plus(after), count: feedEnd.minus(fadeStart))
        let channels = first.count
        var mixed = [[Float]](repeating: [], count: channels)
        for channel in 0..<channels {
            var line = [Float](repeating: 0, count: Int(feedEnd.minus(feedStart)))
            for index in line.indices {
                let t = feedStart.plus(Int64(index))
                let a = t < fadeEnd ? first[channel][Int(t.minus(feedStart))] : 0
                let b = t >= fadeStart ? second[channel][Int(t.minus(fadeStart))] : 0
                let weight = t < fadeStart ? 0 : t >= fadeEnd ? 1 : Float(t.minus(fadeStart)) / Float(fade)
                line[index] = a * (1 - weight) + b * weight
            }
            mixed[channel] = line
        }
        try encode(mixed, feedStart: feedStart, keep: window.outputStart..<window.outputEnd)
    }

    /// `count` decoded samples of the source from source sample `from` (planar float), silence where it has none.
    private func decode(from: Int64, count: Int64) throws -> [[Float]] {
        let channels = Int(decoder.codecContext.pointee.ch_layout.nb_channels)
        var planes = [[Float]](repeating: [Float](repeating: 0, count: Int(max(0, count))), count: channels)
        guard count > 0 else { return planes }
        decoder.flush()
        if (try? input.seek(streamIndex: plan.streamIndex, timestamp: ticks(from.minus(Int64(plan.sampleRate))))) == nil { try input.seekToStart() }
        let frame = try Frame()
        let end = from.plus(count)
        var done = false
        while !done, try input.read(into: packet) == .packet {
            guard packet.streamIndex == plan.streamIndex else { continue }
            try decoder.decode(packet, into: frame) { decoded in
                let timestamp = decoded.pointer.pointee.best_effort_timestamp
                guard timestamp != CAV_NOPTS_VALUE, decoded.pointer.pointee.format == AV_SAMPLE_FMT_FLTP.rawValue,
                      Int(decoded.pointer.pointee.ch_layout.nb_channels) == channels else { return }
                let start = sample(timestamp), length = Int64(decoded.pointer.pointee.nb_samples)
                if start >= end { done = true; return }
                let lower = max(start, from), upper = min(start.plus(length), end)
                guard upper > lower else { return }
                for channel in 0..<channels {
                    guard let data = decoded.pointer.pointee.extended_data[channel] else { continue }
                    data.withMemoryRebound(to: Float.self, capacity: Int(length)) { floats in
                        for t in lower..<upper { planes[channel][Int(t.minus(from))] = floats[Int(t.minus(start))] }
                    }
                }
                if upper >= end { done = true }
            }
        }
        return planes
    }

    /// Encodes `pcm` (output samples from `feedStart`) with a fresh AAC encoder and writes the frames that decode to `keep`.
    private func encode(_ pcm: [[Float]], feedStart: Int64, keep: Range<Int64>) throws {
        guard let codec = avcodec_find_encoder_by_name(seams.encoder) else {
            throw AVFailure(code: CAV_AVERROR_ENCODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(seams.encoder))")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let encoder = context else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3") }
        var status = cav_audio_encoder_for(encoder, decoder.codecContext, seams.bitRate, 1)
        if status < 0 { throw AVFailure(code: status, operation: "audio encoder setup (\(seams.encoder))") }
        // Noise substitution and intensity stereo trade the waveform for bits: a window must match the copied frames
        // around it, whose overlap it shares.
        var options: OpaquePointer?
        av_dict_set(&options, "aac_pns", "0", 0)
        av_dict_set(&options, "aac_is", "0", 0)
        defer { av_dict_free(&options) }
        status = avcodec_open2(encoder, codec, &options)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(seams.encoder))") }
        guard encoder.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP, encoder.pointee.frame_size == Int32(seams.frame) else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "AAC encoder frame")
        }
        let frame = try Frame(), encoded = try Packet()
        let total = pcm.first?.count ?? 0
        var offset = 0
        func receive() throws {
            while true {
                encoded.unref()
                let status = avcodec_receive_packet(encoder, encoded.pointer)
                if status == CAV_AVERROR_EAGAIN || status == CAV_AVERROR_EOF { return }
                if status < 0 { throw AVFailure(code: status, operation: "avcodec_receive_packet") }
                let start = feedStart.plus(encoded.pts)
                guard keep.contains(start) else { continue }
                encoded.pointer.pointee.pts = start
                encoded.pointer.pointee.dts = start
                encoded.pointer.pointee.duration = seams.frame
                try output.write(encoded, stream: outputIndex, timeBase: samples)
            }
        }
        while offset < total {
            let count = min(Int(seams.frame), total - offset)
            av_frame_unref(frame.pointer)
            frame.pointer.pointee.nb_samples = Int32(count)
            frame.pointer.pointee.format = encoder.pointee.sample_fmt.rawValue
            frame.pointer.pointee.sample_rate = encoder.pointee.sample_rate
            status = av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &encoder.pointee.ch_layout)
            if status >= 0 { status = av_frame_get_buffer(frame.pointer, 0) }
            if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
            for (channel, plane) in pcm.enumerated() {
                guard let data = frame.pointer.pointee.extended_data[channel] else { continue }
                data.withMemoryRebound(to: Float.self, capacity: count) { floats in
                    for index in 0..<count { floats[index] = plane[offset + index] }
                }
            }
            frame.pointer.pointee.pts = Int64(offset)
            status = avcodec_send_frame(encoder, frame.pointer)
            if status < 0 { throw AVFailure(code: status, operation: "avcodec_send_frame") }
            try receive()
            offset += count
        }
        status = avcodec_send_frame(encoder, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_send_frame") }
        try receive()
    }
}
