import CAV
import Foundation

/// The picture formats vtrim writes, chosen by the output's extension.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg
    case webp

    /// `.png`, `.jpg`/`.jpeg`, `.webp` (any case); nil for anything else.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }

    public init?(path: String) {
        self.init(pathExtension: (path as NSString).pathExtension)
    }

    public static let supportedExtensions = ".png, .jpg, .jpeg, .webp"

    /// The extension vtrim gives files it names itself.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Longest side a file of this format can have: libwebp stops at 16,383 px; PNG and JPEG go further
    /// than vtrim's own limit.
    public var maximumSidePixels: Int { self == .webp ? 16_383 : 32_767 }

    /// `--quality` when not given: JPEG 95 (4:4:4, ffmpeg's `-q:v 3.5`), WebP 90. Thumbnail cells are small
    /// and busy: these keep them within about 35 dB of the PNG (measured in the tests and the README).
    public var defaultQuality: Int { self == .webp ? 90 : 95 }
}

/// Writes pictures as PNG (libpng, with text chunks) or as JPEG/WebP through libavcodec's own image
/// encoders (mjpeg, libwebp): one frame in, one packet out, and the packet is the whole file.
public enum ImageFile {
    public static func write(_ image: RGBImage, to path: String, format: ImageFormat, quality: Int? = nil,
                             text: [(key: String, value: String)] = []) throws(MediaError) {
        switch format {
        case .png:
            try PNGFile.write(image, to: path, text: text)
        case .jpeg, .webp:
            let bytes: [UInt8]
            do {
                bytes = try encode(image, format: format, quality: quality ?? format.defaultQuality)
            } catch {
                throw MediaError(.writeFailed, path: path, operation: error.operation,
                                 reason: "cannot encode \(format == .jpeg ? "JPEG" : "WebP") (\(error.text))")
            }
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw MediaError(.writeFailed, path: path, operation: "write", reason: "cannot write \(path) (\(String(cString: strerror(errno))))")
            }
        }
    }

    /// The encoded file's bytes.
    static func encode(_ image: RGBImage, format: ImageFormat, quality: Int) throws(AVFailure) -> [UInt8] {
        // JPEG is full-range BT.601 YCbCr by definition (JFIF), and 4:4:4 here: subsampled chroma smears the
        // sharp colour edges of small cells. Lossy WebP is always 4:2:0, limited-range BT.601 (swscale's
        // default for yuv420p); quality 100 writes lossless WebP from RGB instead.
        let lossless = format == .webp && quality >= 100
        let (name, pixelFormat) = format == .jpeg ? ("mjpeg", AV_PIX_FMT_YUVJ444P)
            : ("libwebp", lossless ? AV_PIX_FMT_BGRA : AV_PIX_FMT_YUV420P)
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw AVFailure(code: CAV_AVERROR_DECODER_NOT_FOUND, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        var context = avcodec_alloc_context3(codec)
        guard let encoder = context else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_alloc_context3") }
        defer { avcodec_free_context(&context) }
        let clamped = min(max(quality, 1), 100)
        encoder.pointee.width = Int32(image.width)
        encoder.pointee.height = Int32(image.height)
        encoder.pointee.pix_fmt = pixelFormat
        encoder.pointee.time_base = AVRational(num: 1, den: 1)
        encoder.pointee.color_range = format == .jpeg ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        encoder.pointee.colorspace = AVCOL_SPC_BT470BG
        let lambda: Int32
        if format == .jpeg {
            // mjpeg takes a quantiser scale, 2 (best) … 31: quality 100 → 2, 1 → 31.
            let scale = 2 + Double(100 - clamped) * 29 / 99
            lambda = Int32((scale * Double(FF_QP2LAMBDA)).rounded())
            encoder.pointee.flags |= AV_CODEC_FLAG_QSCALE
        } else {
            // libwebp reads its 0–100 quality from global_quality / FF_QP2LAMBDA.
            lambda = Int32(clamped) * Int32(FF_QP2LAMBDA)
        }
        encoder.pointee.global_quality = lambda
        var options: OpaquePointer?
        if lossless { av_dict_set(&options, "lossless", "1", 0) }
        defer { av_dict_free(&options) }
        var status = avcodec_open2(encoder, codec, &options)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_open2(\(name))") }

        let frame = try Frame()
        frame.pointer.pointee.width = Int32(image.width)
        frame.pointer.pointee.height = Int32(image.height)
        frame.pointer.pointee.format = pixelFormat.rawValue
        frame.pointer.pointee.color_range = encoder.pointee.color_range
        frame.pointer.pointee.quality = lambda
        frame.pointer.pointee.pts = 0
        status = av_frame_get_buffer(frame.pointer, 0)
        if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
        guard let scaler = sws_getContext(Int32(image.width), Int32(image.height), AV_PIX_FMT_RGB24,
                                          Int32(image.width), Int32(image.height), pixelFormat,
                                          SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nil, nil, nil) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getContext")
        }
        defer { sws_freeContext(scaler) }
        let coefficients = sws_getCoefficients(SWS_CS_ITU601)
        _ = sws_setColorspaceDetails(scaler, coefficients, 1, coefficients, format == .jpeg ? 1 : 0, 0, 1 << 16, 1 << 16)
        // swscale's SIMD input readers may read up to 16 bytes past the last pixel: give them padding.
        var padded = image.pixels
        padded.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        status = padded.withUnsafeBufferPointer { pixels in
            cav_sws_scale_to_frame(scaler, pixels.baseAddress, Int32(image.stride), Int32(image.height), frame.pointer)
        }
        if status < 0 { throw AVFailure(code: status, operation: "sws_scale") }

        let packet = try Packet()
        status = avcodec_send_frame(encoder, frame.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_send_frame(\(name))") }
        _ = avcodec_send_frame(encoder, nil)
        var bytes: [UInt8] = []
        while true {
            status = avcodec_receive_packet(encoder, packet.pointer)
            if status == CAV_AVERROR_EOF || status == CAV_AVERROR_EAGAIN { break }
            if status < 0 { throw AVFailure(code: status, operation: "avcodec_receive_packet(\(name))") }
            if let data = packet.pointer.pointee.data {
                bytes += UnsafeBufferPointer(start: data, count: Int(packet.pointer.pointee.size))
            }
            packet.unref()
        }
        guard !bytes.isEmpty else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "avcodec_receive_packet(\(name))") }
        return bytes
    }
}
