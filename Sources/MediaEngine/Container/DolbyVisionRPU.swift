/// Dolby Vision's per-frame metadata, the RPU, as each codec carries it: HEVC in NAL unit type 62 and H.264 in type 28
/// (each the access unit's last NAL unit), AV1 in an ITU-T T.35 metadata OBU with Dolby's codes, before the frame's
/// OBUs. A re-encoded frame gets its source frame's unit byte for byte: FFmpeg 5.1 neither parses nor writes RPUs, and
/// no encoder in Debian takes them. Pure byte work, every read bounded by the bytes given.
enum DolbyVisionRPU {
    enum Carriage: Sendable, Equatable {
        case nal(NALUnits.Codec, type: Int)
        case metadataOBU
    }

    /// How `codec` (FFmpeg's name) carries RPUs; nil for codecs Dolby Vision has no single-layer profile for.
    static func carriage(codec: String) -> Carriage? {
        switch codec {
        case "hevc": .nal(.hevc, type: 62)
        case "h264": .nal(.h264, type: 28)
        case "av1": .metadataOBU
        default: nil
        }
    }

    /// metadata_type 4 (ITU-T T.35), country code 0xB5, provider code 0x003B, provider-oriented code 0x00000800.
    static let metadataPrefix: [UInt8] = [0x04, 0xB5, 0x00, 0x3B, 0x00, 0x00, 0x08, 0x00]

    /// The sample's RPU (the whole NAL unit without start code or length, or the whole OBU); nil when it has none.
    /// NAL samples are length-prefixed with `lengthSize`, or Annex B when it is nil.
    static func unit(in sample: [UInt8], carriage: Carriage, lengthSize: Int?) -> [UInt8]? {
        switch carriage {
        case let .nal(codec, type):
            return NALUnits.readUnits(sample, lengthSize: lengthSize).last { NALUnits.type($0, codec: codec) == type }.map(Array.init)
        case .metadataOBU:
            return AV1OBUs.units(in: sample)?.first { $0.kind == .metadata && $0.payload.starts(with: metadataPrefix) }.map { Array($0.bytes) }
        }
    }

    /// An encoded AV1 temporal unit with `obu` placed before its first frame (or frame header) OBU, after any sequence
    /// header, as Dolby's encoders place it; unchanged when the unit does not parse (never guessed at).
    static func inserting(obu: [UInt8], into temporalUnit: [UInt8]) -> [UInt8] {
        guard let units = AV1OBUs.units(in: temporalUnit),
              let frame = units.first(where: { $0.kind == .frame || $0.kind == .frameHeader }) else { return temporalUnit }
        var out = temporalUnit
        out.insert(contentsOf: obu, at: frame.bytes.startIndex)
        return out
    }

    /// An encoded packet (Annex B NAL units, or AV1 OBUs) with `unit` where the codec carries it.
    static func inserting(_ unit: [UInt8], into packet: [UInt8], carriage: Carriage) -> [UInt8] {
        switch carriage {
        case .nal: NALUnits.annexB(NALUnits.splitAnnexB(packet) + [unit[...]])
        case .metadataOBU: inserting(obu: unit, into: packet)
        }
    }
}

/// Each source frame's RPU by its presentation time, and the output time its re-encode takes, so the access unit shown
/// then carries it. Entries leave as they are used: a long exact cut holds about one group of pictures' units. One
/// writer's thread only.
final class RPUCarrier {
    let carriage: DolbyVisionRPU.Carriage
    private let lengthSize: Int?
    private var bySource: [Int64: [UInt8]] = [:], byOutput: [Int64: [UInt8]] = [:]
    /// The unit given last: the frame an exact cut shows again to fill its last slot carries it again.
    private var last: [UInt8]?

    /// `lengthSize`: the source's NAL length size (nil for Annex B sources and AV1).
    init(carriage: DolbyVisionRPU.Carriage, lengthSize: Int?) {
        self.carriage = carriage
        self.lengthSize = lengthSize
    }

    func read(_ packet: Packet, pts: Int64) {
        guard let unit = DolbyVisionRPU.unit(in: packet.bytes, carriage: carriage, lengthSize: lengthSize) else { return }
        bySource[pts] = unit
    }

    /// The frame shown at `sourcePts` is encoded to be shown at `outputPts`.
    func reencode(sourcePts: Int64, as outputPts: Int64) {
        if let unit = bySource.removeValue(forKey: sourcePts) {
            byOutput[outputPts] = unit
            last = unit
        }
        // Frames before the first re-encoded one were only references: their units are not needed.
        if bySource.count > 512 { bySource = bySource.filter { $0.key > sourcePts } }
    }

    /// The last frame is encoded again at `outputPts`.
    func repeatLast(as outputPts: Int64) { if let last { byOutput[outputPts] = last } }

    /// The unit for the access unit shown at `outputPts`, taken.
    func take(shownAt outputPts: Int64) -> [UInt8]? { byOutput.removeValue(forKey: outputPts) }

    /// An encoded packet shown at `outputPts` (Annex B or OBUs) with its unit; unchanged when it has none.
    func carry(in packet: Packet, shownAt outputPts: Int64) throws {
        guard let unit = take(shownAt: outputPts) else { return }
        try packet.setBytes(DolbyVisionRPU.inserting(unit, into: packet.bytes, carriage: carriage))
    }
}
