/// Why a sample could not be put in the planned sample entry's form (a set the record lacks, a slice
/// header that cannot be renumbered): the cut fails rather than write a file that lies about its sets.
struct SampleEntryFailure: Error {
    let reason: String
    var remedy: MediaError.Remedy?
}

/// Puts samples into the output's form, as the plan's sample entry wants: NAL units with 4-byte lengths
/// (from Annex B or other length sizes) and, out of band, no parameter sets inside — each one dropped
/// must be one the record holds. Written here, not with FFmpeg's `filter_units` bitstream filter, because
/// the sets it drops must be checked against the record, and Annex B needs converting in the same pass.
final class SampleRepackager {
    let codec: NALUnits.Codec
    /// The source's NAL length size; nil for Annex B.
    let sourceLengthSize: Int?
    let outputLengthSize: Int
    /// Sets to drop from samples (out of band); nil keeps them (in band).
    let recordSets: [ParameterSet]?
    /// A set the record lacks is kept in its sample (and counted) rather than failing the cut: for copies
    /// of avc1/hvc1 sources, whose samples were not read while planning.
    let keepsUnknownSets: Bool
    private(set) var keptUnknownSets = 0

    init(codec: NALUnits.Codec, sourceLengthSize: Int?, outputLengthSize: Int, recordSets: [ParameterSet]?, keepsUnknownSets: Bool = false) {
        self.codec = codec
        self.sourceLengthSize = sourceLengthSize
        self.outputLengthSize = outputLengthSize
        self.recordSets = recordSets
        self.keepsUnknownSets = keepsUnknownSets
    }

    /// The sample in the output's form; nil when it is already (checked in place, without a copy).
    func repackage(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        guard let ranges = NALUnits.unitRanges(bytes, lengthSize: sourceLengthSize) else {
            // A damaged sample (lengths that do not add up) is copied as the source has it: a copy does not
            // repair, and its sets cannot be told apart anyway.
            if sourceLengthSize == outputLengthSize { return nil }
            throw SampleEntryFailure(reason: "a sample's NAL unit lengths do not add up")
        }
        func isSet(_ range: Range<Int>) -> Bool {
            NALUnits.isParameterSet(type: NALUnits.type(ofUnitStartingWith: bytes[range.lowerBound], codec: codec), codec: codec)
        }
        if sourceLengthSize == outputLengthSize, recordSets == nil || !ranges.contains(where: isSet) { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + ranges.count * outputLengthSize)
        for range in ranges {
            if let recordSets, isSet(range) {
                let unit = bytes[range]
                if keepsUnknownSets, !recordSets.contains(where: { $0.unit.elementsEqual(unit) }) {
                    keptUnknownSets += 1
                } else if !recordSets.contains(where: { $0.unit.elementsEqual(unit) }) {
                    let name = ParameterSet.parse(ArraySlice(unit), codec: codec)?.description ?? "a parameter set"
                    throw SampleEntryFailure(reason: "\(name) inside a sample differs from the one in the sample entry",
                                             remedy: .parameterSetsInBand)
                } else {
                    continue
                }
            }
            for shift in stride(from: (outputLengthSize - 1) * 8, through: 0, by: -8) { out.append(UInt8((range.count >> shift) & 0xff)) }
            out.append(contentsOf: bytes[range])
        }
        return out
    }
}

/// The re-encoded parts' NAL units under the ids the plan gave their parameter sets: the sets dropped where a
/// record holds them (out of band) or kept renumbered (in band, MPEG-TS) — each must equal the one planned — and,
/// for HEVC, their slices pointed at the renumbered PPS.
struct EncoderUnitRewriter {
    let codec: NALUnits.Codec
    let ids: HEVCRenumbering.Ids
    /// The encoder's sets as planned (renumbered).
    let sets: [ParameterSet]
    /// In band: the sets stay in the units, renumbered.
    var keepsSets = false

    /// The encoder's sets from its global header (Annex B), renumbered for HEVC; nil when they cannot be read
    /// or do not carry the planned ids (H.264: x264's `sps-id`).
    static func encoderSets(extradata: [UInt8], codec: NALUnits.Codec, ids: HEVCRenumbering.Ids) -> [ParameterSet]? {
        var sets: [ParameterSet] = []
        for unit in NALUnits.splitAnnexB(extradata) where NALUnits.isParameterSet(unit, codec: codec) {
            let bytes = codec == .hevc ? HEVCRenumbering.renumber(set: unit, to: ids) : Array(unit)
            guard let bytes, let set = ParameterSet.parse(bytes[...], codec: codec) else { return nil }
            let expected = set.kind == .vps ? ids.vps : set.kind == .sps ? ids.sps : ids.pps
            guard set.id == expected else { return nil }
            sets.append(set)
        }
        guard sets.contains(where: { $0.kind == .sps }), sets.contains(where: { $0.kind == .pps }) else { return nil }
        return sets
    }

    /// The unit as written: nil to drop it (a parameter set, which the record holds).
    func rewrite(_ unit: ArraySlice<UInt8>) throws -> [UInt8]? {
        if NALUnits.isParameterSet(unit, codec: codec) {
            let renumbered = codec == .hevc ? HEVCRenumbering.renumber(set: unit, to: ids) : Array(unit)
            guard let renumbered, sets.contains(where: { $0.unit == renumbered }) else {
                throw SampleEntryFailure(reason: "the encoder wrote a parameter set other than the one planned into the sample entry")
            }
            return keepsSets ? renumbered : nil
        }
        if codec == .hevc, NALUnits.isSlice(unit, codec: .hevc) {
            guard let slice = HEVCRenumbering.renumber(slice: unit, pps: ids.pps) else {
                throw SampleEntryFailure(reason: "an encoded slice header could not be renumbered")
            }
            return slice
        }
        return Array(unit)
    }
}
