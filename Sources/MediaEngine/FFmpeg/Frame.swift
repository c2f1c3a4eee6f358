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

    /// A new frame that references this one's picture buffers (refcounted, not copied) and copies its properties, to be
    /// handed to another thread: it shares no Swift object with this frame, and a decoded picture's buffers are only read
    /// after decoding (the decoder reuses a buffer once no frame references it), as FFmpeg's own frame threads hand
    /// pictures on.
    func reference() throws(AVFailure) -> sending Frame {
        let made = try Frame()
        let status = av_frame_ref(made.pointer, pointer)
        guard status >= 0 else { throw AVFailure(code: status, operation: "av_frame_ref") }
        nonisolated(unsafe) let handed = made
        return handed
    }

    /// The decoder flagged the picture: corrupt, concealed errors or missing references.
    var isDamaged: Bool { pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || pointer.pointee.decode_error_flags != 0 }
}
