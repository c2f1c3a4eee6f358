/// avcC/hvcC configuration records (ISO/IEC 14496-15) holding a given list of parameter sets, with the
/// profile, tier and level fields covering every SPS in it. Written here rather than by FFmpeg's muxer:
/// its avcC takes the first SPS's profile and level only, and it converts packets itself when given
/// Annex B, which the copied samples are not.
enum DecoderConfiguration {
    /// The record for `sets` (sorted VPS, SPS, PPS by id), NAL lengths of `lengthSize` bytes; nil when an
    /// SPS cannot be read or the record's count and length fields cannot hold them. `extraArrays`: hvcC
    /// arrays other than VPS/SPS/PPS (declarative SEI) to keep.
    /// The order a record holds its sets in: kind by kind (VPS, SPS, PPS), by id within each.
    static func order(_ sets: [ParameterSet]) -> [ParameterSet] {
        sets.sorted { ($0.kind, $0.id) < ($1.kind, $1.id) }
    }

    static func record(_ sets: [ParameterSet], codec: NALUnits.Codec, lengthSize: Int = 4,
                       extraArrays: [(type: Int, units: [[UInt8]])] = []) -> [UInt8]? {
        let sorted = order(sets)
        let profiles = sorted.filter { $0.kind == .sps }.compactMap { SPSProfile.read($0, codec: codec) }
        guard let first = profiles.first, profiles.count == sorted.filter({ $0.kind == .sps }).count else { return nil }
        // 16-bit unit lengths; H.264 counts of 5 bits (SPS) and 8 bits (PPS); HEVC 8-bit array and 16-bit unit counts.
        let units = sorted.map(\.unit) + extraArrays.flatMap(\.units)
        guard units.allSatisfy({ $0.count <= 0xffff }) else { return nil }
        if codec == .h264 {
            guard sorted.filter({ $0.kind == .sps }).count <= 31, sorted.filter({ $0.kind == .pps }).count <= 255 else { return nil }
        } else {
            guard extraArrays.count <= 252, extraArrays.allSatisfy({ $0.units.count <= 0xffff }),
                  ParameterSet.Kind.allCases.allSatisfy({ kind in sorted.filter { $0.kind == kind }.count <= 0xffff }) else { return nil }
        }
        return codec == .h264 ? avcC(sorted, profiles: profiles, first: first, lengthSize: lengthSize)
                              : hvcC(sorted, profiles: profiles, first: first, lengthSize: lengthSize, extraArrays: extraArrays)
    }

    private static func append16(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8((value >> 8) & 0xff))
        out.append(UInt8(value & 0xff))
    }

    private static func avcC(_ sets: [ParameterSet], profiles: [SPSProfile], first: SPSProfile, lengthSize: Int) -> [UInt8] {
        // The highest profile and level; constraint flags only where every SPS sets them.
        let profile = profiles.map(\.general[0]).max() ?? first.general[0]
        let flags = profiles.map(\.general[1]).reduce(0xff, &)
        let level = profiles.map(\.general[2]).max() ?? first.general[2]
        var out: [UInt8] = [1, profile, flags, level, 0xfc | UInt8(lengthSize - 1)]
        let sps = sets.filter { $0.kind == .sps }, pps = sets.filter { $0.kind == .pps }
        out.append(0xe0 | UInt8(sps.count))
        for set in sps { append16(set.unit.count, to: &out); out += set.unit }
        out.append(UInt8(pps.count))
        for set in pps { append16(set.unit.count, to: &out); out += set.unit }
        // The extension (chroma format, bit depths) for every profile but Baseline, Main and Extended.
        if ![66, 77, 88].contains(Int(profile)) {
            out += [0xfc | UInt8(first.chromaFormat & 3), 0xf8 | UInt8((first.bitDepthLuma - 8) & 7),
                    0xf8 | UInt8((first.bitDepthChroma - 8) & 7), 0]
        }
        return out
    }

    private static func hvcC(_ sets: [ParameterSet], profiles: [SPSProfile], first: SPSProfile, lengthSize: Int,
                             extraArrays: [(type: Int, units: [[UInt8]])]) -> [UInt8] {
        // general_profile_space from the first; the highest tier, profile and level; compatibility and
        // constraint flags only where every SPS sets them.
        let space = first.general[0] & 0xc0
        let tier = profiles.map { $0.general[0] & 0x20 }.max() ?? 0
        let profile = profiles.map { $0.general[0] & 0x1f }.max() ?? 0
        var out: [UInt8] = [1, space | tier | profile]
        for index in 1...10 { out.append(profiles.map { $0.general[index] }.reduce(0xff, &)) }
        out.append(profiles.map { $0.general[11] }.max() ?? 0)
        // min_spatial_segmentation_idc 0 and parallelismType 0: nothing promised about the mix.
        out += [0xf0, 0x00, 0xfc]
        out.append(0xfc | UInt8(first.chromaFormat & 3))
        out.append(0xf8 | UInt8((first.bitDepthLuma - 8) & 7))
        out.append(0xf8 | UInt8((first.bitDepthChroma - 8) & 7))
        out += [0, 0] // avgFrameRate: unspecified
        let layers = UInt8(min(7, profiles.map(\.temporalLayers).max() ?? 1))
        let nested: UInt8 = profiles.allSatisfy(\.temporalIdNested) ? 1 : 0
        out.append(layers << 3 | nested << 2 | UInt8(lengthSize - 1))
        var arrays: [(type: Int, units: [[UInt8]])] = []
        for (kind, type) in [(ParameterSet.Kind.vps, 32), (.sps, 33), (.pps, 34)] {
            let units = sets.filter { $0.kind == kind }.map(\.unit)
            if !units.isEmpty { arrays.append((type, units)) }
        }
        arrays += extraArrays
        out.append(UInt8(arrays.count))
        for array in arrays {
            // array_completeness: every set of this type is here (hvc1).
            let complete: UInt8 = (32...34).contains(array.type) ? 0x80 : 0
            out.append(complete | UInt8(array.type & 0x3f))
            append16(array.units.count, to: &out)
            for unit in array.units { append16(unit.count, to: &out); out += unit }
        }
        return out
    }

    /// The hvcC arrays of a record other than VPS/SPS/PPS (declarative SEI), to carry into a new record.
    static func extraArrays(ofHEVCRecord record: [UInt8]) -> [(type: Int, units: [[UInt8]])] {
        (NALUnits.hevcArrays(record) ?? []).filter { !(32...34).contains($0.type) }.map { ($0.type, $0.units.map(Array.init)) }
    }
}
