/// A source's H.264/HEVC parameter sets: those of its configuration record (or, for Annex B, of its
/// extradata) and those met inside its samples over the range, with the first one that contradicts an
/// earlier set of the same id.
public struct SourceParameterSets: Sendable, Equatable, Codable {
    public var codec: NALUnits.Codec
    /// The record's sets, in its order.
    public var record: [ParameterSet]
    /// The source's configuration record (avcC/hvcC); nil for Annex B sources (MPEG-TS).
    @OptionalBase64Bytes public var recordBytes: [UInt8]? = nil
    /// NAL length size of the source's samples; nil for Annex B.
    public var lengthSize: Int?
    /// The source's sample entry type ("avc1", "hev1", …) or nil.
    public var sourceTag: String?
    /// Sets met inside samples whose ids the record lacks, in the order met.
    public private(set) var added: [ParameterSet] = []
    /// The first set met inside a sample whose id an earlier set has, with other contents.
    public private(set) var conflict: Conflict?
    /// Two sets of one id with different contents in the record itself (or the Annex B extradata).
    private var recordConflict: Conflict?
    /// Whether the range's samples were read for sets (sources that may carry them in band).
    public var scanned = false
    /// Sets met inside samples, in decode order: each one's first appearance and every change.
    public private(set) var occurrences: [Occurrence] = []

    public struct Occurrence: Sendable, Equatable, Codable {
        public var set: ParameterSet
        /// The sample's decode time (stream ticks) and presentation time (seconds, for messages).
        public var dts: Int64
        public var seconds: Double?
    }

    public struct Conflict: Sendable, Equatable, Codable {
        public var kind: ParameterSet.Kind
        public var id: Int
        public var seconds: Double?
    }

    public var isAnnexB: Bool { lengthSize == nil }
    /// Every set the output's record would hold from the source.
    public var all: [ParameterSet] { record + added }

    public init(codec: NALUnits.Codec, record: [ParameterSet], recordBytes: [UInt8]?, lengthSize: Int?, sourceTag: String?) {
        self.codec = codec
        self.record = record
        self.recordBytes = recordBytes
        self.lengthSize = lengthSize
        self.sourceTag = sourceTag
    }

    /// A set read from a sample while scanning (kept when it is new or changes).
    mutating func scanned(_ set: ParameterSet, dts: Int64, seconds: Double?) {
        if let last = occurrences.last(where: { $0.set.kind == set.kind && $0.set.id == set.id }), last.set.unit == set.unit { return }
        occurrences.append(Occurrence(set: set, dts: dts, seconds: seconds))
    }

    /// The sets as the samples from decode time `startDts` up to `endDts` (exclusive; nil: the end) see
    /// them: the record, with the versions met up to the first sample in place of its own; sets met later
    /// added, and the first that changes a version under the same id as the conflict.
    func restricted(startDts: Int64, endDts: Int64?) -> SourceParameterSets {
        var result = self
        result.occurrences = []
        result.added = []
        result.conflict = recordConflict
        for occurrence in occurrences where occurrence.dts <= startDts {
            if let index = result.record.firstIndex(where: { $0.kind == occurrence.set.kind && $0.id == occurrence.set.id }) {
                result.record[index] = occurrence.set
            } else {
                result.record.append(occurrence.set)
            }
        }
        for occurrence in occurrences where occurrence.dts > startDts && endDts.map({ occurrence.dts < $0 }) ?? true {
            result.meet(occurrence.set, seconds: occurrence.seconds)
        }
        return result
    }

    /// A set met in a sample at `seconds`: known, new (added) or contradicting (the first is kept).
    mutating func meet(_ set: ParameterSet, seconds: Double?) {
        if let known = all.first(where: { $0.kind == set.kind && $0.id == set.id }) {
            if known.unit != set.unit, conflict == nil { conflict = Conflict(kind: set.kind, id: set.id, seconds: seconds) }
        } else {
            added.append(set)
        }
    }

    /// Ids for the re-encoded parts' sets that no source set uses: H.264 one SPS/PPS id (x264 gives its PPS
    /// its SPS's id); HEVC a VPS and SPS id, and a PPS id in 15…30, whose code is 8 bits longer than x265's
    /// 0. Nil when none is free.
    public var freeEncoderIds: HEVCRenumbering.Ids? {
        func used(_ kind: ParameterSet.Kind) -> Set<Int> { Set(all.filter { $0.kind == kind }.map(\.id)) }
        switch codec {
        case .h264:
            let taken = used(.sps).union(used(.pps))
            guard let id = (Array(1...31) + [0]).first(where: { !taken.contains($0) }) else { return nil }
            return HEVCRenumbering.Ids(vps: 0, sps: id, pps: id)
        case .hevc:
            guard let vps = (1...15).first(where: { !used(.vps).contains($0) }),
                  let sps = (1...15).first(where: { !used(.sps).contains($0) }),
                  let pps = (15...30).first(where: { !used(.pps).contains($0) }) else { return nil }
            return HEVCRenumbering.Ids(vps: vps, sps: sps, pps: pps)
        }
    }

    /// The sets of an avcC/hvcC record, or of Annex B extradata.
    static func read(extradata: [UInt8], codec: NALUnits.Codec, tag: String?) -> SourceParameterSets? {
        let record = extradata.first == 1 ? NALUnits.configuration(extradata, codec: codec) : nil
        if extradata.first == 1, record == nil { return nil }
        var source = SourceParameterSets(codec: codec, record: [], recordBytes: record == nil ? nil : extradata,
                                         lengthSize: record?.lengthSize, sourceTag: tag)
        // Declarative SEI arrays of an hvcC are carried over as they are (DecoderConfiguration.extraArrays).
        let units = (record?.parameterSets ?? NALUnits.splitAnnexB(extradata)).filter { NALUnits.isParameterSet($0, codec: codec) }
        for unit in units {
            // A set that cannot be read (or of a layer above the base) could not be placed in a new record.
            guard let set = ParameterSet.parse(unit, codec: codec) else { return nil }
            source.meet(set, seconds: nil)
        }
        source.record = source.added
        source.recordConflict = source.conflict
        source.added = []
        return source
    }
}
