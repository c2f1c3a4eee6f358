import CAV

/// A smart cut's video. Its two edges are encoded on threads of their own (`SmartEdge`), each from its own
/// reading of the source: the head (the frames from the one shown at `start` up to K1, the first shown from
/// output time 0) and the tail (the frames from the tail's start to `end`). The main pass reads the packets
/// from the plan's keyframe: at K1 it writes the head's packets, then copies the packets from K1 up to K2
/// (decode order; Annex B repackaged with lengths; K1's leading pictures left out); at K2 it writes the tail's.
/// Both edges are encoded as the plan's `Reencoding` says; parameter sets follow the plan's sample entry:
/// out of band (avc1/hvc1, Matroska's CodecPrivate) the record holds the source's sets and the encoder's (the
/// plan's trial's) under ids of their own, and no sample holds any; in band (avc3/hev1) each part carries its
/// own, the source's put into K1's sample after the head. MPEG-TS (Annex B) is in band, the encoder's sets
/// under the trial's ids, and every copied keyframe that carries no sets gets the source's.
/// Matroska stores no decode times: the edges have no B-frames, so they reorder no deeper than the source.
final class SmartVideoWriter: VideoWriter {
    let outputIndex: Int
    private let output: OutputFile
    private let timeBase: AVRational
    /// The output's video stream (the source stream's facts) and this range's cut of it.
    private let stream: OutputVideo
    private let video: VideoCut
    private let smart: SmartCutPlan
    private let shouldStop: @Sendable () -> Bool
    private let cleanStart: CleanStart
    /// H.264/HEVC: how the samples and the parameter sets are put together; nil for the frame-spliced codecs (VP8,
    /// VP9, AV1), whose copied and re-encoded packets are written as they are.
    private let units: NALForm?
    private var started = false
    private var finished = false
    private var head: SmartEdge?
    private var tail: SmartEdge?
    private var reachedCopyEnd = false
    private var copying = false
    private var copied = 0
    /// Packets written so far, and the last one's decode time (output ticks), for `DecodeGrid`.
    private var packetsWritten = 0, lastDecodeTime: Int64?
    /// MPEG-2: K1's temporal_reference while the copy is in K1's GOP and its leading pictures were left out (`closing`).
    private var renumberingFrom: Int?
    /// MPEG-2 packets without a decode time (Matroska's first after a seek): derived as a copy cut derives them.
    private var decodeTimes: DecodeTimeFill
    private var decodeErrors = 0
    /// How much further ahead of its presentation a copied packet decodes than in the source (source ticks), at most,
    /// and the output time of the first that does: one decode delay for a join, or the grid, moves decode times earlier.
    private(set) var decodeAheadGrowth: (ticks: Int64, atOutputTicks: Int64)?
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    var notices: [CutNotice] { decodeErrors > 0 ? [.decodeErrors(count: decodeErrors)] : [] }

    /// A range's edges, started (their threads running) before its writer is made.
    struct Edges {
        var head: SmartEdge?
        var tail: SmartEdge?

        /// Stops both (the edit failed before their range) and waits for their threads.
        func cancel() {
            head?.cancel()
            tail?.cancel()
        }
    }

    /// `joining`: the output stream an earlier range of a join set up (same sample entry), else a new one.
    /// `startedEdges`: this range's edges, started early by a join (while the range before it was written).
    init(input: InputFile, source: UnsafeMutablePointer<AVStream>, file: OutputFile, output plan: OutputPlan, range: RangePlan,
         joining: Int? = nil, startedEdges: Edges? = nil, slots: EdgeSlots, edgeFrames: EdgeFrames? = nil, shouldStop: @escaping @Sendable () -> Bool) throws {
        guard let stream = plan.video, let video = range.video, let smart = range.smart else {
            throw SampleEntryFailure(reason: "the smart plan has no edges; nothing written")
        }
        self.shouldStop = shouldStop
        cleanStart = CleanStart(stream: source)
        output = file
        self.stream = stream
        self.video = video
        self.smart = smart
        timeBase = source.pointee.time_base
        decodeTimes = DecodeTimeFill(delay: stream.decodeDelayFrames)
        if let entry = plan.sampleEntry {
            guard let sets = entry.sourceSets else { throw SampleEntryFailure(reason: "no parameter sets were planned for the smart cut") }
            units = NALForm(entry: entry, sets: sets)
            outputIndex = try joining ?? Self.addStream(stream: source, output: file, entry: entry, sets: sets, codec: sets.codec,
                                                        lengthSize: NALForm.lengthSize, keepsDolbyVision: stream.dolbyVision != nil)
        } else {
            guard let codecpar = source.pointee.codecpar?.pointee, SmartEncoding.splicesFrames(codecpar.codec_id) else {
                throw SampleEntryFailure(reason: "no sample entry was planned for the smart cut")
            }
            units = nil
            outputIndex = try joining ?? Self.addFramesStream(stream: source, output: file, configuration: stream.streamConfiguration,
                                                              keepsDolbyVision: stream.dolbyVision != nil)
        }
        let edges = try startedEdges ?? Self.startEdges(path: input.path, output: plan, range: range, slots: slots, edgeFrames: edgeFrames,
                                                        shouldStop: shouldStop)
        head = edges.head
        tail = edges.tail
    }

