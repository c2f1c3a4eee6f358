import CAV

/// Writes a join planned by `SoundSeamPlanner`: each range's packets copied onto the output's grid, and each seam's
/// window decoded from both ranges, crossfaded, and encoded again by a fresh encoder fed from frames before the window
/// (so its frames overlap the copied ones as the source's do), keeping only the window's own frames. MP3: the LAME tag's
/// delay and padding from skip-samples side data on the first and last packet; windows encoded without a bit reservoir,
/// and the last frame of each rewritten to carry the bytes the next copied frame's reservoir reaches back for.
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
    /// MP3 and ADTS hold no timestamps: entered by byte and timed by counting (`SoundSurvey.readsFromStart`).
    private let sequential: Bool
    private let isMP3: Bool
    /// A window's last frame, held until the copy after it says what reservoir bytes it must carry (MP3).
    private var pending: Packet?
    private var firstWritten = false

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
        sequential = SoundSurvey.readsFromStart(input)
        isMP3 = plan.codec == "mp3"
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
        if let pending { try output.write(pending, stream: outputIndex, timeBase: samples) }
    }

    /// Positions the input at `entry` (by byte where the file holds no timestamps) or at source sample `sample`; the
    /// timestamp the next packet has when counted from there (nil: the demuxer's own).
    private func position(at entry: SoundSeams.Entry?, sample: Int64) throws -> Int64? {
        if sequential {
            if let entry, entry.position >= 0, av_seek_frame(input.format, -1, entry.position, AVSEEK_FLAG_BYTE) >= 0 { return entry.pts }
            try input.seekToStart()
            return nil
        }
        if (try? input.seek(streamIndex: plan.streamIndex, timestamp: ticks(sample))) == nil { try input.seekToStart() }
        return nil
    }

    /// Reads the next packet of the stream, timed by counting from `counted` where the file has no timestamps.
    private func nextPacket(_ counted: inout Int64?) throws -> Bool {
        while try input.read(into: packet) == .packet {
            guard packet.streamIndex == plan.streamIndex else { continue }
            if let time = counted {
                packet.pointer.pointee.pts = time
                packet.pointer.pointee.dts = time
                counted = time.plus(packet.duration)
            }
            if packet.pts != CAV_NOPTS_VALUE { return true }
        }
        return false
    }

    private func ticks(_ sample: Int64) -> Int64 { av_rescale_q(sample, samples, source.pointee.time_base) }
    private func sample(_ ticks: Int64) -> Int64 { av_rescale_q(ticks, source.pointee.time_base, samples) }

    /// A range's packets whose first samples lie in the span, moved onto the output's timeline.
    private func copy(_ span: SoundSeams.CopySpan, last: Bool) throws {
        let from = span.outputStart.plus(span.toSource), to = span.outputEnd.plus(span.toSource)
        var counted = try position(at: pending != nil && isMP3 ? span.reservoirFrom : SoundSeams.Entry(pts: span.firstSourcePts, position: span.firstPosition),
                                   sample: from)
        var mainData: [UInt8] = []
        var written = false
        while try nextPacket(&counted) {
            let start = sample(packet.pts)
            if start < from {
                // Frames before the span: the main data the first copied frame's reservoir may reach back into.
                if pending != nil, isMP3 { mainData += Self.mainData(packet.bytes) }
                continue
            }
            if start >= to { break }
            if let held = pending {
                try release(held, before: packet.bytes, mainData: mainData)
                pending = nil
            }
            let outputStart = start.minus(span.toSource)
            av_packet_shrink_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, 0)
            packet.pointer.pointee.pts = outputStart
            packet.pointer.pointee.dts = outputStart
            // The last frame ends the join where the edit list (or the LAME tag's padding) ends it.
            let end = outputStart.plus(seams.frame)
            let isLast = last && end >= span.outputEnd
            packet.pointer.pointee.duration = isLast && !isMP3 ? max(1, seams.endSamples.minus(outputStart)) : seams.frame
            if isMP3, !firstWritten || isLast {
                try packet.setSkipSamples(start: firstWritten ? 0 : seams.prerollSamples, end: isLast ? seams.paddingSamples : 0)
            }
            firstWritten = true
            try output.write(packet, stream: outputIndex, timeBase: samples)
            written = true
        }
        guard written else {
            throw MediaError(.decodeFailed, path: input.path, operation: "av_read_frame", reason: "range \(span.range + 1)'s audio packets could not be read back")
        }
    }

    /// Writes a window's last frame: as it is (AAC), or rewritten to end with the bytes the copied MP3 frame `next`
    /// reaches back for (`MP3Frame.repack`).
    private func release(_ held: Packet, before next: [UInt8], mainData: [UInt8]) throws {
        if isMP3 {
            let reach = next.withUnsafeBufferPointer { MP3Frame.reservoirOf($0) }
            guard reach <= mainData.count, let frame = MP3Frame.repack(held.bytes, reservoir: Array(mainData.suffix(reach))) else {
                throw MediaError(.decodeFailed, path: input.path, operation: "join",
                                 reason: "a seam's last MP3 frame cannot carry the \(reach) bytes of bit reservoir the frame after it needs")
            }
            try held.setBytes(frame)
        }
        try output.write(held, stream: outputIndex, timeBase: samples)
    }

    /// An MP3 frame's main data: every byte after its side information.
    static func mainData(_ bytes: [UInt8]) -> [UInt8] {
        guard let header = MP3Frame.header(bytes), bytes.count > header.mainDataStart else { return [] }
        return Array(bytes[header.mainDataStart...])
    }


    /// The window's samples as the output should hold them: the range before the seam, then the one after, crossfaded —
    /// encoded from enough frames before the window that the encoder's frames land on the output's grid.
    private func encode(_ window: SoundSeams.Window) throws {
        let seam = window.seam, frame = seams.frame
        let encoder = try Encoding(name: seams.encoder, decoder: decoder.codecContext, bitRate: seams.bitRate, frame: frame)
        // Packet k covers [feedStart + k·frame − padding, +frame): the first kept one starts the window.
        let padding = Int64(max(0, encoder.context.pointee.initial_padding))
        let frames = Self.leadInFrames.plus((padding + frame - 1) / frame)
        let feedStart = window.outputStart.minus(frames.times(frame)).plus(padding)
        let fade = seams.crossfadeSamples, join = seams.outputStarts[seam]
        let feedEnd = window.outputEnd.plus(2 * frame)
        let before = plan.ranges[seam - 1].start.minus(seams.outputStarts[seam - 1])
        let after = plan.ranges[seam].start.minus(join)
        let fadeStart = join.minus(fade / 2), fadeEnd = fadeStart.plus(fade)
        let first = try decode(from: feedStart.plus(before), count: fadeEnd.minus(feedStart), entry: window.beforeDecode)
        let second = try decode(from: fadeStart.plus(after), count: feedEnd.minus(fadeStart), entry: window.afterDecode)
        var mixed = [[Float]](repeating: [], count: first.count)
        for channel in 0..<first.count {
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
        try encode(mixed, with: encoder, feedStart: feedStart, keep: window.outputStart..<window.outputEnd)
    }

    /// `count` decoded samples of the source from source sample `from` (planar float), silence where it has none.
    private func decode(from: Int64, count: Int64, entry: SoundSeams.Entry?) throws -> [[Float]] {
        let channels = Int(decoder.codecContext.pointee.ch_layout.nb_channels)
        var planes = [[Float]](repeating: [Float](repeating: 0, count: Int(max(0, count))), count: channels)
        guard count > 0 else { return planes }
        decoder.flush()
        var counted = try position(at: entry, sample: from.minus(Int64(plan.sampleRate)))
        let frame = try Frame()
        let end = from.plus(count)
        var done = false
        while !done, try nextPacket(&counted) {
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

    /// An opened encoder for one window: AAC without noise substitution or intensity stereo (they trade the waveform for
    /// bits, and a window must match the copied frames it overlaps), libmp3lame without its bit reservoir.
    final class Encoding {
        private var owned: UnsafeMutablePointer<AVCodecContext>?
        var context: UnsafeMutablePointer<AVCodecContext> { owned.unsafelyUnwrapped }

        init(name: String, decoder: UnsafeMutablePointer<AVCodecContext>, bitRate: Int64, frame: Int64) throws {
            guard let codec = avcodec_find_encoder_by_name(name) else {
                throw AVFailure(code: CAV_AVERROR_ENCODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(name))")
            }
            owned = avcodec_alloc_context3(codec)
            guard let encoder = owned else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3") }
            var status = cav_audio_encoder_for(encoder, decoder, bitRate, 1)
            if status < 0 { throw AVFailure(code: status, operation: "audio encoder setup (\(name))") }
            var options: OpaquePointer?
            for (key, value) in [("aac_pns", "0"), ("aac_is", "0"), ("reservoir", "0")] { av_dict_set(&options, key, value, 0) }
            defer { av_dict_free(&options) }
            status = avcodec_open2(encoder, codec, &options)
            if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(name))") }
            guard encoder.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP, Int64(encoder.pointee.frame_size) == frame else {
                throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "\(name) frame")
            }
        }

        deinit { avcodec_free_context(&owned) }
    }

    /// Encodes `pcm` (output samples from `feedStart`) and writes the frames that decode to `keep`; the last is held
    /// (`pending`) until the copy after it.
    private func encode(_ pcm: [[Float]], with encoding: Encoding, feedStart: Int64, keep: Range<Int64>) throws {
        let encoder = encoding.context
        let frame = try Frame(), encoded = try Packet()
        let total = pcm.first?.count ?? 0
        var offset = 0
        var status: Int32 = 0
        func receive() throws {
            while true {
                encoded.unref()
                let status = avcodec_receive_packet(encoder, encoded.pointer)
                if status == CAV_AVERROR_EAGAIN || status == CAV_AVERROR_EOF { return }
                if status < 0 { throw AVFailure(code: status, operation: "avcodec_receive_packet") }
                let start = feedStart.plus(encoded.pts)
                guard keep.contains(start) else { continue }
                av_packet_shrink_side_data(encoded.pointer, AV_PKT_DATA_SKIP_SAMPLES, 0)
                encoded.pointer.pointee.pts = start
                encoded.pointer.pointee.dts = start
                encoded.pointer.pointee.duration = seams.frame
                if let held = pending { try output.write(held, stream: outputIndex, timeBase: samples) }
                pending = try encoded.clone()
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
