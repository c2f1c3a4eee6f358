import CAV

/// The one loop that empties an audio FIFO through an opened encoder into an output stream, for a join's
/// sample-exact audio (AudioReencoder) and a preview's sound (PreviewSound). The encoder and the FIFO stay their
/// owner's; this holds the frame and the packet the loop reuses.
final class AudioFrameWriter {
    private let encoded: Frame
    private let packet: Packet
    private let output: OutputFile
    private let outputIndex: Int

    init(output: OutputFile, outputIndex: Int) throws {
        encoded = try Frame()
        packet = try Packet()
        self.output = output
        self.outputIndex = outputIndex
    }

    /// Sends what `fifo` holds to `encoder` in frames of `frameSize` samples (`all`: the rest too, as a shorter last
    /// frame), the first at `pts` (in samples, the encoder's time base), and writes each packet made; the next pts.
    func encode(_ fifo: OpaquePointer?, _ encoder: UnsafeMutablePointer<AVCodecContext>, frameSize: Int32, all: Bool, from pts: Int64) throws -> Int64 {
        var next = pts
        while true {
            let available = av_audio_fifo_size(fifo)
            guard available >= frameSize || (all && available > 0) else { return next }
            let count = min(available, frameSize)
            try check(cav_audio_fifo_read_frame(fifo, encoder, encoded.pointer, count), "av_audio_fifo_read")
            encoded.pointer.pointee.pts = next
            next = next.plus(Int64(count))
            try check(avcodec_send_frame(encoder, encoded.pointer), "avcodec_send_frame")
            try writeEncoded(encoder)
        }
    }

    /// The encoder's own delay, once nothing more will be sent.
    func drain(_ encoder: UnsafeMutablePointer<AVCodecContext>) throws {
        try check(avcodec_send_frame(encoder, nil), "avcodec_send_frame")
        try writeEncoded(encoder)
    }

    private func writeEncoded(_ encoder: UnsafeMutablePointer<AVCodecContext>) throws {
        while true {
            packet.unref()
            let status = avcodec_receive_packet(encoder, packet.pointer)
            if status == CAV_AVERROR_EAGAIN || status == CAV_AVERROR_EOF { return }
            try check(status, "avcodec_receive_packet")
            try output.write(packet, stream: outputIndex, timeBase: encoder.pointee.time_base)
        }
    }

    private func check(_ status: Int32, _ operation: String) throws(AVFailure) {
        if status < 0 { throw AVFailure(code: status, operation: operation) }
    }
}