    /// Starts encoding a range's edges on threads of their own (nil for an edge the range does not have): what
    /// `init` does, and what a join does for the next range while this one is written, so the cores stay busy.
    /// `edgeFrames`: pictures a scene pass kept, which a head they cover encodes rather than decoding them again.
    static func startEdges(path: String, output plan: OutputPlan, range: RangePlan, slots: EdgeSlots, edgeFrames: EdgeFrames? = nil,
                           shouldStop: @escaping @Sendable () -> Bool) throws -> Edges {
        guard let stream = plan.video, let video = range.video, let smart = range.smart, let reencoding = plan.reencoding else {
            throw SampleEntryFailure(reason: "no encoding was planned for the smart cut")
        }
        let units: (sets: SourceParameterSets, rewriter: EncoderUnitRewriter?)?
        if let entry = plan.sampleEntry {
            guard let sets = entry.sourceSets else { return Edges() }
            units = (sets, try NALForm.rewriter(entry, sets: sets))
        } else {
            guard SmartEncoding.splicesFrames(named: stream.codec) else { return Edges() }
            units = nil
        }
        func start(_ part: SmartEdge.Part) -> SmartEdge {
            SmartEdge(SmartEdge.Work(part: part, path: path, streamIndex: stream.streamIndex, video: video, smart: smart, reencoding: reencoding,
                                     beginning: stream.beginning, decoderThreads: plan.threads.decoder,
                                     lengthSize: units == nil ? nil : NALForm.lengthSize, rewriter: units?.rewriter,
                                     trailer: part == .head && units?.sets.codec == .hevc ? [0x48, 0x01] : nil,
                                     header: stream.edgeHeader, codec: stream.codec, carriesRPU: stream.dolbyVision != nil,
                                     carriesHDR10Plus: stream.hdr10Plus, kept: part == .head ? edgeFrames : nil),
                      slots: slots, shouldStop: shouldStop)
        }
        return Edges(head: smart.hasHead ? start(.head) : nil, tail: smart.hasTail ? start(.tail) : nil)
    }


    /// A frame-spliced codec's output stream: the source's parameters, with the configuration the plan rewrote from
    /// the in-stream header (AV1's sequence header) where it did; Dolby Vision's configuration only where the plan keeps it.
    private static func addFramesStream(stream: UnsafeMutablePointer<AVStream>, output: OutputFile, configuration: [UInt8]?,
                                        keepsDolbyVision: Bool) throws -> Int {
        let out = try output.addCopy(of: stream, keepSideData: false)
        try output.copySideData(from: stream, to: out, except: keepsDolbyVision ? nil : AV_PKT_DATA_DOVI_CONF)
        if let configuration { try OutputFile.setExtradata(configuration, of: out) }
        return Int(out.pointee.index)
    }

