import CAV

/// Whether decoding can begin at a packet the demuxer flags as a keyframe (DESIGN.md's clean start): an
/// H.264 IDR or an I frame with a recovery-point SEI of recovery_frame_cnt 0, an HEVC IRAP (BLA, IDR,
/// CRA). MPEG-TS flags keyframes from the transport's random-access indicator, which encoders also set on
/// I frames that later frames decode across (ts_sample_h265.ts: its B frames after the second I reference
/// the first): decoding from there gives grey, broken pictures that no error flags.
struct RandomAccess {
    enum Codec { case h264, hevc }
    let codec: Codec
    /// avcC/hvcC NAL length size; nil for Annex B packets.
    let lengthSize: Int?

    /// Nil for codecs whose keyframe flags vtrim takes as they are.
    init?(stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar?.pointee else { return nil }
        switch parameters.codec_id {
        case AV_CODEC_ID_H264: codec = .h264
        case AV_CODEC_ID_HEVC: codec = .hevc
        default: return nil
        }
        let record = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, parameters.extradata_size)))) } ?? []
        let first = record.first ?? 0
        lengthSize = first == 1 ? NALUnits.configuration(record, codec: codec == .h264 ? .h264 : .hevc)?.lengthSize : nil
    }

    func isCleanStart(_ bytes: [UInt8]) -> Bool {
        let units = lengthSize.flatMap { NALUnits.splitLengthPrefixed(bytes, lengthSize: $0) } ?? NALUnits.splitAnnexB(bytes)
        let nal: NALUnits.Codec = codec == .h264 ? .h264 : .hevc
        if NALUnits.isInstantaneousRefresh(units, codec: nal) || NALUnits.isCleanRandomAccessCandidate(units, codec: nal) { return true }
        guard codec == .h264 else { return false }
        return units.contains { NALUnits.type($0, codec: .h264) == 6 && Self.hasRecoveryPointZero($0) }
    }

    /// An H.264 SEI NAL unit holding a recovery point whose recovery_frame_cnt is 0 (its ue(v) starts with a 1 bit).
    static func hasRecoveryPointZero(_ unit: ArraySlice<UInt8>) -> Bool {
        let bytes = NALUnits.removingEmulationPrevention(unit.dropFirst())
        var index = 0
        while index < bytes.count, bytes[index] != 0x80 {
            var type = 0, size = 0
            while index < bytes.count, bytes[index] == 0xFF { type += 255; index += 1 }
            guard index < bytes.count else { return false }
            type += Int(bytes[index]); index += 1
            while index < bytes.count, bytes[index] == 0xFF { size += 255; index += 1 }
            guard index < bytes.count else { return false }
            size += Int(bytes[index]); index += 1
            if type == 6 { return index < bytes.count && bytes[index] & 0x80 != 0 }
            index += size
        }
        return false
    }
}
