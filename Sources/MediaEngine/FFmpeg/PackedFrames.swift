import CAV

/// DivX/Xvid "packed bitstream": MPEG-4 part 2 that stores a B-frame in the same packet as the P-frame it
/// depends on (two VOPs in one packet, then a near-empty placeholder), so AVI's one-frame-per-slot timing
/// holds. FFmpeg's decoder unpacks it; MP4/MOV players do not, and `mpeg4_unpack_bframes` in FFmpeg 5.1
/// leaves the unpacked B-frames without presentation times. Found from the stream's first packets.
enum PackedFrames {
    /// Packets of the stream read from the start of the file, at most.
    static let packetsRead = 120

    static func detect(_ input: InputFile, streamIndex: Int) -> Bool {
        guard let stream = input.stream(streamIndex), stream.pointee.codecpar?.pointee.codec_id == AV_CODEC_ID_MPEG4,
              (try? input.seekToStart()) != nil, let packet = try? Packet() else { return false }
        defer { try? input.seekToStart() }
        var seen = 0
        for _ in 0..<(packetsRead * 8) {
            guard let result = try? input.read(into: packet), result == .packet else { return false }
            guard packet.streamIndex == streamIndex else { continue }
            if packet.withData({ videoObjectPlanes(in: $0) }) >= 2 { return true }
            seen += 1
            if seen >= packetsRead { return false }
        }
        return false
    }

    /// How many VOP start codes (00 00 01 B6) a packet holds.
    static func videoObjectPlanes(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard bytes.count >= 4 else { return 0 }
        var count = 0
        for index in 0..<(bytes.count - 3) where bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 && bytes[index + 3] == 0xB6 {
            count += 1
        }
        return count
    }
}
