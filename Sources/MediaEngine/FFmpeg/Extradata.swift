import CAV

/// A stream's codec extradata (an avcC/hvcC record, or Annex B parameter sets), copied out once; empty
/// when there is none or its stated size is not a size.
extension AVCodecParameters {
    var extradataBytes: [UInt8] { Extradata.bytes(extradata, size: extradata_size) }
}

extension AVCodecContext {
    var extradataBytes: [UInt8] { Extradata.bytes(extradata, size: extradata_size) }
}

private enum Extradata {
    static func bytes(_ pointer: UnsafeMutablePointer<UInt8>?, size: Int32) -> [UInt8] {
        guard let pointer, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(size)))
    }
}
