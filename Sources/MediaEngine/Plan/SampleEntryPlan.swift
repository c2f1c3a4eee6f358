/// Which sample entry an H.264/HEVC video in MP4/MOV gets (or, for a smart cut, how Matroska's CodecPrivate or
/// MPEG-TS's byte stream holds its sets), and where its parameter sets go — decided before anything is written.
/// - Out of band (`avc1`/`hvc1`, the default): every set in the sample entry's record, none in the
///   samples (ISO/IEC 14496-15); what Apple's players and strict consumers need. A smart cut's re-encoded
///   parts get set ids no source set uses, so one record holds both.
/// - In band (`avc3`/`hev1`): sets stay in the samples, and a smart cut puts them there at each seam.
///   Asked for with `--sample-entry in-band`, or when the source changes a set's contents under the same
///   id inside the range (one record cannot hold both), with a warning.
/// - Matroska: the same two, the record in CodecPrivate (no sample entry type is written).
/// - MPEG-TS: always in band, Annex B; a smart cut's re-encoded parts keep their sets in band under the ids the
///   trial chose, so they never redefine a set the copied pictures use.
public struct SampleEntryPlan: Sendable, Equatable, Codable {
    public enum Placement: String, Sendable, Codable { case outOfBand = "out_of_band", inBand = "in_band" }

    public var type: String
    public var placement: Placement
    public var carriage: ParameterSetCarriage = .sampleEntry
    /// Copies and smart cuts: the source's sets the output's record holds (record first, then those met in
    /// band); nil for exact cuts, whose sets are the encoder's.
    public var sourceSets: SourceParameterSets?
    /// Smart cuts out of band: the ids the re-encoded parts' sets take.
    public var encoderIds: HEVCRenumbering.Ids?
    /// Smart cuts out of band: the encoder's parameter sets as the record holds them (renumbered), from
    /// the plan's one trial of the encoder; the head and tail encoders must write exactly these.
    public var encoderSets: [ParameterSet]?

    /// Out of band, the record vtrim writes, set by set in its order (`DecoderConfiguration.order`): the
    /// source's sets met in the range and a smart cut's encoder's. Nil in band (the record is the source's
    /// own) and where the encoder makes it (exact).
    public var record: [ParameterSet]? {
        guard let sourceSets, placement == .outOfBand else { return nil }
        return DecoderConfiguration.order(sourceSets.all + (encoderSets ?? []))
    }

    /// What the report says of each set in `record`: its kind, id and (VPS, SPS) profile and level.
    public var recordSummary: [(kind: ParameterSet.Kind, id: Int, profile: Int?, level: Int?)]? {
        guard let record, let codec = sourceSets?.codec else { return nil }
        return record.map { set in
            let coded = SPSProfile.profileAndLevel(of: set, codec: codec)
            return (set.kind, set.id, coded?.profile, coded?.level)
        }
    }

    public static func type(codec: NALUnits.Codec, placement: Placement, carriage: ParameterSetCarriage = .sampleEntry) -> String {
        switch carriage {
        case .sampleEntry: break
        case .codecPrivate: return placement == .outOfBand ? "codec_private" : "codec_private_in_band"
        case .annexB: return "annex_b"
        }
        switch (codec, placement) {
        case (.h264, .outOfBand): return "avc1"
        case (.h264, .inBand): return "avc3"
        case (.hevc, .outOfBand): return "hvc1"
        case (.hevc, .inBand): return "hev1"
        }
    }

    /// An exact cut's: its encoder's sets in the sample entry (a global header); nil for other encoders.
    static func exact(encoder: String?, requested: Placement) -> (SampleEntryPlan, CutNotice?)? {
        let codec: NALUnits.Codec
        switch encoder {
        case "libx264": codec = .h264
        case "libx265": codec = .hevc
        default: return nil
        }
        let type = type(codec: codec, placement: .outOfBand)
        return (SampleEntryPlan(type: type, placement: .outOfBand, sourceSets: nil, encoderIds: nil, encoderSets: nil),
                requested == .inBand ? .sampleEntry(type: type, reason: .exactOutOfBand) : nil)
    }

    /// The plan for a copy or smart cut, or why the sets stay in band. A smart cut's encoder ids and sets are
    /// the survey's trial's (`trial`, chosen from all the source's sets, so free in any part of them).
    static func choose(sets: SourceParameterSets, mode: CutMode, requested: Placement,
                       trial: (ids: HEVCRenumbering.Ids, sets: [ParameterSet])? = nil,
                       carriage: ParameterSetCarriage = .sampleEntry) -> (SampleEntryPlan, CutNotice?) {
        if carriage == .annexB {
            // A byte stream has no record: every set in band (the source's as they come, the encoder's renumbered).
            let ids = mode == .smart ? trial?.ids : nil
            return (SampleEntryPlan(type: type(codec: sets.codec, placement: .inBand, carriage: carriage), placement: .inBand,
                                    carriage: carriage, sourceSets: sets, encoderIds: ids, encoderSets: ids == nil ? nil : trial?.sets), nil)
        }
        var placement = requested
        var notice: CutNotice?
        var ids: HEVCRenumbering.Ids?
        if requested == .outOfBand {
            if let conflict = sets.conflict {
                placement = .inBand
                notice = .sampleEntry(type: type(codec: sets.codec, placement: .inBand, carriage: carriage),
                                      reason: .setChanges(kind: conflict.kind.rawValue.uppercased(), id: conflict.id, seconds: conflict.seconds))
            } else if mode == .smart {
                ids = trial?.ids
                if ids == nil {
                    placement = .inBand
                    notice = .sampleEntry(type: type(codec: sets.codec, placement: .inBand, carriage: carriage), reason: .noFreeIds)
                }
            }
        }
        return (SampleEntryPlan(type: type(codec: sets.codec, placement: placement, carriage: carriage), placement: placement,
                                carriage: carriage, sourceSets: sets,
                                encoderIds: ids, encoderSets: ids == nil ? nil : trial?.sets), notice)
    }
}

extension SampleEntryPlan {
    /// A range's sample entry: H.264/HEVC into MP4/MOV, and smart cuts into Matroska and MPEG-TS — an exact cut's
    /// from its encoder, a copy's or smart cut's from the sets its copied samples see (smart: K1 up to K2) — and the
    /// note when the sets stay in band; nil where the output names none.
    static func forRange(_ video: VideoFacts, mode: CutMode, cut: VideoCut, smart: SmartCutPlan?,
                         facts: CutFacts) -> (SampleEntryPlan, CutNotice?)? {
        guard let carriage = facts.container.parameterSetCarriage, facts.container.editLists || mode == .smart else { return nil }
        if mode == .exact { return exact(encoder: video.exactEncoder, requested: facts.sampleEntry) }
        return video.parameterSets.map { sets in
            let range = smart.map {
                sets.restricted(startDts: $0.firstCopied.dts, endDts: $0.copiesToEnd ? nil : $0.copiesThrough ? $0.copyEnd.dts.plus(1) : $0.copyEnd.dts)
            }
                ?? sets.restricted(startDts: cut.keyframe.dts, endDts: cut.lastNeeded.dts.plus(1))
            return choose(sets: range, mode: mode, requested: facts.sampleEntry, trial: video.smartTrial, carriage: carriage)
        }
    }
}
