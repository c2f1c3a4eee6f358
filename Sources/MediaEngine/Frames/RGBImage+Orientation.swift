extension RGBImage {
    /// The picture as a player shows it: the coded picture moved by the orientation's axis-aligned map.
    public func oriented(_ orientation: Orientation) -> RGBImage {
        let (a, b, c, d) = orientation.transform
        if (a, b, c, d) == (1, 0, 0, 1) { return self }
        let swaps = a == 0
        let outWidth = swaps ? height : width, outHeight = swaps ? width : height
        // Translations that bring x' = a·x + c·y and y' = b·x + d·y into the picture.
        let tx = (a < 0 ? width - 1 : 0) + (c < 0 ? height - 1 : 0)
        let ty = (b < 0 ? width - 1 : 0) + (d < 0 ? height - 1 : 0)
        var result = RGBImage(width: outWidth, height: outHeight)
        let outStride = result.stride
        pixels.withUnsafeBufferPointer { source in
            result.pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let row = y * stride
                    for x in 0..<width {
                        let targetX = a * x + c * y + tx
                        let targetY = b * x + d * y + ty
                        let from = row + x * 3, to = targetY * outStride + targetX * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return result
    }
}
