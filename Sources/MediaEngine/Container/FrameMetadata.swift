/// Per-frame metadata a re-encoded frame takes from its source frame, byte for byte, because no encoder in Debian's
/// FFmpeg 5.1 writes it and FFmpeg parses neither: Dolby Vision's RPU (`DolbyVisionRPU`) and HDR10+'s dynamic metadata
/// (`HDR10Plus`). Pure byte work, every read bounded by the bytes given.
enum FrameMetadataCodec: Sendable, Equatable {
    case h264, hevc, av1

    /// From FFmpeg's codec name; nil for codecs that carry neither.
    init?(codec: String) {
        switch codec {
        case "h264": self = .h264
        case "hevc": self = .hevc
        case "av1": self = .av1
        default: return nil
        }
    }

    var nal: NALUnits.Codec? {
        switch self {
        case .h264: .h264
        case .hevc: .hevc
        case .av1: nil
        }
    }

    /// The sample's units: NAL units (length-prefixed with `lengthSize`, Annex B when nil) or AV1 OBUs (whole).
    func units(in sample: [UInt8], lengthSize: Int?) -> [ArraySlice<UInt8>] {
        guard nal != nil else { return AV1OBUs.units(in: sample)?.map(\.bytes) ?? [] }
        return NALUnits.readUnits(sample, lengthSize: lengthSize)
    }

    /// An encoder's packet (Annex B, or OBUs) with `prefix` units before its first picture unit (a VCL NAL unit, a frame
    /// or frame header OBU) and `suffix` units at its end. An AV1 unit that does not parse is left as it is (never
    /// guessed at).
    func inserting(prefix: [[UInt8]], suffix: [[UInt8]], into packet: [UInt8]) -> [UInt8] {
        if prefix.isEmpty && suffix.isEmpty { return packet }
        guard let nal else {
            guard let units = AV1OBUs.units(in: packet),
                  let frame = units.first(where: { $0.kind == .frame || $0.kind == .frameHeader }) else { return packet }
            var out = packet
            out.insert(contentsOf: Array((prefix + suffix).joined()), at: frame.bytes.startIndex)
            return out
        }
        var units = NALUnits.splitAnnexB(packet)
        let picture = units.firstIndex { NALUnits.isPicture($0, codec: nal) } ?? units.endIndex
        units.insert(contentsOf: prefix.map { $0[...] }, at: picture)
        units += suffix.map { $0[...] }
        return NALUnits.annexB(units)
    }
}

/// Dolby Vision's RPU: HEVC's NAL unit type 62 and H.264's type 28, each the access unit's last NAL unit; AV1's ITU-T
/// T.35 metadata OBU with Dolby's codes, before the frame's OBUs.
enum DolbyVisionRPU {
    /// metadata_type 4 (ITU-T T.35), country code 0xB5, provider code 0x003B, provider-oriented code 0x00000800.
    static let metadataPrefix: [UInt8] = [0x04, 0xB5, 0x00, 0x3B, 0x00, 0x00, 0x08, 0x00]

    /// The sample's RPU (the NAL unit without start code or length, or the whole OBU); nil when it has none.
    static func unit(in sample: [UInt8], codec: FrameMetadataCodec, lengthSize: Int?) -> [UInt8]? {
        let units = codec.units(in: sample, lengthSize: lengthSize)
        switch codec.nal {
        case let nal?:
            let type = nal == .hevc ? 62 : 28
            return units.last { NALUnits.type($0, codec: nal) == type }.map(Array.init)
        case nil:
            return units.first { AV1OBUs.isMetadata($0, prefix: metadataPrefix) }.map(Array.init)
        }
    }
}

/// HDR10+ dynamic metadata (SMPTE ST 2094-40) as ITU-T T.35 (country 0xB5, provider 0x003C, provider-oriented code
/// 0x0001, application 4): an SEI message (user_data_registered_itu_t_t35, payload type 4) in HEVC and H.264, a
/// metadata OBU in AV1.
enum HDR10Plus {
    static let t35Prefix: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    /// The sample's HDR10+ as a unit of its own: for HEVC/H.264 a new prefix SEI NAL unit holding only that message
    /// (the source's SEI unit may hold others — picture timing, buffering — about the source's coding, not the
    /// picture); for AV1 the whole metadata OBU. nil when it has none.
    static func unit(in sample: [UInt8], codec: FrameMetadataCodec, lengthSize: Int?) -> [UInt8]? {
        let units = codec.units(in: sample, lengthSize: lengthSize)
        guard let nal = codec.nal else { return units.first { AV1OBUs.isMetadata($0, prefix: [0x04] + t35Prefix) }.map(Array.init) }
        let seiType = nal == .hevc ? 39 : 6
        for unit in units where NALUnits.type(unit, codec: nal) == seiType {
            let header = NALUnits.headerSize(nal)
            guard unit.count > header else { continue }
            let rbsp = NALUnits.removingEmulationPrevention(unit.dropFirst(header))
            if let message = SEIMessages.read(rbsp).first(where: { $0.type == 4 && $0.payload.starts(with: t35Prefix) }) {
                return Array(unit.prefix(header)) + NALUnits.addingEmulationPrevention(SEIMessages.write(type: 4, payload: Array(message.payload)))
            }
        }
        return nil
    }
}

