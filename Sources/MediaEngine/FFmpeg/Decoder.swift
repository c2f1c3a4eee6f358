import CAV

/// Owns one opened decoder (AVCodecContext) for one stream, driven as avcodec.h describes:
/// EAGAIN ("needs input") and EOF ("drained") are states, not errors.
final class Decoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// Damaged data met so far (`feed`, `nextFrame`): packets refused, frames that failed or came out damaged.
    private(set) var errors = 0

    enum SendResult {
        case accepted
        /// The decoder has frames to give first; receive, then send the same packet again.
        case full
        case drained
    }

    enum ReceiveResult {
        case frame
        case needsInput
        case drained
    }

    /// `threads`: 0 lets FFmpeg choose; frame and slice threading are both allowed. `beginning`: what the
    /// stream's first access unit says, for decoders that start later (`StreamBeginning`).
    convenience init(stream: UnsafeMutablePointer<AVStream>, threads: Int, beginning: StreamBeginning = .unknown) throws(AVFailure) {
        guard let parameters = stream.pointee.codecpar else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar")
        }
        try self.init(parameters: parameters, timeBase: stream.pointee.time_base, threads: threads, beginning: beginning)
    }

    /// A decoder for packets described by `parameters` (an encoder's, read back), in `timeBase` ticks.
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, threads: Int,
         beginning: StreamBeginning = .unknown) throws(AVFailure) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AVFailure(code: CAV_AVERROR_DECODER_NOT_FOUND, operation: "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3")
        }
        self.context = context
        var status = avcodec_parameters_to_context(context, parameters)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_to_context") }
        context.pointee.pkt_timebase = timeBase
        context.pointee.max_pixels = Int64(Limits.maximumPixels)
        context.pointee.thread_count = Int32(max(0, threads))
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        var options: OpaquePointer?
        for (key, value) in beginning.decoderOptions { av_dict_set(&options, key, value, 0) }
        defer { av_dict_free(&options) }
        status = avcodec_open2(context, codec, &options)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2") }
    }

    deinit {
        avcodec_free_context(&context)
    }

    var codecContext: UnsafeMutablePointer<AVCodecContext> { context.unsafelyUnwrapped }

    /// Sends a packet, or nil to start draining.
    func send(_ packet: Packet?) throws(AVFailure) -> SendResult {
        let status = avcodec_send_packet(codecContext, packet?.pointer)
        if status >= 0 { return .accepted }
        if status == CAV_AVERROR_EAGAIN { return .full }
        if status == CAV_AVERROR_EOF { return .drained }
        throw AVFailure(code: status, operation: "avcodec_send_packet")
    }

    func receive(into frame: Frame) throws(AVFailure) -> ReceiveResult {
        frame.unref()
        let status = avcodec_receive_frame(codecContext, frame.pointer)
        if status >= 0 { return .frame }
        if status == CAV_AVERROR_EAGAIN { return .needsInput }
        if status == CAV_AVERROR_EOF { return .drained }
        throw AVFailure(code: status, operation: "avcodec_receive_frame")
    }

    /// Whether the decoder may skip frames nothing references (read per packet, also by frame threads).
    /// Used for frames that end before the wanted time: they can never be the picture shown.
    func skipNonReferenceFrames(_ skip: Bool) {
        let wanted = skip ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        if codecContext.pointee.skip_frame != wanted { codecContext.pointee.skip_frame = wanted }
    }

    /// Forgets buffered frames (after a seek, or to reuse the decoder after draining).
    func flush() {
        avcodec_flush_buffers(codecContext)
    }
}

/// The one send/receive loop every decoder in vtrim goes through. A packet the decoder refuses and a
/// frame it fails to produce are damaged data: counted in the decoder's own `errors` and skipped, as
/// players do. The count lives in the decoder (not an `inout` of the caller's) so a frame handler may
/// count what it drops itself without two accesses to one variable overlapping.
extension Decoder {
    /// Sends `packet` (nil: start draining); a refusal is counted and the packet dropped.
    func feed(_ packet: Packet?) -> SendResult {
        do {
            return try send(packet)
        } catch {
            errors += 1
            return .accepted
        }
    }

    /// The next frame, skipping frames that fail (counted). A decoder that keeps failing is treated as
    /// needing input, so a damaged stream can never spin this loop.
    func nextFrame(into frame: Frame) -> ReceiveResult {
        for _ in 0..<64 {
            do {
                return try receive(into: frame)
            } catch {
                errors += 1
            }
        }
        return .needsInput
    }

    /// Push decoding: sends `packet` (nil: drain) and hands every frame the decoder then has to `handle`,
    /// in presentation order.
    func decode(_ packet: Packet?, into frame: Frame, _ handle: (Frame) throws -> Void) throws {
        while true {
            let sent = feed(packet)
            try receiveAll(into: frame, handle)
            if sent != .full { return }
        }
    }

    /// A frame the decoder flags as damaged (concealed errors, missing references) is handed on but
    /// counted: what is kept from it is never kept silently.
    private func receiveAll(into frame: Frame, _ handle: (Frame) throws -> Void) throws {
        while nextFrame(into: frame) == .frame {
            if frame.isDamaged { errors += 1 }
            try handle(frame)
        }
    }
}
