import CAV

/// What FFmpeg's decoders learn only from a stream's first access unit, read once so that a decoder
/// starting at a later keyframe (every seek, every cut) knows it too, and so that cuts starting later
/// carry it to the players that read them.
///
/// Today that is x264's version SEI ("x264 - core 142"): FFmpeg's H.264 decoder works around bugs of old
/// x264 builds (4:4:4 CABAC and 8x8 transforms before 151, h264_cabac.c and h264_mb.c; direct modes
/// before 34/44) only when it knows the build, and learns it from that SEI, which sits in the first access
/// unit only. Its `x264_build` option tells it when the SEI was never seen. (Other state of this kind in
/// FFmpeg 5.1 — MPEG-4 part 2's Xvid/DivX build numbers from user data — lives in the VOL header, which MP4
/// and Matroska keep in the codec's extradata, so every decoder sees it.)
struct StreamBeginning: Sendable, Equatable, Codable {
    /// The x264 build named by the stream's first access unit.
    var x264Build: Int?
    /// That SEI NAL unit (header byte and payload, no length prefix or start code).
    @OptionalBase64Bytes var x264SEI: [UInt8]? = nil
    /// The first packet's decode time (stream ticks): a cut starting there carries everything already.
    var firstDecodeTicks: Int64?
    /// The samples' NAL length size (avcC), or nil for Annex B packets.
    var lengthSize: Int?

    static let unknown = StreamBeginning()

    /// Options for a decoder of this stream that may not start at its first access unit.
    var decoderOptions: [String: String] { x264Build.map { ["x264_build": String($0)] } ?? [:] }

    /// The decoder behaves differently with this knowledge than without (x264 builds before 151), so a
    /// cut that starts later must carry the SEI.
    var mustCarry: Bool { x264SEI != nil && (x264Build ?? Int.max) < 151 && seiFitsLengthField }

    /// A length field of 1 or 2 bytes cannot hold every SEI (x264's carries its whole option string): such
    /// a stream's cuts cannot carry it (the plan then says nothing about carrying it).
    private var seiFitsLengthField: Bool {
        guard let sei = x264SEI, let lengthSize, lengthSize < 4 else { return true }
        return sei.count < 1 << (8 * lengthSize)
    }

    /// Reads the first packet of `streamIndex` from the start of the file and puts the demuxer back at the
    /// start. Only H.264 has such state today; other codecs return `unknown` without reading.
    static func read(_ input: InputFile, streamIndex: Int) -> StreamBeginning {
        guard let stream = input.stream(streamIndex), let parameters = stream.pointee.codecpar?.pointee,
              parameters.codec_id == AV_CODEC_ID_H264 else { return .unknown }
        let record = parameters.extradataBytes
        let lengthSize = record.first == 1 ? NALUnits.configuration(record, codec: .h264)?.lengthSize : nil
        guard (try? input.seekToStart()) != nil, let packet = try? Packet() else { return .unknown }
        defer { try? input.seekToStart() }
        // The first packet of the stream; other streams' packets come first in some files.
        for _ in 0..<1000 {
            guard let result = try? input.read(into: packet), result == .packet else { return .unknown }
            guard packet.streamIndex == streamIndex else { continue }
            return parse(packet.bytes, lengthSize: lengthSize, firstDecodeTicks: packet.dts == CAV_NOPTS_VALUE ? packet.pts : packet.dts)
        }
        return .unknown
    }

    /// The x264 SEI among an access unit's NAL units (length-prefixed, or Annex B when `lengthSize` is nil).
    static func parse(_ bytes: [UInt8], lengthSize: Int?, firstDecodeTicks: Int64?) -> StreamBeginning {
        var beginning = StreamBeginning(firstDecodeTicks: firstDecodeTicks, lengthSize: lengthSize)
        // Old x264 streams may hold Annex B inside avc1: where the lengths do not add up, start codes are tried.
        var units = NALUnits.readUnits(bytes, lengthSize: lengthSize)
        if units.isEmpty, lengthSize != nil { units = NALUnits.splitAnnexB(bytes) }
        for unit in units where NALUnits.type(unit, codec: .h264) == 6 {
            if let build = x264Build(inSEI: unit) {
                beginning.x264Build = build
                beginning.x264SEI = Array(unit)
                break
            }
        }
        return beginning
    }

    /// "x264 - core N" in an SEI NAL unit's unregistered user data (emulation prevention removed first, as
    /// FFmpeg's h264_sei.c reads it).
    static func x264Build(inSEI unit: ArraySlice<UInt8>) -> Int? {
        let payload = NALUnits.removingEmulationPrevention(unit.dropFirst())
        let marker = Array("x264 - core ".utf8)
        guard payload.count > marker.count else { return nil }
        for start in 0...(payload.count - marker.count) where payload[start..<(start + marker.count)].elementsEqual(marker) {
            var build = 0, digits = 0
            for byte in payload[(start + marker.count)...] {
                guard byte >= 0x30, byte <= 0x39, digits < 6 else { break }
                build = build * 10 + Int(byte - 0x30)
                digits += 1
            }
            return digits > 0 ? build : nil
        }
        return nil
    }

    /// `accessUnit` (framed as the stream's packets are) with the SEI put where H.264 wants SEI: before the
    /// first slice. Unchanged when it already names an x264 build.
    func carried(into accessUnit: [UInt8]) -> [UInt8] {
        guard let sei = x264SEI, seiFitsLengthField else { return accessUnit }
        var units = lengthSize.flatMap { NALUnits.splitLengthPrefixed(accessUnit, lengthSize: $0) } ?? NALUnits.splitAnnexB(accessUnit)
        guard !units.isEmpty, !units.contains(where: { NALUnits.type($0, codec: .h264) == 6 && Self.x264Build(inSEI: $0) != nil }) else {
            return accessUnit
        }
        let position = units.firstIndex { (1...5).contains(NALUnits.type($0, codec: .h264)) } ?? units.count
        units.insert(sei[...], at: position)
        if let lengthSize { return NALUnits.lengthPrefixed(units, lengthSize: lengthSize) }
        return units.reduce(into: [UInt8]()) { $0 += [0, 0, 0, 1] + $1 }
    }
}
