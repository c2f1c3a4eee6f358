import CAV

/// Text subtitles turned into the codec the output holds (SubRip/ASS/WebVTT → mov_text for MP4/MOV, → WebVTT
/// for WebM), cue by cue, through libavcodec's subtitle decoder and encoder (the ASS form between them keeps
/// the text and its styling where both codecs have it).
final class SubtitleConverter {
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    /// The encoded cue is at most this large (a cue is text: a few hundred bytes).
    private static let maximumCueBytes = 1 << 20
    /// Where each cue is encoded: one buffer for the converter, not one per cue.
    private var buffer = [UInt8](repeating: 0, count: 0)

    /// Opens both sides; the encoder takes the decoder's ASS header and the stream's time base.
    init(stream: UnsafeMutablePointer<AVStream>, to codecName: String) throws(AVFailure) {
        guard let parameters = stream.pointee.codecpar, let decoding = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AVFailure(code: CAV_AVERROR_DECODER_NOT_FOUND, operation: "avcodec_find_decoder")
        }
        guard let encoding = avcodec_find_encoder_by_name(codecName) else {
            throw AVFailure(code: CAV_AVERROR_ENCODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(codecName))")
        }
        // Held by the object as soon as each is made (every property has a value, so deinit frees them if a
        // later step throws).
        self.decoder = avcodec_alloc_context3(decoding)
        self.encoder = avcodec_alloc_context3(encoding)
        guard let decoder = self.decoder, let encoder = self.encoder else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3")
        }
        var status = avcodec_parameters_to_context(decoder, parameters)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_to_context") }
        decoder.pointee.pkt_timebase = stream.pointee.time_base
        status = avcodec_open2(decoder, decoding, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2 (subtitle decoder)") }
        encoder.pointee.time_base = stream.pointee.time_base
        if let header = decoder.pointee.subtitle_header, decoder.pointee.subtitle_header_size > 0 {
            let size = Int(decoder.pointee.subtitle_header_size)
            guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else {
                throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_mallocz")
            }
            copy.update(from: header, count: size)
            encoder.pointee.subtitle_header = copy
            encoder.pointee.subtitle_header_size = Int32(size)
        }
        status = avcodec_open2(encoder, encoding, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2 (subtitle encoder)") }
    }

    deinit {
        avcodec_free_context(&decoder)
        avcodec_free_context(&encoder)
    }

    /// The output stream's parameters: the encoder's.
    func describe(_ stream: UnsafeMutablePointer<AVStream>) throws(AVFailure) {
        let status = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
    }

    /// The cue in the output's codec, or nil when the decoder finds no text in it (a "clear" sample).
    func convert(_ packet: Packet) throws(AVFailure) -> [UInt8]? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let status = avcodec_decode_subtitle2(decoder, &subtitle, &got, packet.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_decode_subtitle2") }
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0 else { return nil }
        // The encoder's timing is the packet's: the cue as one event from 0.
        subtitle.start_display_time = 0
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: Self.maximumCueBytes) }
        let written = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(encoder, $0.baseAddress, Int32($0.count), &subtitle) }
        if written < 0 { throw AVFailure(code: written, operation: "avcodec_encode_subtitle") }
        return Array(buffer.prefix(Int(written)))
    }
}
