import CAV
import DiskNames
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
            let bytes = try encoded(image, format: format, quality: quality, path: path)
            guard DiskFile.write(bytes, to: path) else {
                throw MediaError(.writeFailed, path: path, operation: "write", reason: "cannot write \(path) (\(String(cString: strerror(errno))))")
            }
        }
    }

    /// A JPEG or WebP file's bytes, in memory (storyboards pack them into their own files); `path` names the
    /// output in an error.
    public static func encoded(_ image: RGBImage, format: ImageFormat, quality: Int?, path: String) throws(MediaError) -> [UInt8] {
        do {
            return try encode(image, format: format, quality: quality ?? format.defaultQuality)
        } catch {
            let failure = error as? AVFailure
            throw MediaError(.writeFailed, path: path, operation: failure?.operation ?? "encode",
                             reason: "cannot encode \(format == .jpeg ? "JPEG" : "WebP") (\(failure?.text ?? "\(error)"))")
        }
    }

    /// The encoded file's bytes.
    static func encode(_ image: RGBImage, format: ImageFormat, quality: Int) throws -> [UInt8] {
        // JPEG is full-range BT.601 YCbCr by definition (JFIF), and 4:4:4 here: subsampled chroma smears the
        // sharp colour edges of small cells. Lossy WebP is always 4:2:0, limited-range BT.601 (swscale's
        // default for yuv420p); quality 100 writes lossless WebP from RGB instead.
        let lossless = format == .webp && quality >= 100
        let (name, pixelFormat) = format == .jpeg ? ("mjpeg", AV_PIX_FMT_YUVJ444P)
            : ("libwebp", lossless ? AV_PIX_FMT_BGRA : AV_PIX_FMT_YUV420P)
        let clamped = min(max(quality, 1), 100)
        let lambda: Int32
        if format == .jpeg {
            // mjpeg takes a quantiser scale, 2 (best) … 31: quality 100 → 2, 1 → 31.
            let scale = 2 + Double(100 - clamped) * 29 / 99
            lambda = Int32((scale * Double(FF_QP2LAMBDA)).rounded())
        } else {
            // libwebp reads its 0–100 quality from global_quality / FF_QP2LAMBDA.
            lambda = Int32(clamped) * Int32(FF_QP2LAMBDA)
        }
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "picture size")
        }
        let settings = Encoder.Settings(width: width, height: height, pixelFormat: pixelFormat, timeBase: AVRational(num: 1, den: 1),
                                        frameRate: AVRational(num: 1, den: 1), sampleAspectRatio: AVRational(num: 1, den: 1),
                                        colorRange: format == .jpeg ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG,
                                        colorPrimaries: AVCOL_PRI_UNSPECIFIED, colorTransfer: AVCOL_TRC_UNSPECIFIED,
                                        colorSpace: AVCOL_SPC_BT470BG, chromaLocation: AVCHROMA_LOC_UNSPECIFIED, globalHeader: false,
                                        threads: 1, options: lossless ? ["lossless": "1"] : [:],
                                        globalQuality: lambda, fixedQuality: format == .jpeg)
        let made = try Encoder(name: name, settings: settings)
        let colours = FrameConverter.Colours(sourceMatrix: SWS_CS_ITU601, sourceFullRange: true, targetMatrix: SWS_CS_ITU601,
                                             targetFullRange: format == .jpeg)
        let frame = try FrameConverter(flags: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP)
            .frame(from: image, format: pixelFormat, colours: colours)
        frame.pointer.pointee.color_range = settings.colorRange
        frame.pointer.pointee.quality = lambda
        var bytes: [UInt8] = []
        let encoder = try FrameEncoder(encoder: made, keepsDurations: false) { packet in bytes += packet.bytes }
        try encoder.encode(frame, outputPts: 0)
        try encoder.finish()
        guard !bytes.isEmpty else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "avcodec_receive_packet(\(name))") }
        return bytes
    }
}