/// The messages of an SEI NAL unit's payload (H.264 7.3.2.3, HEVC 7.3.5): type and size each a run of 0xFF bytes and
/// a last byte, then the payload; the RBSP's trailing bits (its last byte) end them.
enum SEIMessages {
    struct Message: Equatable {
        var type: Int
        var payload: ArraySlice<UInt8>
    }

    /// The messages read before the trailing bits, or before a size runs past the end.
    static func read(_ rbsp: [UInt8]) -> [Message] {
        var messages: [Message] = [], at = 0
        func number() -> Int? {
            var value = 0
            while at < rbsp.count {
                let byte = rbsp[at]
                at += 1
                value += Int(byte)
                if byte != 0xFF { return value }
                if value > 1 << 24 { return nil }
            }
            return nil
        }
        // The trailing bits are the last byte (0x80); a message's type may start with 0x80 too.
        while at < rbsp.count, !(at == rbsp.count - 1 && rbsp[at] == 0x80) {
            guard let type = number(), let size = number(), size <= rbsp.count - at else { break }
            messages.append(Message(type: type, payload: rbsp[at..<(at + size)]))
            at += size
        }
        return messages
    }

    /// One message's RBSP with its trailing bits.
    static func write(type: Int, payload: [UInt8]) -> [UInt8] {
        func number(_ value: Int) -> [UInt8] { Array(repeating: 0xFF, count: value / 255) + [UInt8(value % 255)] }
        return number(type) + number(payload.count) + payload + [0x80]
    }
}

extension AV1OBUs {
    /// A metadata OBU whose payload starts with `prefix` (metadata_type, then the T.35 codes).
    static func isMetadata(_ unit: ArraySlice<UInt8>, prefix: [UInt8]) -> Bool {
        guard let units = units(in: Array(unit)), units.count == 1, let only = units.first else { return false }
        return only.kind == .metadata && only.payload.starts(with: prefix)
    }
}

extension NALUnits {
    /// A unit holding (part of) a coded picture: HEVC's VCL types 0–31, H.264's slices 1–5.
    static func isPicture(_ unit: ArraySlice<UInt8>, codec: Codec) -> Bool {
        let kind = type(unit, codec: codec)
        return codec == .hevc ? (0...31).contains(kind) : (1...5).contains(kind)
    }
}

/// Each source frame's metadata units by its presentation time, and the output time its re-encode takes, so the access
/// unit shown then carries them. Entries leave as they are used: a long exact cut holds about one group of pictures'
/// units. One writer's thread only.
final class FrameMetadataCarrier {
    struct Units {
        var rpu: [UInt8]?
        var hdr10Plus: [UInt8]?
        var isEmpty: Bool { rpu == nil && hdr10Plus == nil }
    }

    let codec: FrameMetadataCodec
    private let carriesRPU: Bool, carriesHDR10Plus: Bool
    private let lengthSize: Int?
    private var bySource: [Int64: Units] = [:], byOutput: [Int64: Units] = [:]
    /// The units given last: the frame an exact cut shows again to fill its last slot carries them again.
    private var last: Units?

    /// nil when there is nothing to carry. `lengthSize`: the source's NAL length size (nil for Annex B sources and AV1).
    init?(codec: FrameMetadataCodec?, rpu: Bool, hdr10Plus: Bool, lengthSize: Int?) {
        guard let codec, rpu || hdr10Plus else { return nil }
        self.codec = codec
        carriesRPU = rpu
        carriesHDR10Plus = hdr10Plus
        self.lengthSize = lengthSize
    }

    func read(_ packet: Packet, pts: Int64) {
        let bytes = packet.bytes
        let units = Units(rpu: carriesRPU ? DolbyVisionRPU.unit(in: bytes, codec: codec, lengthSize: lengthSize) : nil,
                          hdr10Plus: carriesHDR10Plus ? HDR10Plus.unit(in: bytes, codec: codec, lengthSize: lengthSize) : nil)
        if !units.isEmpty { bySource[pts] = units }
    }

    /// The frame shown at `sourcePts` is encoded to be shown at `outputPts`.
    func reencode(sourcePts: Int64, as outputPts: Int64) {
        if let units = bySource.removeValue(forKey: sourcePts) {
            byOutput[outputPts] = units
            last = units
        }
        // Frames before the first re-encoded one were only references: their units are not needed.
        if bySource.count > 512 { bySource = bySource.filter { $0.key > sourcePts } }
    }

    /// The last frame is encoded again at `outputPts`.
    func repeatLast(as outputPts: Int64) { if let last { byOutput[outputPts] = last } }

    /// An encoded packet shown at `outputPts` (Annex B or OBUs) with its source frame's units: HDR10+ before the
    /// picture (a prefix SEI, or an OBU before the frame), the RPU last in a NAL access unit, before the frame in AV1.
    func carry(in packet: Packet, shownAt outputPts: Int64) throws {
        guard let units = byOutput.removeValue(forKey: outputPts) else { return }
        let rpuFirst = codec == .av1
        let prefix = [units.hdr10Plus, rpuFirst ? units.rpu : nil].compactMap { $0 }
        try packet.setBytes(codec.inserting(prefix: prefix, suffix: rpuFirst ? [] : [units.rpu].compactMap { $0 }, into: packet.bytes))
    }
}