    /// The output's video stream with the planned sample entry. Dolby Vision's configuration only where the plan keeps
    /// it (the edges carry each frame's RPU); otherwise the stream stays its base layer (note `dolby_vision_dropped`).
    private static func addStream(stream: UnsafeMutablePointer<AVStream>, output: OutputFile, entry: SampleEntryPlan,
                                  sets: SourceParameterSets, codec: NALUnits.Codec, lengthSize: Int, keepsDolbyVision: Bool) throws -> Int {
        let out = try output.addCopy(of: stream, keepSideData: false)
        try output.copySideData(from: stream, to: out, except: keepsDolbyVision ? nil : AV_PKT_DATA_DOVI_CONF)
        if entry.carriage == .annexB {
            // The muxer puts its extradata before a keyframe without sets: the source's, as a byte stream (the
            // writer puts them there first, so this is a stand-by).
            try OutputFile.setExtradata(NALUnits.annexB(sets.all.map { $0.unit[...] }), of: out)
        } else if entry.placement == .outOfBand || sets.isAnnexB {
            // In band from Annex B (MPEG-TS): a record of the source's sets, which the samples repeat.
            let recordSets = entry.record ?? sets.all
            let extra = codec == .hevc ? sets.recordBytes.map { DecoderConfiguration.extraArrays(ofHEVCRecord: $0) } ?? [] : []
            guard let record = DecoderConfiguration.record(recordSets, codec: codec, lengthSize: lengthSize, extraArrays: extra) else {
                throw SampleEntryFailure(reason: "no configuration record can be made from the parameter sets")
            }
            try OutputFile.setExtradata(record, of: out)
        }
        // Only MP4/MOV name the sample entry; Matroska and MPEG-TS take no tag.
        out.pointee.codecpar.pointee.codec_tag = entry.carriage == .sampleEntry ? Self.tag(entry.type) : 0
        return Int(out.pointee.index)
    }

    deinit {
        // A cut that failed before K1 or K2 stops the edges' threads rather than leaving them running.
        head?.cancel()
        tail?.cancel()
    }

    static func tag(_ text: String) -> UInt32 {
        text.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    private func isPacket(_ timing: VideoPacket, _ key: VideoPacket) -> Bool {
        timing.isKeyframe && timing.pts == key.pts
    }

    func consume(_ packet: Packet) throws -> Bool {
        if finished { return true }
        let timing = packet.timing
        if !started {
            guard timing.isSame(as: video.keyframe) else { return false }
            started = true
        }
        // Copying stops before K2: the tail (if any) covers the rest.
        if !smart.copiesToEnd, !smart.copiesThrough, isPacket(timing, smart.copyEnd) {
            reachedCopyEnd = true
            try finish()
            return true
        }
        latestPresentedEnd = max(latestPresentedEnd, timing.pts)
        if timing.isSame(as: video.lastNeeded) { reachedPlannedEnd = true }
        // Middle: copied from K1 up to K2 in decode order, after the head; K1's leading pictures left out.
        if isPacket(timing, smart.firstCopied) {
            try writeHead()
            copying = true
        }
        if copying, timing.pts >= smart.firstCopied.pts {
            try copy(packet)
        }
        // One clean start: copying ends with the last packet the range shows.
        if smart.copiesThrough, timing.isSame(as: smart.copyEnd) {
            reachedCopyEnd = true
            reachedPlannedEnd = true
            try finish()
            return true
        }
        return false
    }

    func finish() throws {
        guard !finished else { return }
        finished = true
        try writeHead()
        if !smart.copiesToEnd, !smart.hasTail, reachedCopyEnd { reachedPlannedEnd = true }
        guard let running = tail else { return }
        tail = nil
        let outcome = try running.join().get()
        decodeErrors += outcome.decodeErrors
        // The input ended before K2 (reported as an early end): the tail is not joined to what was copied.
        guard reachedCopyEnd else { return }
        guard outcome.positioned else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "seek to the smart cut's tail")
        }
        for packet in outcome.packets {
            try emit(try packet.packet())
        }
        if outcome.reachedEnd { reachedPlannedEnd = true }
        latestPresentedEnd = max(latestPresentedEnd, outcome.latestPresentedEnd)
    }

    /// The head's packets, once (their decode times come before K1's).
    private func writeHead() throws {
        guard let running = head else { return }
        head = nil
        let outcome = try running.join().get()
        decodeErrors += outcome.decodeErrors
        guard outcome.positioned else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "seek to the smart cut's head")
        }
        for packet in outcome.packets {
            try emit(try packet.packet())
        }
    }

    /// Writes an edge's packet in the output's form: length-prefixed, or (MPEG-TS) as a byte stream.
    private func emit(_ packet: Packet) throws {
        if let units, units.annexB { try packet.setBytes(try units.annexBSample(packet.bytes)) }
        try write(packet)
    }

    /// Every packet (output ticks) to the muxer, its decode time on the plan's grid where it has one. `sourceAhead`: a
    /// copied packet's own presentation − decode time in the source, which the written one is measured against.
    private func write(_ packet: Packet, sourceAhead: Int64? = nil) throws {
        if let grid = video.decodeGrid, packet.pts != CAV_NOPTS_VALUE {
            let dts = grid.decodeTime(index: packetsWritten, start: video.outputStart.value, pts: packet.pts, previous: lastDecodeTime)
            packet.pointer.pointee.dts = dts
            lastDecodeTime = dts
        }
        if let sourceAhead, packet.pts != CAV_NOPTS_VALUE, packet.dts != CAV_NOPTS_VALUE {
            let growth = packet.pts.minus(packet.dts).minus(sourceAhead)
            if growth > (decodeAheadGrowth?.ticks ?? 0) { decodeAheadGrowth = (growth, decodeAheadGrowth?.atOutputTicks ?? packet.pts) }
        }
        packetsWritten += 1
        try output.write(packet, stream: outputIndex, timeBase: timeBase)
    }

    /// Copies a packet (after the head's).
    private func copy(_ packet: Packet) throws {
        packet.keepKeyframeFlagOnlyIfClean(cleanStart)
        let sourceAhead = packet.dts == CAV_NOPTS_VALUE ? nil : packet.presentationTime.minus(packet.dts)
        let held = try packet.clone()
        if let units {
            // The x264 version SEI goes in while the sample is still in the source's form (Annex B or lengths).
            if copied == 0, video.carriesEncoderInfo { try held.setBytes(stream.beginning.carried(into: held.bytes)) }
            try units.prepare(held, first: copied == 0)
        } else if held.dts == CAV_NOPTS_VALUE {
            // VP8, VP9, AV1: no reordering in a sample's order (hidden frames travel inside the sample that shows them);
            // MPEG-2's B-frames reorder.
            held.pointer.pointee.dts = stream.codec == "mpeg2video"
                ? decodeTimes.decodeTime(pts: held.presentationTime, duration: held.pointer.pointee.duration) : held.presentationTime
        }
        if stream.codec == "mpeg2video", smart.leadingDropped > 0 { try closing(held) }
        copied += 1
        held.pointer.pointee.pts = held.presentationTime
        // Copied through: the last frame shown lasts until the range's end (the next source frame), as a tail's would.
        if smart.copiesThrough, let last = smart.copyLastShown, held.pts == last, smart.end > last {
            held.pointer.pointee.duration = smart.end.minus(last)
        }
        // One decode delay for the whole join (`copiedDecodeLead`): the bytes as they are, decoded earlier.
        if video.copiedDecodeLead > 0, held.dts != CAV_NOPTS_VALUE { held.pointer.pointee.dts = held.dts.minus(video.copiedDecodeLead) }
        held.shift(by: video.packetShift)
        try write(held, sourceAhead: sourceAhead)
    }
}

