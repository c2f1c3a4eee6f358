import CAV

/// AMR-NB packets as MP4/3GP demuxers return them may hold several 20 ms frames (a sample of a camera's
/// 3GP often does); FFmpeg's 3GP/MOV muxer takes one frame per packet. Each frame's size follows from its
/// first byte (the frame type in the table of contents), so the packet splits without decoding.
enum AMRFrames {
    /// Bytes of a frame (its ToC byte included) by frame type, RFC 4867's storage format; 0: invalid.
    private static let frameBytes: [Int] = [13, 14, 16, 18, 20, 21, 27, 32, 6, 0, 0, 0, 0, 0, 0, 1]
    private static let samplesPerFrame: Int64 = 160
    private static let sampleRate: Int32 = 8000

    /// Sizes of the frames `bytes` holds, or nil when they do not add up.
    static func frameSizes(_ bytes: [UInt8]) -> [Int]? {
        var sizes: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let size = frameBytes[Int((bytes[offset] >> 3) & 0x0f)]
            guard size > 0, offset + size <= bytes.count else { return nil }
            sizes.append(size)
            offset += size
        }
        return sizes
    }

    /// One packet per frame, 20 ms apart from the packet's own time; the packet itself when it holds one
    /// frame or its frames cannot be told apart (the muxer then refuses it with its own error).
    static func split(_ packet: Packet, timeBase: AVRational) throws -> [Packet] {
        let bytes = packet.bytes
        guard let sizes = frameSizes(bytes), sizes.count > 1 else { return [packet] }
        let step = av_rescale_q(samplesPerFrame, AVRational(num: 1, den: sampleRate), timeBase)
        var frames: [Packet] = []
        var offset = 0
        for (position, size) in sizes.enumerated() {
            let frame = try packet.clone()
            try frame.setBytes(Array(bytes[offset..<(offset + size)]))
            let delay = step.multipliedReportingOverflow(by: Int64(position)).partialValue
            if packet.pts != CAV_NOPTS_VALUE { frame.pointer.pointee.pts = packet.pts.plus(delay) }
            if packet.dts != CAV_NOPTS_VALUE { frame.pointer.pointee.dts = packet.dts.plus(delay) }
            frame.pointer.pointee.duration = step
            frames.append(frame)
            offset += size
        }
        return frames
    }
}
