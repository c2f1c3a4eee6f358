import CAV

/// DESIGN.md's clean start — the one rule for every place decoding begins (a thumbnail after a seek, the
/// start of every cut mode, a smart cut's copied middle): an H.264 IDR, or an I picture carrying a
/// recovery-point SEI whose recovery_frame_cnt is 0; an HEVC IRAP (IDR, BLA, CRA; a CRA's leading pictures
/// are the planner's to handle). Demuxers flag more than that: MPEG-TS flags keyframes from the transport's
/// random-access indicator, which encoders also set on I pictures that later frames decode across
/// (ts_sample_h265.ts: B frames after its second I reference the first), and FFmpeg's H.264 parser flags
/// every recovery point, whatever its count. Decoding from those gives grey, broken pictures that no error
/// flags. AV1: a keyframe that is shown — FFmpeg's parser flags a forward keyframe (decoded hidden, shown later by
/// `show_existing_frame`), from which the frames decoded in between cannot be. VP9: a packet whose first frame
/// is a keyframe (hidden or not: the superframe shows what it holds). For other codecs the demuxer's keyframe flag
/// is taken as it is.
struct CleanStart {
    private let codec: NALUnits.Codec?
    /// VP8 and VP9 streams: their keyframes, which reset every reference, are where a smart cut's copy may start.
    private let vpx: AVCodecID?
    /// avcC/hvcC NAL length size; nil for Annex B samples.
    /// H.264/HEVC samples' NAL length size (from the avcC/hvcC record); nil for Annex B and other codecs.
    let lengthSize: Int?
    /// AV1 streams: the sequence header of the stream's configuration (`av1C`'s configOBUs), for samples that
    /// carry none of their own.
    private let av1: AV1Rule?
    /// MPEG-2 streams: a smart cut's copy starts at an I-frame that opens a GOP after a sequence header.
    private var mpeg2 = false

    struct AV1Rule {
        var configured: AV1SequenceHeader?
    }

    init(stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar?.pointee,
              parameters.codec_id == AV_CODEC_ID_H264 || parameters.codec_id == AV_CODEC_ID_HEVC else {
            codec = nil
            lengthSize = nil
            let id = stream.pointee.codecpar?.pointee.codec_id
            vpx = id == AV_CODEC_ID_VP8 || id == AV_CODEC_ID_VP9 ? id : nil
            mpeg2 = id == AV_CODEC_ID_MPEG2VIDEO
            if let parameters = stream.pointee.codecpar?.pointee, parameters.codec_id == AV_CODEC_ID_AV1 {
                // av1C: 4 bytes (marker and version, profile and level, depth and chroma, delay), then configOBUs.
                let record = parameters.extradataBytes
                av1 = AV1Rule(configured: record.first == 0x81 ? AV1SequenceHeader.first(in: Array(record.dropFirst(4))) : nil)
            } else {
                av1 = nil
            }
            return
        }
        av1 = nil
        vpx = nil
        let codec: NALUnits.Codec = parameters.codec_id == AV_CODEC_ID_HEVC ? .hevc : .h264
        self.codec = codec
        let record = parameters.extradataBytes
        if record.first == 1 {
            lengthSize = NALUnits.configuration(record, codec: codec)?.lengthSize ?? 4
        } else {
            lengthSize = nil
        }
    }

    init(codec: NALUnits.Codec?, lengthSize: Int?, av1: AV1Rule? = nil, vpx: AVCodecID? = nil, mpeg2: Bool = false) {
        self.codec = codec
        self.lengthSize = lengthSize
        self.av1 = av1
        self.vpx = vpx
        self.mpeg2 = mpeg2
    }

    /// Whether decoding can begin at `packet`: a flagged keyframe that is a clean start.
    func isClean(_ packet: Packet) -> Bool {
        guard packet.isKeyframe else { return false }
        guard codec != nil || av1 != nil else { return true }
        return isClean(bytes: packet.bytes)
    }

    /// Whether a sample makes a clean start (H.264/HEVC by its NAL units, AV1 by its first frame header; true for
    /// other codecs).
    func isClean(bytes: [UInt8]) -> Bool {
        if let av1 {
            // A sample whose header cannot be read (no sequence header to read it by, or damaged) is no known start.
            guard let sequence = AV1SequenceHeader.first(in: bytes) ?? av1.configured,
                  let frame = AV1FrameStart.first(in: bytes, sequence: sequence) else { return false }
            return frame.isShownKeyframe
        }
        guard let codec else { return true }
        let units = NALUnits.readUnits(bytes, lengthSize: lengthSize)
        if NALUnits.isInstantaneousRefresh(units, codec: codec) || NALUnits.isCleanRandomAccessCandidate(units, codec: codec) {
            return true
        }
        guard codec == .h264 else { return false }
        return units.contains { NALUnits.type($0, codec: .h264) == 6 && Self.hasRecoveryPointZero($0) }
    }

    /// Whether a smart cut's copied frames may start at `packet` after re-encoded ones: a clean start that
    /// also begins a new coded video sequence — an H.264 IDR, an HEVC IRAP (a CRA after the head's
    /// end-of-sequence unit). An H.264 recovery point is a clean start but not this: its frame numbers
    /// continue the source's sequence, which the re-encoded head does not. AV1: a shown keyframe; VP8 and VP9:
    /// a keyframe (checked in the bitstream, not only flagged); MPEG-2: an I-frame opening a GOP, after a sequence
    /// header (its leading B-frames go to the edge). Other codecs: never.
    func isSplicePoint(_ packet: Packet) -> Bool {
        packet.isKeyframe && isSplicePoint(bytes: packet.bytes)
    }

    func isSplicePoint(bytes: [UInt8]) -> Bool {
        if av1 != nil { return isClean(bytes: bytes) }
        if mpeg2 { return MPEG2Video.isSplicePoint(bytes) }
        if vpx == AV_CODEC_ID_VP9 {
            return VP9Superframe.frames(in: bytes)?.first.flatMap(VP9FrameHeader.init)?.kind == .keyframe
        }
        // VP8's frame tag: bit 0 clear on a keyframe, followed by its start code 9d 01 2a.
        if vpx == AV_CODEC_ID_VP8 { return bytes.count >= 6 && bytes[0] & 1 == 0 && bytes[3...5].elementsEqual([0x9D, 0x01, 0x2A]) }
        guard let codec else { return false }
        let units = NALUnits.readUnits(bytes, lengthSize: lengthSize)
        return NALUnits.isInstantaneousRefresh(units, codec: codec) || NALUnits.isCleanRandomAccessCandidate(units, codec: codec)
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
