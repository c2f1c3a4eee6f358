import CAV

/// A smart cut's video, in one pass over the packets from the plan's keyframe:
/// - the head decoder takes every packet from there through K1's leading pictures; its frames from the
///   frame at `start` up to K1 are re-encoded (the first shown from output time 0);
/// - packets from K1 up to K2 (decode order) are copied as they are (Annex B repackaged with lengths);
///   K1's leading pictures are left out;
/// - the tail decoder takes packets from where the tail can be decoded; its frames from the tail's
///   start to `end` are re-encoded.
/// Copied packets wait until the head is written, so decode times reach the muxer in order.
/// Parameter sets follow the plan's sample entry: out of band (avc1/hvc1) the record holds the source's
/// sets and the encoder's under ids of their own, and no sample holds any; in band (avc3/hev1) each part
/// carries its own, the source's put into K1's sample after the head.
final class SmartVideoWriter: VideoWriter {
    let outputIndex: Int
    private let stream: UnsafeMutablePointer<AVStream>
    private let output: OutputFile
    private let timeBase: AVRational
    private let plan: CutPlan
    private let video: VideoCut
    private let smart: SmartCutPlan
    private let encoderName: String
    private let shouldStop: @Sendable () -> Bool
    private let codec: NALUnits.Codec
    private let lengthSize: Int
    private let sourceParameterSets: [ArraySlice<UInt8>]
    private let repackager: SampleRepackager
    private let cleanStart: CleanStart
    private let rewriter: EncoderUnitRewriter?
    private var inBand: Bool { rewriter == nil }
    private var started = false
    private var finished = false
    private var head: Segment?
    private var tail: Segment?
    private var copying = false
    private var copied = 0
    private var waiting: [Packet] = []
    private let startFrame: StartFrameHold
    private let frame: Frame
    private var decodeErrors = 0
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    var notices: [CutNotice] { decodeErrors > 0 ? [.decodeErrors(count: decodeErrors)] : [] }

    /// One re-encoded part: its decoder and encoder.
    private struct Segment {
        let decoder: Decoder
        let encoder: SegmentEncoder
        var sawFirstCopied = false
    }

