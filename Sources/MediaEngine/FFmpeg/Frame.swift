import CAV
import Glibc

/// Owns one AVFrame.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(AVFailure) {
        guard let frame = av_frame_alloc() else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_frame_alloc")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    func unref() { av_frame_unref(pointer) }

    /// The decoder flagged the picture: corrupt, concealed errors or missing references.
    var isDamaged: Bool { pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || pointer.pointee.decode_error_flags != 0 }
}
