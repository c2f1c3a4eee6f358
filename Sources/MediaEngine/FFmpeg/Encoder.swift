import CAV
import Locking
import Glibc

/// Owns one opened video encoder.
final class Encoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    let name: String

    struct Settings {
        var width: Int32
        var height: Int32
        var pixelFormat: AVPixelFormat
        var timeBase: AVRational
        var frameRate: AVRational
        var sampleAspectRatio: AVRational
        var colorRange: AVColorRange
        var colorPrimaries: AVColorPrimaries
        var colorTransfer: AVColorTransferCharacteristic
        var colorSpace: AVColorSpace
        var chromaLocation: AVChromaLocation
        var globalHeader: Bool
        var threads: Int
        var options: [String: String]
        /// Still pictures: the quality in lambda units (mjpeg's quantiser scale, libwebp's 0–100), and
        /// whether it is a fixed quantiser (AV_CODEC_FLAG_QSCALE).
        var globalQuality: Int32? = nil
        var fixedQuality = false
    }

    init(name: String, settings: Settings) throws(AVFailure) {
        self.name = name
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw AVFailure(code: CAV_AVERROR_DECODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3")
        }
        self.context = context
        context.pointee.width = settings.width
        context.pointee.height = settings.height
        context.pointee.pix_fmt = settings.pixelFormat
        context.pointee.time_base = settings.timeBase
        context.pointee.framerate = settings.frameRate
        context.pointee.sample_aspect_ratio = settings.sampleAspectRatio
        context.pointee.color_range = settings.colorRange
        context.pointee.color_primaries = settings.colorPrimaries
        context.pointee.color_trc = settings.colorTransfer
        context.pointee.colorspace = settings.colorSpace
        context.pointee.chroma_sample_location = settings.chromaLocation
        context.pointee.thread_count = Int32(settings.threads)
        if settings.globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        if let quality = settings.globalQuality { context.pointee.global_quality = quality }
        if settings.fixedQuality { context.pointee.flags |= AV_CODEC_FLAG_QSCALE }
        var dictionary: OpaquePointer?
        for (key, value) in settings.options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        let status = Self.oneAtATime(name) { avcodec_open2(context, codec, &dictionary) }
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(name))") }
        StageTimes.count("encoders opened")
    }

    deinit {
        Self.oneAtATime(name) { avcodec_free_context(&context) }
    }

    /// SVT-AV1 1.4 reads /proc/cpuinfo when an encoder starts with state that is not per encoder: two smart edges
    /// opening encoders at once crashed in it (a 3-range smart cut into WebM, in CI). Its encoders open and close
    /// one at a time; other encoders do not wait.
    private static let svtAV1 = Locked(())

    private static func oneAtATime<Result>(_ name: String, _ body: () -> Result) -> Result {
        guard name == "libsvtav1" else { return body() }
        return svtAV1.withLock { _ in body() }
    }

    var codecContext: UnsafeMutablePointer<AVCodecContext> { context.unsafelyUnwrapped }

    /// Formats the encoder accepts (empty when it does not say).
    static func pixelFormats(_ name: String) -> [AVPixelFormat] {
        guard let codec = avcodec_find_encoder_by_name(name), var formats = codec.pointee.pix_fmts else { return [] }
        var result: [AVPixelFormat] = []
        while formats.pointee != AV_PIX_FMT_NONE {
            result.append(formats.pointee)
            formats += 1
        }
        return result
    }

    static func codecID(_ name: String) -> AVCodecID? {
        avcodec_find_encoder_by_name(name).map { $0.pointee.id }
    }

    func copyParameters(to stream: UnsafeMutablePointer<AVStream>) throws(AVFailure) {
        let status = avcodec_parameters_from_context(stream.pointee.codecpar, codecContext)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
        stream.pointee.time_base = codecContext.pointee.time_base
        stream.pointee.avg_frame_rate = codecContext.pointee.framerate
        stream.pointee.sample_aspect_ratio = codecContext.pointee.sample_aspect_ratio
    }

    func send(_ frame: Frame?) throws(AVFailure) {
        let status = avcodec_send_frame(codecContext, frame?.pointer)
        if status < 0, status != CAV_AVERROR_EOF { throw AVFailure(code: status, operation: "avcodec_send_frame") }
    }

    /// Next encoded packet, or nil when the encoder needs more frames or is drained.
    func receive(into packet: Packet) throws(AVFailure) -> Bool {
        packet.unref()
        let status = avcodec_receive_packet(codecContext, packet.pointer)
        if status >= 0 { return true }
        if status == CAV_AVERROR_EAGAIN || status == CAV_AVERROR_EOF { return false }
        throw AVFailure(code: status, operation: "avcodec_receive_packet")
    }
}

extension Encoder.Settings {
    /// Settings that match a source stream: size, sample aspect ratio, colour description, frame rate and
    /// time base (so frame times pass through unchanged). `swapsDimensions`: the picture is turned by 90°.
    init(source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, pixelFormat: AVPixelFormat, threads: Int,
         swapsDimensions: Bool = false, globalHeader: Bool = false, options: [String: String] = [:]) {
        var sar = av_guess_sample_aspect_ratio(nil, stream, nil)
        // A ratio players ignore (`sar_ignored`) is not passed on to the re-encoded picture.
        if !DisplaySize.isPlausibleSampleAspect(Int(sar.num), Int(sar.den)) { sar = AVRational(num: 1, den: 1) }
        if swapsDimensions { sar = AVRational(num: sar.den, den: sar.num) }
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        self.init(width: swapsDimensions ? source.height : source.width, height: swapsDimensions ? source.width : source.height,
                  pixelFormat: pixelFormat, timeBase: stream.pointee.time_base, frameRate: rate, sampleAspectRatio: sar,
                  colorRange: source.color_range, colorPrimaries: source.color_primaries, colorTransfer: source.color_trc,
                  colorSpace: source.color_space, chromaLocation: source.chroma_location, globalHeader: globalHeader,
                  threads: threads, options: options)
    }
}