extension SmartVideoWriter {
    /// MPEG-2: K1's GOP lost its leading B-frames (they referred to the GOP before, which the head replaced): its header
    /// is marked closed (`closed_gop` 1, `broken_link` 0) and its pictures renumbered from 0, so a reader neither
    /// expects the B-frames nor mis-places the rest. Measured: spliced as they were, the leading B-frames decode without
    /// an error but wrong; closed, every frame from the I-frame on is the source's.
    fileprivate func closing(_ held: Packet) throws {
        var bytes = held.bytes
        if copied == 0 {
            guard let closed = MPEG2Video.closingFirstGOP(bytes), let picture = MPEG2Video.firstPicture(in: bytes) else {
                throw SampleEntryFailure(reason: "the first copied MPEG-2 picture opens no GOP")
            }
            bytes = closed
            renumberingFrom = picture.temporalReference
        } else if MPEG2Video.units(in: bytes).contains(where: { $0.code == MPEG2Video.groupStart }) {
            renumberingFrom = nil
        }
        guard let base = renumberingFrom else { return }
        try held.setBytes(MPEG2Video.renumberingPictures(bytes, by: base))
    }
}

/// How a smart cut's H.264/HEVC samples are put together: the copied ones repackaged with 4-byte lengths (Annex B
/// ones converted), the source's parameter sets put back in band where the plan places them there, the encoder's
/// units renumbered to the ids the plan gave its sets; MPEG-TS written as an Annex B byte stream.
private struct NALForm {
    let codec: NALUnits.Codec
    /// Re-encoded units can outgrow short length fields: 4-byte lengths (the planner refuses other sizes in a source
    /// record; Annex B gets them).
    static let lengthSize = 4
    var lengthSize: Int { Self.lengthSize }
    let sourceParameterSets: [ArraySlice<UInt8>]
    let repackager: SampleRepackager
    let inBand: Bool
    /// MPEG-TS: samples are written as an Annex B byte stream (built length-prefixed, converted last).
    let annexB: Bool

