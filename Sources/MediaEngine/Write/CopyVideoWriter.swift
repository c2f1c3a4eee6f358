import CAV

/// Stream copy of the video: every packet from the plan's keyframe through the last one it needs, in
/// decode order, shifted by the plan's offset. Leading pictures of an open GOP at the keyframe (shown
/// before it, referencing the group before) are left out: they would not decode, and lie before the start.
final class CopyVideoWriter: VideoWriter {
    let outputIndex: Int
    private let output: OutputFile
    private let timeBase: AVRational
    private let video: VideoCut
    /// What the stream's first access unit tells decoders: the first copied one may carry it.
    private let beginning: StreamBeginning
    private var started = false, written = false
    /// This range's first packet is the output's first (a join's later ranges follow others).
    private let opensOutput: Bool
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    var notices: [CutNotice] {
        guard let kept = repackager?.keptUnknownSets, kept > 0 else { return [] }
        return [.setsKeptInSamples(count: kept)]
    }
    /// Puts samples in the sample entry's form (Annex B to lengths, sets out of band); nil copies them as they are.
    private let repackager: SampleRepackager?
    private let cleanStart: CleanStart
    private var decodeTimes: DecodeTimeFill

    init(file: OutputFile, outputIndex: Int, source: UnsafeMutablePointer<AVStream>, stream: OutputVideo, video: VideoCut,
         repackager: SampleRepackager?, opensOutput: Bool) {
        self.repackager = repackager
        self.opensOutput = opensOutput
        output = file
        self.outputIndex = outputIndex
        timeBase = source.pointee.time_base
        self.video = video
        beginning = stream.beginning
        cleanStart = CleanStart(stream: source)
        decodeTimes = DecodeTimeFill(delay: stream.decodeDelayFrames)
    }

    func consume(_ packet: Packet) throws -> Bool {
        let timing = packet.timing
        if !started {
            guard timing.isSame(as: video.keyframe) else { return false }
            started = true
            if video.carriesEncoderInfo { try packet.setBytes(beginning.carried(into: packet.bytes)) }
        }
        if timing.pts < video.keyframe.pts, !timing.isKeyframe { return false }
        // The output's first packet keeps its flag whatever it is: with no sample flagged, MP4 writes no sync-sample
        // table, which says every sample is one, and readers then start decoding wherever an edit points.
        if written || !opensOutput { packet.keepKeyframeFlagOnlyIfClean(cleanStart) }
        written = true
        if let repackager, let bytes = try packet.withData({ try repackager.repackage($0) }) { try packet.setBytes(bytes) }
        latestPresentedEnd = max(latestPresentedEnd, timing.pts.plus(max(0, timing.duration)))
        // A missing presentation time (AVI) takes the decode time; a missing decode time (Matroska's first
        // blocks) is derived from the presentation times, afresh for each range.
        packet.pointer.pointee.pts = timing.pts
        if packet.dts == CAV_NOPTS_VALUE { packet.pointer.pointee.dts = decodeTimes.decodeTime(pts: timing.pts, duration: timing.duration) }
        packet.shift(by: video.packetShift)
        try output.write(packet, stream: outputIndex, timeBase: timeBase)
        if timing.isSame(as: video.lastNeeded) {
            reachedPlannedEnd = true
            return true
        }
        return false
    }

    func finish() throws {}

    /// Gives the output stream the planned sample entry. Out of band, a source whose samples may hold sets
    /// (Annex B, avc3/hev1) gets a record of every set met in the range and its samples repackaged; an
    /// avc1/hvc1 source keeps its record, and the copies of its sets some writers repeat in samples are
    /// dropped; a set the record lacks (joined files) stays in its sample, with a run-time `sample_entry`
    /// warning (the record was written with the header).
    /// In band, the sets stay where they are (FFmpeg's muxer turns Annex B into lengths itself).
    static func applySampleEntry(_ entry: SampleEntryPlan?, to out: UnsafeMutablePointer<AVStream>) throws -> SampleRepackager? {
        guard let entry, let sets = entry.sourceSets else { return nil }
        out.pointee.codecpar.pointee.codec_tag = SmartVideoWriter.tag(entry.type)
        guard entry.placement == .outOfBand else { return nil }
        guard sets.isAnnexB || sets.scanned else {
            return SampleRepackager(codec: sets.codec, sourceLengthSize: sets.lengthSize, outputLengthSize: sets.lengthSize ?? 4,
                                    recordSets: sets.all, keepsUnknownSets: true)
        }
        let lengthSize = sets.lengthSize ?? 4
        let extra = sets.codec == .hevc ? sets.recordBytes.map { DecoderConfiguration.extraArrays(ofHEVCRecord: $0) } ?? [] : []
        guard let record = DecoderConfiguration.record(sets.all, codec: sets.codec, lengthSize: lengthSize, extraArrays: extra) else {
            throw SampleEntryFailure(reason: "no configuration record can be made from the source's parameter sets")
        }
        try OutputFile.setExtradata(record, of: out)
        return SampleRepackager(codec: sets.codec, sourceLengthSize: sets.lengthSize, outputLengthSize: lengthSize, recordSets: sets.all)
    }
}
