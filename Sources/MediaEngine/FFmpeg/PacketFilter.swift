import CAV

/// One of libavcodec's bitstream filters over one stream's packets — aac_adtstoasc for AAC in ADTS (MPEG-TS,
/// `.aac`): the ADTS headers taken off, the AudioSpecificConfig an MP4 needs made from the first one.
final class PacketFilter {
    private var context: UnsafeMutablePointer<AVBSFContext>?

    init(name: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws(AVFailure) {
        guard let filter = av_bsf_get_by_name(name) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_bsf_get_by_name(\(name))") }
        var made: UnsafeMutablePointer<AVBSFContext>?
        var status = av_bsf_alloc(filter, &made)
        guard status >= 0, let made else { throw AVFailure(code: status < 0 ? status : CAV_AVERROR_ENOMEM, operation: "av_bsf_alloc") }
        context = made
        status = avcodec_parameters_copy(made.pointee.par_in, parameters)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_copy") }
        made.pointee.time_base_in = timeBase
        status = av_bsf_init(made)
        if status < 0 { throw AVFailure(code: status, operation: "av_bsf_init(\(name))") }
    }

    deinit { av_bsf_free(&context) }

    enum Outcome {
        /// `packet` holds the filtered packet.
        case packet
        /// The filter gives nothing for this packet (EAGAIN).
        case none
        /// The packet is not what the filter reads (INVALIDDATA: a damaged header); it is dropped.
        case damaged
        case failed(AVFailure)
    }

    /// Filters `packet` in place. For filters that give one packet for each they take (aac_adtstoasc): nothing is
    /// held back, so there is nothing to flush at the end.
    func filter(_ packet: Packet) -> Outcome {
        guard let context else { return .failed(AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_bsf_send_packet")) }
        var status = av_bsf_send_packet(context, packet.pointer)
        if status >= 0 { status = av_bsf_receive_packet(context, packet.pointer) }
        if status >= 0 { return .packet }
        if status == CAV_AVERROR_EAGAIN { return .none }
        if status == CAV_AVERROR_INVALIDDATA || status == CAV_AVERROR_PATCHWELCOME { return .damaged }
        return .failed(AVFailure(code: status, operation: "av_bsf_send_packet"))
    }
}