    init(entry: SampleEntryPlan, sets: SourceParameterSets) {
        codec = sets.codec
        sourceParameterSets = sets.record.map { $0.unit[...] }
        inBand = entry.placement == .inBand
        annexB = entry.carriage == .annexB
        repackager = SampleRepackager(codec: codec, sourceLengthSize: sets.lengthSize, outputLengthSize: Self.lengthSize,
                                      recordSets: entry.placement == .outOfBand ? sets.all : nil)
    }

    /// What renumbers the encoder's units to the ids the plan gave its sets (out of band: the record's, the sets
    /// dropped from the samples; MPEG-TS: kept in band); nil where the encoder's own ids stand (avc3/hev1).
    static func rewriter(_ entry: SampleEntryPlan, sets: SourceParameterSets) throws -> EncoderUnitRewriter? {
        guard let ids = entry.encoderIds, let encoderSets = entry.encoderSets else {
            guard entry.placement == .inBand else {
                throw SampleEntryFailure(reason: "the plan puts the parameter sets out of band without the encoder's sets")
            }
            return nil
        }
        return EncoderUnitRewriter(codec: sets.codec, ids: ids, sets: encoderSets, keepsSets: entry.placement == .inBand)
    }

    /// A copied sample in the output's form. Back to the source's parameter sets after the re-encoded head (avc3/hev1
    /// allow in-band ones; `first`: the first copied sample), and in a byte stream before every keyframe without
    /// them (a reader may start there).
    func prepare(_ held: Packet, first: Bool) throws {
        func needsSets(lengthSize: Int?) -> Bool {
            inBand && (first || (annexB && held.isKeyframe && !hasSequenceSet(held, lengthSize: lengthSize)))
        }
        if annexB, repackager.sourceLengthSize == nil {
            // A byte stream into a byte stream: the sample as it is, sets put in where needed.
            if needsSets(lengthSize: nil) { try held.setBytes(withSourceSets(held.bytes, lengthSize: nil)) }
        } else {
            if let repackaged = try held.withData({ try repackager.repackage($0) }) { try held.setBytes(repackaged) }
            if needsSets(lengthSize: lengthSize) { try held.setBytes(withSourceSets(held.bytes, lengthSize: lengthSize)) }
            if annexB { try held.setBytes(try annexBSample(held.bytes)) }
        }
    }

    /// Whether a sample (length-prefixed, or Annex B when `lengthSize` is nil) holds a sequence parameter set.
    private func hasSequenceSet(_ packet: Packet, lengthSize: Int?) -> Bool {
        let sps = codec == .hevc ? 33 : 7
        return packet.withData { bytes in
            (NALUnits.unitRanges(bytes, lengthSize: lengthSize) ?? []).contains { NALUnits.type(ofUnitStartingWith: bytes[$0.lowerBound], codec: codec) == sps }
        }
    }

    /// The sample with the source's parameter sets first — after an access unit delimiter if it starts with one
    /// (that must come first) — in its own form (length-prefixed, or Annex B when `lengthSize` is nil).
    private func withSourceSets(_ bytes: [UInt8], lengthSize: Int?) throws -> [UInt8] {
        guard let units = lengthSize.map({ NALUnits.splitLengthPrefixed(bytes, lengthSize: $0) }) ?? NALUnits.splitAnnexB(bytes) else {
            throw SampleEntryFailure(reason: "a sample's NAL unit lengths do not add up")
        }
        let delimiter = units.first.map { NALUnits.type($0, codec: codec) == (codec == .hevc ? 35 : 9) } ?? false
        let ordered = Array(units.prefix(delimiter ? 1 : 0)) + sourceParameterSets + Array(units.dropFirst(delimiter ? 1 : 0))
        return lengthSize.map { NALUnits.lengthPrefixed(ordered, lengthSize: $0) } ?? NALUnits.annexB(ordered)
    }

    /// A length-prefixed sample as an Annex B byte stream.
    func annexBSample(_ bytes: [UInt8]) throws -> [UInt8] {
        guard let units = NALUnits.splitLengthPrefixed(bytes, lengthSize: lengthSize) else {
            throw SampleEntryFailure(reason: "a sample's NAL unit lengths do not add up")
        }
        return NALUnits.annexB(units)
    }
}
