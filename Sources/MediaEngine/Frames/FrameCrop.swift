import CAV

extension Frame {
    /// A new reference to the frame's centre, cut to `aspect` (width / height of the shown picture, in the
    /// frame's own orientation) given the pixels' `sampleAspectRatio`: what a cell that fills and crops
    /// shows. Cropping moves data pointers (libavutil's `av_frame_apply_cropping`), nothing is copied.
    func croppedToAspect(_ aspect: Double, sampleAspectRatio: Double) throws(AVFailure) -> Frame {
        let width = Int(pointer.pointee.width), height = Int(pointer.pointee.height)
        guard width > 0, height > 0, aspect.isFinite, aspect > 0, sampleAspectRatio.isFinite, sampleAspectRatio > 0 else { return self }
        let crop = FrameCropRect.centre(width: width, height: height, aspect: aspect, sampleAspectRatio: sampleAspectRatio)
        guard crop.left + crop.right + crop.top + crop.bottom > 0 else { return self }
        let result = try Frame()
        let status = av_frame_ref(result.pointer, pointer)
        guard status >= 0 else { throw AVFailure(code: status, operation: "av_frame_ref") }
        result.pointer.pointee.crop_left = crop.left
        result.pointer.pointee.crop_right = crop.right
        result.pointer.pointee.crop_top = crop.top
        result.pointer.pointee.crop_bottom = crop.bottom
        let cropped = av_frame_apply_cropping(result.pointer, Int32(AV_FRAME_CROP_UNALIGNED))
        guard cropped >= 0 else { throw AVFailure(code: cropped, operation: "av_frame_apply_cropping") }
        return result
    }
}

/// The pixels to cut from each side of a `width`×`height` picture so that what stays, shown with its
/// sample aspect ratio, has `aspect`. Pure; at least one pixel stays on each side.
struct FrameCropRect: Equatable {
    var left: Int, right: Int, top: Int, bottom: Int

    static func centre(width: Int, height: Int, aspect: Double, sampleAspectRatio: Double) -> FrameCropRect {
        let shown = Double(width) * sampleAspectRatio / Double(height)
        if shown > aspect {
            // Too wide: keep the full height, cut the sides.
            let keep = boundedPixels(Double(height) * aspect / sampleAspectRatio, limit: width)
            let cut = width - keep
            return FrameCropRect(left: cut / 2, right: cut - cut / 2, top: 0, bottom: 0)
        }
        let keep = boundedPixels(Double(width) * sampleAspectRatio / aspect, limit: height)
        let cut = height - keep
        return FrameCropRect(left: 0, right: 0, top: cut / 2, bottom: cut - cut / 2)
    }

    /// `value` rounded into 1…limit (NaN and infinities included).
    private static func boundedPixels(_ value: Double, limit: Int) -> Int {
        guard value.isFinite else { return limit }
        let rounded = value.rounded()
        if rounded < 1 { return 1 }
        if rounded >= Double(limit) { return limit }
        return Int(rounded)
    }
}