    init(input: InputFile, stream: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: CutPlan, video: VideoCut,
         smart: SmartCutPlan, encoderName: String, shouldStop: @escaping @Sendable () -> Bool) throws {
        self.shouldStop = shouldStop
        self.stream = stream
        cleanStart = CleanStart(stream: stream)
        self.output = output
        self.plan = plan
        self.video = video
        self.smart = smart
        startFrame = StartFrameHold(startTicks: video.shift)
        self.encoderName = encoderName
        timeBase = stream.pointee.time_base
        guard let parameters = stream.pointee.codecpar?.pointee, let entry = plan.sampleEntry, let sets = entry.sourceSets else {
            throw SampleEntryFailure(reason: "no sample entry was planned for the smart cut")
        }
        codec = sets.codec
        // Re-encoded units can outgrow short length fields: 4-byte lengths (the planner refuses other sizes
        // in a source record; Annex B gets them).
        lengthSize = 4
        sourceParameterSets = sets.record.map { $0.unit[...] }
        frame = try Frame()
        // Dolby Vision: the re-encoded edges carry none of its metadata, so the configuration is dropped and
        // the stream stays the HDR10/HLG base layer (note `dolby_vision_dropped`), whatever the muxer's mode.
        let out = try output.addCopy(of: stream, keepSideData: false)
        try output.copySideData(from: stream, to: out, except: AV_PKT_DATA_DOVI_CONF)
        var recordSets = sets.all
        if entry.placement == .outOfBand, let ids = entry.encoderIds {
            // The encoder's sets, as the head and tail encoders will write them, from one opened with a global
            // header before anything is muxed: the record is written with the header.
            let trial = try Encoder(name: encoderName, settings: SegmentEncoder.settings(
                name: encoderName, source: parameters, stream: stream, crf: plan.crf, preset: plan.preset, threads: plan.threads.encoder,
                spsId: codec == .h264 ? ids.sps : nil, globalHeader: true))
            let context = trial.codecContext.pointee
            let extradata = context.extradataBytes
            guard let encoderSets = EncoderUnitRewriter.encoderSets(extradata: extradata, codec: codec, ids: ids) else {
                throw SampleEntryFailure(reason: "\(encoderName)'s parameter sets cannot be read or renumbered")
            }
            rewriter = EncoderUnitRewriter(codec: codec, ids: ids, sets: encoderSets)
            recordSets += encoderSets
            repackager = SampleRepackager(codec: codec, sourceLengthSize: sets.lengthSize, outputLengthSize: lengthSize, recordSets: sets.all)
        } else {
            rewriter = nil
            repackager = SampleRepackager(codec: codec, sourceLengthSize: sets.lengthSize, outputLengthSize: lengthSize, recordSets: nil)
        }
        if entry.placement == .outOfBand || sets.isAnnexB {
            let extra = codec == .hevc ? sets.recordBytes.map { DecoderConfiguration.extraArrays(ofHEVCRecord: $0) } ?? [] : []
            guard let record = DecoderConfiguration.record(recordSets, codec: codec, lengthSize: lengthSize, extraArrays: extra) else {
                throw SampleEntryFailure(reason: "no configuration record can be made from the parameter sets")
            }
            try OutputFile.setExtradata(record, of: out)
        }
        out.pointee.codecpar.pointee.codec_tag = Self.tag(entry.type)
        outputIndex = Int(out.pointee.index)
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
            if smart.hasHead {
                // HEVC: an end of sequence closes the head, so the copied CRA starts a new coded video sequence
                // (its POC and the source's parameter sets begin afresh) rather than continuing x265's.
                head = try makeSegment(decodeDelay: smart.firstCopied.pts.minus(smart.firstCopied.dts),
                                       trailer: codec == .hevc ? [0x48, 0x01] : nil)
            }
        }
        latestPresentedEnd = max(latestPresentedEnd, timing.pts)
        if timing.isSame(as: video.lastNeeded) { reachedPlannedEnd = true }
        // Head: everything through K1's leading pictures; the first later packet ends it.
        if var current = head {
            if isPacket(timing, smart.firstCopied) { current.sawFirstCopied = true; head = current }
            if current.sawFirstCopied, timing.pts > smart.firstCopied.pts {
                try finishHead()
            } else {
                try current.decoder.decode(packet, into: frame, errors: &decodeErrors) { frame throws in try self.headFrame(frame) }
            }
        }
        // Tail: decoding starts where it can; its frames count from the tail's start.
        if tail == nil, smart.hasTail, isPacket(timing, smart.tailDecodeFrom) {
            tail = try makeSegment(decodeDelay: 0)
        }
        if let current = tail {
            var reachedEnd = false
            try current.decoder.decode(packet, into: frame, errors: &decodeErrors) { frame throws in
                reachedEnd = try self.tailFrame(frame, encoder: current.encoder) || reachedEnd
            }
            if reachedEnd {
                reachedPlannedEnd = true
                try finish()
                return true
            }
        }
        // Middle: copied from K1 up to K2 in decode order, K1's leading pictures left out.
        if isPacket(timing, smart.firstCopied) { copying = true }
        if !smart.copiesToEnd, isPacket(timing, smart.copyEnd) {
            copying = false
            if !smart.hasTail {
                reachedPlannedEnd = true
                try finish()
                return true
            }
        }
        if copying, timing.pts >= smart.firstCopied.pts {
            try copy(packet)
        }
        return false
    }

    func finish() throws {
        guard !finished else { return }
        if head != nil { try finishHead() }
        try flushWaiting()
        if let current = tail {
            try current.decoder.decode(nil, into: frame, errors: &decodeErrors) { frame throws in
                _ = try self.tailFrame(frame, encoder: current.encoder)
            }
            try current.encoder.finish(endPts: smart.end.minus(video.shift))
            tail = nil
        }
        finished = true
    }

    /// Encodes a tail frame in the tail's span; true once a frame at or past `end` came.
    private func tailFrame(_ decoded: Frame, encoder: SegmentEncoder) throws -> Bool {
        guard let tailStart = smart.tailStart else { return false }
        let timestamp = decoded.timestamp
        if timestamp >= smart.end { return true }
        if timestamp >= tailStart { try encoder.encode(decoded, outputPts: timestamp.minus(video.shift)) }
        return false
    }

    private func makeSegment(decodeDelay: Int64, trailer: [UInt8]? = nil) throws -> Segment {
        guard let parameters = stream.pointee.codecpar?.pointee else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar") }
        let decoder = try Decoder(stream: stream, threads: plan.threads.decoder, beginning: video.beginning)
        let encoder = try SegmentEncoder(name: encoderName, source: parameters, stream: stream, output: output, outputIndex: outputIndex,
                                         lengthSize: lengthSize, decodeDelay: max(0, decodeDelay), crf: plan.crf, preset: plan.preset,
                                         threads: plan.threads.encoder, trailer: trailer, rewriter: rewriter, shouldStop: shouldStop)
        return Segment(decoder: decoder, encoder: encoder)
    }

    /// Head frames: the one shown at `start` is encoded at output time 0, later ones after it.
    private func headFrame(_ decoded: Frame) throws {
        let timestamp = decoded.timestamp
        guard timestamp < smart.firstCopied.pts, let encoder = head?.encoder else { return }
        if try startFrame.take(decoded) { return }
        if let held = startFrame.release() { try encoder.encode(held, outputPts: 0) }
        try encoder.encode(decoded, outputPts: timestamp.minus(video.shift))
    }

    private func finishHead() throws {
        guard let current = head else { return }
        try current.decoder.decode(nil, into: frame, errors: &decodeErrors) { frame throws in try self.headFrame(frame) }
        if let held = startFrame.release() { try current.encoder.encode(held, outputPts: 0) }
        try current.encoder.finish(endPts: smart.firstCopied.pts.minus(video.shift))
        head = nil
        try flushWaiting()
    }

    /// Copies a packet; while the head is still being encoded it waits (its decode time is later).
    private func copy(_ packet: Packet) throws {
        packet.keepKeyframeFlagOnlyIfClean(cleanStart)
        let held = try packet.clone()
        // The x264 version SEI goes in while the sample is still in the source's form (Annex B or lengths).
        if copied == 0, video.carriesEncoderInfo { try held.setBytes(video.beginning.carried(into: held.bytes)) }
        if let repackaged = try held.withData({ try repackager.repackage($0) }) { try held.setBytes(repackaged) }
        if copied == 0, inBand {
            // Back to the source's parameter sets after the re-encoded head (avc3/hev1 allow in-band ones),
            // after an access unit delimiter if the sample starts with one (it must come first).
            let sets = NALUnits.lengthPrefixed(sourceParameterSets, lengthSize: lengthSize)
            let bytes = held.bytes
            let first = NALUnits.splitLengthPrefixed(bytes, lengthSize: lengthSize)?.first
            if let first, NALUnits.type(first, codec: codec) == (codec == .hevc ? 35 : 9) {
                let split = lengthSize + first.count
                try held.setBytes(Array(bytes[..<split]) + sets + Array(bytes[split...]))
            } else {
                try held.setBytes(sets + bytes)
            }
        }
        copied += 1
        held.pointer.pointee.pts = held.presentationTime
        held.shift(by: video.shift)
        waiting.append(held)
        if head == nil { try flushWaiting() }
    }

    private func flushWaiting() throws {
        for packet in waiting {
            try output.write(packet, stream: outputIndex, timeBase: timeBase)
        }
        waiting = []
    }
}
