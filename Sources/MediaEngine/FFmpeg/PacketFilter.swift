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

    /// The configuration the filter has made for its output (empty until a packet has been through it).
    var outputExtradata: [UInt8] {
        guard let parameters = context?.pointee.par_out, let bytes = parameters.pointee.extradata,
              parameters.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.pointee.extradata_size)))
    }

    /// Filters `packet` in place; false when the filter has no packet to give for it (EAGAIN: nothing to write).
    func filter(_ packet: Packet) throws(AVFailure) -> Bool {
        guard let context else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_bsf_send_packet") }
        var status = av_bsf_send_packet(context, packet.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_bsf_send_packet") }
        status = av_bsf_receive_packet(context, packet.pointer)
        if status == CAV_AVERROR_EAGAIN { return false }
        if status < 0 { throw AVFailure(code: status, operation: "av_bsf_receive_packet") }
        return true
    }
}
