import CAV

/// HDR (PQ, HLG) frames to SDR BT.709 as a player's SDR rendering shows them, with libavfilter's standard
/// recipe: zscale to linear light (100 nits nominal peak), BT.709 primaries, Hable's tone curve without
/// desaturation, back to the BT.709 transfer. The picture is resized to the target first, so the curve
/// runs on cell-sized frames only. One graph per worker (FFmpeg objects stay on their thread); it is
/// rebuilt when the source format or the target size changes.
final class ToneMapper {
    private var chain: FilterChain?
    private var key: Key?
    private let output: Frame

    private struct Key: Equatable {
        var width: Int32, height: Int32, format: Int32, targetWidth: Int, targetHeight: Int
    }

    init() throws(AVFailure) {
        output = try Frame()
    }

    /// Whether a frame needs tone mapping: its transfer is PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    static func isHDR(_ frame: Frame) -> Bool {
        let transfer = frame.pointer.pointee.color_trc
        return transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67
    }

    /// The frame tone-mapped to 8-bit full-range RGB planes (gbrp) of `width`×`height` (coded orientation).
    /// The returned frame is reused by the next call.
    func map(_ frame: Frame, width: Int, height: Int) throws(AVFailure) -> Frame {
        let input = frame.pointer.pointee
        let wanted = Key(width: input.width, height: input.height, format: input.format, targetWidth: width, targetHeight: height)
        if wanted != key || chain == nil {
            chain = nil
            key = nil
            chain = try FilterChain(
                sourceName: "buffer",
                sourceArguments: "video_size=\(wanted.width)x\(wanted.height):pix_fmt=\(wanted.format):time_base=1/1:pixel_aspect=1/1",
                chain: "zscale=w=\(width):h=\(height):filter=bicubic:t=linear:npl=100,format=gbrpf32le,"
                    + "zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=pc,format=gbrp")
            key = wanted
        }
        output.unref()
        var mapped = false
        do {
            // The chain reuses its frame: this one keeps a reference of its own.
            try chain?.filter(frame) { filtered throws(AVFailure) in
                output.unref()
                let status = av_frame_ref(output.pointer, filtered.pointer)
                if status < 0 { throw AVFailure(code: status, operation: "av_frame_ref") }
                mapped = true
            }
        } catch {
            key = nil
            throw error
        }
        guard mapped else {
            key = nil
            throw AVFailure(code: CAV_AVERROR_EAGAIN, operation: "av_buffersink_get_frame (tone mapping)")
        }
        return output
    }
}
