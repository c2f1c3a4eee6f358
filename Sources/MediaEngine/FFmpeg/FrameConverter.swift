import CAV
import Glibc

/// The one owner of swscale: converts frames (and RGB pictures) between sizes and pixel formats with a
/// context made once per change of source or target. Every context is checked: swscale refuses some sizes
/// and formats a damaged stream can give, which is an error here, never a NULL dereference.
final class FrameConverter {
    /// How colours are read and written: YCbCr matrices (SWS_CS_*) and ranges; nil keeps swscale's defaults.
    struct Colours: Equatable {
        var sourceMatrix: Int32
        var sourceFullRange: Bool
        var targetMatrix: Int32
        var targetFullRange: Bool
    }

    private struct Key: Equatable {
        var sourceWidth: Int32, sourceHeight: Int32, sourceFormat: Int32
        var targetWidth: Int32, targetHeight: Int32, targetFormat: Int32
        var colours: Colours?
    }

    private let flags: Int32
    private var context: OpaquePointer?
    private var key: Key?

    init(flags: Int32) { self.flags = flags }

    deinit { sws_freeContext(context) }

    private func context(for wanted: Key) throws(AVFailure) -> OpaquePointer {
        if wanted == key, let context { return context }
        sws_freeContext(context)
        context = nil
        key = nil
        guard let made = sws_getContext(wanted.sourceWidth, wanted.sourceHeight, AVPixelFormat(rawValue: wanted.sourceFormat),
                                        wanted.targetWidth, wanted.targetHeight, AVPixelFormat(rawValue: wanted.targetFormat),
                                        flags, nil, nil, nil) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getContext")
        }
        if let colours = wanted.colours {
            _ = sws_setColorspaceDetails(made, sws_getCoefficients(colours.sourceMatrix), colours.sourceFullRange ? 1 : 0,
                                         sws_getCoefficients(colours.targetMatrix), colours.targetFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        }
        context = made
        key = wanted
        return made
    }

    /// `frame` as a new frame of `width`×`height` in `format`, its properties (times, colour tags) copied.
    func convert(_ frame: Frame, width: Int32, height: Int32, format: AVPixelFormat, colours: Colours? = nil) throws(AVFailure) -> Frame {
        let source = frame.pointer.pointee
        let scaler = try context(for: Key(sourceWidth: source.width, sourceHeight: source.height, sourceFormat: source.format,
                                          targetWidth: width, targetHeight: height, targetFormat: format.rawValue, colours: colours))
        let converted = try Frame()
        converted.pointer.pointee.format = format.rawValue
        converted.pointer.pointee.width = width
        converted.pointer.pointee.height = height
        var status = av_frame_get_buffer(converted.pointer, 0)
        if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
        status = sws_scale_frame(scaler, converted.pointer, frame.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "sws_scale_frame") }
        status = av_frame_copy_props(converted.pointer, frame.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_frame_copy_props") }
        return converted
    }

    /// `frame` as packed RGB of `width`×`height` (full range), read with the frame's own matrix and range
    /// (swscale's default, BT.601 limited, tints HD video).
    func rgbImage(_ frame: Frame, width: Int, height: Int) throws(AVFailure) -> RGBImage {
        let source = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: source.format)
        let fullRange = source.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P].contains(format)
        guard let targetWidth = Int32(exactly: width), let targetHeight = Int32(exactly: height) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getContext")
        }
        let colours = Colours(sourceMatrix: Self.matrix(source.colorspace, height: Int(source.height)), sourceFullRange: fullRange,
                              targetMatrix: SWS_CS_DEFAULT, targetFullRange: true)
        let scaler = try context(for: Key(sourceWidth: source.width, sourceHeight: source.height, sourceFormat: source.format,
                                          targetWidth: targetWidth, targetHeight: targetHeight, targetFormat: AV_PIX_FMT_RGB24.rawValue,
                                          colours: colours))
        var image = RGBImage(width: width, height: height)
        let status = image.pixels.withUnsafeMutableBufferPointer { buffer in
            cav_sws_scale_frame(scaler, frame.pointer, buffer.baseAddress, Int32(width * 3))
        }
        if status < 0 { throw AVFailure(code: status, operation: "sws_scale") }
        return image
    }

    /// Packed RGB pixels as a new frame in `format`, same size.
    func frame(from image: RGBImage, format: AVPixelFormat, colours: Colours) throws(AVFailure) -> Frame {
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height),
              let stride = Int32(exactly: image.stride) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "sws_getContext")
        }
        let scaler = try context(for: Key(sourceWidth: width, sourceHeight: height, sourceFormat: AV_PIX_FMT_RGB24.rawValue,
                                          targetWidth: width, targetHeight: height, targetFormat: format.rawValue, colours: colours))
        let frame = try Frame()
        frame.pointer.pointee.width = width
        frame.pointer.pointee.height = height
        frame.pointer.pointee.format = format.rawValue
        var status = av_frame_get_buffer(frame.pointer, 0)
        if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
        // swscale's SIMD input readers may read up to 16 bytes past the last pixel: give them padding.
        var padded = image.pixels
        padded.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        status = padded.withUnsafeBufferPointer { pixels in
            cav_sws_scale_to_frame(scaler, pixels.baseAddress, stride, height, frame.pointer)
        }
        if status < 0 { throw AVFailure(code: status, operation: "sws_scale") }
        return frame
    }

    /// The matrix a player would use: the signalled one, or BT.709 for HD and BT.601 below when unsignalled.
    static func matrix(_ colorspace: AVColorSpace, height: Int) -> Int32 {
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
