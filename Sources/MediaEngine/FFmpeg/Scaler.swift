import CAV
import Glibc

/// Converts decoded frames to RGB24 of a given size with swscale, using the frame's own colour matrix
/// and range (swscale defaults to BT.601 limited, which tints HD video). Re-creates its context only
/// when the source or target changes.
final class Scaler {
    private var context: OpaquePointer?
    private var key: Key?

    private struct Key: Equatable {
        var sourceWidth: Int32, sourceHeight: Int32, sourceFormat: Int32
        var colorspace: UInt32, fullRange: Bool
        var targetWidth: Int, targetHeight: Int
    }

    deinit {
        sws_freeContext(context)
    }

    func scale(_ frame: Frame, width: Int, height: Int) throws(AVFailure) -> RGBImage {
        let source = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: source.format)
        let fullRange = source.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P].contains(format)
        let wanted = Key(sourceWidth: source.width, sourceHeight: source.height, sourceFormat: source.format,
                         colorspace: source.colorspace.rawValue, fullRange: fullRange,
                         targetWidth: width, targetHeight: height)
        if wanted != key {
            sws_freeContext(context)
            context = nil
            key = nil
            guard let created = sws_getContext(source.width, source.height, format, Int32(width), Int32(height),
                                               AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
                throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getContext")
            }
            let coefficients = sws_getCoefficients(Self.swsColorspace(source.colorspace, height: Int(source.height)))
            let rgbCoefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            // Source range as signalled; RGB output is always full range.
            _ = sws_setColorspaceDetails(created, coefficients, fullRange ? 1 : 0, rgbCoefficients, 1, 0, 1 << 16, 1 << 16)
            context = created
            key = wanted
        }
        var image = RGBImage(width: width, height: height)
        let status = image.pixels.withUnsafeMutableBufferPointer { buffer in
            cav_sws_scale_frame(context, frame.pointer, buffer.baseAddress, Int32(width * 3))
        }
        if status < 0 { throw AVFailure(code: status, operation: "sws_scale") }
        return image
    }

    /// The matrix a player would use: the signalled one, or BT.709 for HD and BT.601 below when unsignalled.
    static func swsColorspace(_ colorspace: AVColorSpace, height: Int) -> Int32 {
        switch colorspace {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        default: return height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
    }
}
