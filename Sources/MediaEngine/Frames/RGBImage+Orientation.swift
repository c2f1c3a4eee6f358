import CAV

extension RGBImage {
    /// The picture as a player shows it: the coded picture moved by the orientation's axis-aligned map.
    public func oriented(_ orientation: Orientation) -> RGBImage {
        let (a, b, c, d) = orientation.transform
        if (a, b, c, d) == (1, 0, 0, 1) { return self }
        let swaps = a == 0
        let outWidth = swaps ? height : width, outHeight = swaps ? width : height
        var result = RGBImage(width: outWidth, height: outHeight)
        let outStride = result.stride
        // The one rotate/flip routine, shared with the frames an exact cut turns upright.
        pixels.withUnsafeBufferPointer { source in
            result.pixels.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                cav_transform_plane(from, Int32(stride), to, Int32(outStride), Int32(width), Int32(height), 3,
                                    Int32(a), Int32(b), Int32(c), Int32(d))
            }
        }
        return result
    }
}
