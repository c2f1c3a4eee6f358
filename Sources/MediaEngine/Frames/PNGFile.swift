import CAV
import DiskNames
import Glibc

/// PNG files through libpng (the setjmp error handling lives in CAV).
public enum PNGFile {
    /// Stops a PNG being written at its next row (an interrupt: the file is then abandoned, its writer throws).
    public static func stopWriting() { cav_request_stop() }

    /// Writes `image` to `path` with tEXt/iTXt chunks. Fails with `write_failed` (the caller removes
    /// the partial file).
    public static func write(_ image: RGBImage, to path: String, text: [(key: String, value: String)] = [],
                             compressionLevel: Int = 6) throws(MediaError) {
        var message = [CChar](repeating: 0, count: 256)
        let keys = text.map { strdup($0.key) }
        let values = text.map { strdup($0.value) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let status: Int32 = image.pixels.withUnsafeBufferPointer { pixels in
            keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keyPointers in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                    message.withUnsafeMutableBufferPointer { errorBuffer in
                        DiskName.withCString(path) {
                            cav_png_write_rgb24($0, Int32(image.width), Int32(image.height), pixels.baseAddress,
                                                Int32(image.stride), keyPointers.baseAddress, valuePointers.baseAddress,
                                                Int32(text.count), Int32(compressionLevel),
                                                errorBuffer.baseAddress, errorBuffer.count)
                        }
                    }
                }
            }
        }
        if status != 0 {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw MediaError(.writeFailed, path: path, operation: "png write", reason: "cannot write PNG (\(reason))")
        }
    }

    public static func read(_ path: String) throws(MediaError) -> RGBImage {
        var message = [CChar](repeating: 0, count: 256)
        var data: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        let status = message.withUnsafeMutableBufferPointer { buffer in
            DiskName.withCString(path) { cav_png_read_rgb24($0, &data, &width, &height, buffer.baseAddress, buffer.count) }
        }
        guard status == 0, let data else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw MediaError(.notMedia, path: path, operation: "png read", reason: "cannot read PNG (\(reason))")
        }
        defer { cav_free(data) }
        let count = Int(width) * Int(height) * 3
        return RGBImage(width: Int(width), height: Int(height), stride: Int(width) * 3,
                        pixels: Array(UnsafeBufferPointer(start: data, count: count)))
    }
}
