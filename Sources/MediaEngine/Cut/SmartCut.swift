import CAV

/// What a smart cut does, for reports and `--dry-run` (seconds on the source's timeline).
public struct SmartCutSummary: Sendable, Equatable {
    public var headSeconds: ClosedRange<Double>?
    public var copiedSeconds: ClosedRange<Double>
    public var tailSeconds: ClosedRange<Double>?
    public var firstCopiedKeyframeSeconds: Double
    public var lastKeyframeSeconds: Double
    /// The sample entry written (`avc3`/`hev1`: parameter sets in-band, which the seams need).
    public var sampleEntry: String
}

/// Encodes one re-encoded segment of a smart cut (the head or the tail) so that it joins the copied
/// packets: same codec, size, pixel format, colour, time base, profile and level (no higher), no
/// B-frames (its decode times are set one reorder delay early, so they stay below the copied ones), and
/// its own parameter sets in-band before its IDR. Packets come out length-prefixed like MP4's.
final class SegmentEncoder {
    private let encoder: Encoder
    private let output: OutputFile
    private let outputIndex: Int
    private let timeBase: AVRational
    private let lengthSize: Int
    /// A NAL unit appended to the last packet (HEVC's end of sequence after the head), or nil.
    private let trailer: [UInt8]?
    private var lastPacket: Packet?
    /// Subtracted from presentation times to make decode times (the source's reorder delay at the seam).
    private let decodeDelay: Int64
    private let packet: Packet
    private var lastPts: Int64?
    private var durations: [Int64: Int64] = [:]
    private(set) var frames = 0

    init(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, output: OutputFile, outputIndex: Int,
         lengthSize: Int, decodeDelay: Int64, crf: Int, preset: String, threads: Int, trailer: [UInt8]? = nil) throws {
        self.trailer = trailer
        self.output = output
        self.outputIndex = outputIndex
        self.timeBase = stream.pointee.time_base
        self.lengthSize = lengthSize
        self.decodeDelay = decodeDelay
        packet = try Packet()
        encoder = try Encoder(name: name, settings: Self.settings(name: name, source: source, stream: stream, crf: crf, preset: preset,
                                                                  threads: threads))
    }

    /// The encoder set up like the source (size, SAR, pixel format, colour, frame rate, time base).
    static func settings(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, crf: Int, preset: String,
                         threads: Int) -> Encoder.Settings {
        var sar = av_guess_sample_aspect_ratio(nil, stream, nil)
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        return Encoder.Settings(
            width: source.width, height: source.height, pixelFormat: AVPixelFormat(rawValue: source.format),
            timeBase: stream.pointee.time_base, frameRate: rate, sampleAspectRatio: sar,
            colorRange: source.color_range, colorPrimaries: source.color_primaries, colorTransfer: source.color_trc,
            colorSpace: source.color_space, chromaLocation: source.chroma_location,
            globalHeader: false, threads: threads, options: SmartEncoding.options(name: name, source: source, crf: crf, preset: preset))
    }

    /// Why the encoder refuses these settings (e.g. a level the source mislabels, too low for its
    /// picture size), found before anything is written; nil when it opens.
    static func trialRefusal(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, crf: Int,
                             preset: String) -> String? {
        var trial = settings(name: name, source: source, stream: stream, crf: crf, preset: preset, threads: 1)
        // x265 logs on its own; the refusal is reported as a warning instead.
        trial.options["x265-params"] = trial.options["x265-params"]?.replacingOccurrences(of: "log-level=error", with: "log-level=none")
        do {
            _ = try Encoder(name: name, settings: trial)
            return nil
        } catch {
            return "\(name) will not encode with the source's profile and level at its picture size and rate (\(error.text))"
        }
    }

    /// Encodes a decoded frame shown at `outputPts` (output ticks).
    func encode(_ frame: Frame, outputPts: Int64) throws {
        if let previous = lastPts { durations[previous] = outputPts - previous }
        frame.pointer.pointee.pts = outputPts
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        frame.pointer.pointee.key_frame = 0
        lastPts = outputPts
        frames += 1
        try encoder.send(frame)
        try drain()
        frame.unref()
    }

    /// Flushes the encoder; the last frame lasts until `endPts` (output ticks).
    func finish(endPts: Int64) throws {
        if let last = lastPts { durations[last] = max(1, endPts - last) }
        try encoder.send(nil)
        try drain()
        if let last = lastPacket, let trailer {
            lastPacket = nil
            try last.setBytes(last.bytes + NALUnits.lengthPrefixed([trailer[...]], lengthSize: lengthSize))
            try output.write(last, stream: outputIndex, timeBase: timeBase)
        }
    }

    private func drain() throws {
        while try encoder.receive(into: packet) {
            // Annex B with in-band parameter sets → length-prefixed, as the copied samples are.
            let units = NALUnits.splitAnnexB(packet.bytes)
            try packet.setBytes(NALUnits.lengthPrefixed(units, lengthSize: lengthSize))
            packet.pointer.pointee.dts = packet.pts - decodeDelay
            if let duration = durations[packet.pts] { packet.pointer.pointee.duration = duration }
            if trailer != nil {
                // Held back one packet, so the trailer can join the last one.
                if let previous = lastPacket { try output.write(previous, stream: outputIndex, timeBase: timeBase) }
                lastPacket = try packet.clone()
            } else {
                try output.write(packet, stream: outputIndex, timeBase: timeBase)
            }
        }
    }
}

enum SmartEncoding {
    /// libx264 / libx265 for H.264 / HEVC; nil for anything else (the cut falls back to exact).
    static func encoder(for codec: AVCodecID) -> String? {
        switch codec {
        case AV_CODEC_ID_H264: return avcodec_find_encoder_by_name("libx264") != nil ? "libx264" : nil
        case AV_CODEC_ID_HEVC: return avcodec_find_encoder_by_name("libx265") != nil ? "libx265" : nil
        default: return nil
        }
    }

    /// Options that match the source: profile and level no higher, no B-frames, one IDR at the start.
    static func options(name: String, source: AVCodecParameters, crf: Int, preset: String) -> [String: String] {
        var options = ["crf": String(crf), "preset": preset]
        if let profile = profile(name: name, source: source) { options["profile"] = profile }
        if name == "libx264" {
            if source.level > 0 { options["level"] = "\(source.level / 10).\(source.level % 10)" }
            options["x264-params"] = "bframes=0:keyint=100000:min-keyint=100000:scenecut=0"
        } else {
            var parameters = "log-level=error:bframes=0:keyint=100000:min-keyint=100000:scenecut=0:repeat-headers=1"
            if source.level > 0 { parameters += ":level-idc=\(source.level / 30).\(source.level % 30 / 3)" }
            options["x265-params"] = parameters
        }
        return options
    }

    /// The encoder's profile for the source's profile and pixel format (no higher than the source's),
    /// or nil when the encoder has none that matches.
    static func profile(name: String, source: AVCodecParameters) -> String? {
        let format = AVPixelFormat(rawValue: source.format)
        let depth = Int(av_pix_fmt_desc_get(format)?.pointee.comp.0.depth ?? 8)
        let chroma = av_pix_fmt_desc_get(format).map { ($0.pointee.log2_chroma_w, $0.pointee.log2_chroma_h) } ?? (1, 1)
        if name == "libx264" {
            let sourceProfile = FFmpegText.string(avcodec_profile_name(source.codec_id, source.profile))?.lowercased() ?? ""
            let names = ["constrained baseline": "baseline", "baseline": "baseline", "main": "main", "high": "high",
                         "high 10": "high10", "high 4:2:2": "high422", "high 4:4:4 predictive": "high444"]
            return names[sourceProfile]
        }
        switch (chroma.0, chroma.1, depth) {
        case (1, 1, 8): return "main"
        case (1, 1, 10): return "main10"
        case (1, 0, 10): return "main422-10"
        case (0, 0, 8): return "main444-8"
        case (0, 0, 10): return "main444-10"
        default: return nil
        }
    }

    /// Whether the encoder takes this pixel format as it is (no conversion that would change the picture).
    static func supports(_ name: String, _ format: AVPixelFormat) -> Bool {
        guard let codec = avcodec_find_encoder_by_name(name), var formats = codec.pointee.pix_fmts else { return false }
        while formats.pointee != AV_PIX_FMT_NONE {
            if formats.pointee == format { return true }
            formats += 1
        }
        return false
    }

    /// Why this source cannot be smart-cut, or nil when it can.
    static func refusal(_ source: AVCodecParameters, output: OutputFile) -> String? {
        guard encoder(for: source.codec_id) != nil else {
            return "smart cuts handle H.264 and HEVC (with libx264/libx265); this video is \(Probe.codecName(source.codec_id))"
        }
        guard output.supportsEditLists else { return "smart cuts are written to MP4/MOV; \(output.formatName) is not" }
        let format = AVPixelFormat(rawValue: source.format)
        guard let name = encoder(for: source.codec_id), supports(name, format),
              profile(name: name, source: source) != nil else {
            return "the encoder cannot match the pixel format \(FFmpegText.string(av_get_pix_fmt_name(format)) ?? "?") and profile of the source"
        }
        guard source.field_order == AV_FIELD_PROGRESSIVE || source.field_order == AV_FIELD_UNKNOWN else {
            return "interlaced video cannot be joined seamlessly"
        }
        guard let extradata = source.extradata, source.extradata_size > 6, extradata[0] == 1 else {
            return "the source carries the video as an Annex B stream (as MPEG-TS does), which smart cuts do not repackage yet"
        }
        let record = Array(UnsafeBufferPointer(start: extradata, count: Int(source.extradata_size)))
        guard let configuration = NALUnits.configuration(record, codec: source.codec_id == AV_CODEC_ID_HEVC ? .hevc : .h264) else {
            return "the source's \(source.codec_id == AV_CODEC_ID_HEVC ? "hvcC" : "avcC") configuration record cannot be read"
        }
        // Re-encoded units can outgrow 1- or 2-byte length fields; the copied samples keep theirs.
        guard configuration.lengthSize == 4 else {
            return "the source's NAL units carry \(configuration.lengthSize)-byte lengths; smart cuts join only 4-byte ones"
        }
        return nil
    }
}

/// A smart cut's video, in one pass over the packets from the keyframe before `start`:
/// - the head decoder takes every packet from there through K1's leading pictures; its frames from the
///   frame at `start` up to K1 are re-encoded (the first shown from output time 0);
/// - packets from K1 up to K2 (decode order) are copied as they are, the source's parameter sets put
///   in-band in K1's sample (the head carried its own); K1's leading pictures are left out;
/// - the tail decoder takes packets from where the tail can be decoded; its frames from the tail's
///   start to `end` are re-encoded.
/// Copied packets wait until the head is written, so decode times reach the muxer in order.
final class SmartVideoSink: VideoSink {
    private let input: InputFile
    private let stream: UnsafeMutablePointer<AVStream>
    private let output: OutputFile
    let outputIndex: Int
    private let timeBase: AVRational
    private let plan: CutPlan
    private let smart: SmartCutPlan
    private let spec: CutSpec
    private let encoderName: String
    private let codec: NALUnits.Codec
    private let lengthSize: Int
    private let sourceParameterSets: [ArraySlice<UInt8>]
    private var started = false
    private var finished = false
    private var head: Segment?
    private var tail: Segment?
    private var copying = false
    private var copied = 0
    private var waiting: [Packet] = []
    private var lastCopiedDts = Int64.min
    private let startFrame: StartFrameHold
    private let frame: Frame
    private var decodeErrors = 0
    var notes: [String] = []
    var warnings: [MediaWarning] {
        decodeErrors > 0 ? [MediaWarning(code: "decode_errors", message: "\(decodeErrors) packet(s) could not be decoded while re-encoding")] : []
    }

    /// One re-encoded part: its decoder and encoder.
    private struct Segment {
        let decoder: Decoder
        let encoder: SegmentEncoder
        var sawFirstCopied = false
    }

    init(input: InputFile, stream: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: CutPlan, smart: SmartCutPlan,
         spec: CutSpec, encoderName: String) throws {
        self.input = input
        self.stream = stream
        self.output = output
        self.plan = plan
        self.smart = smart
        startFrame = StartFrameHold(startTicks: plan.shift)
        self.spec = spec
        self.encoderName = encoderName
        timeBase = stream.pointee.time_base
        guard let parameters = stream.pointee.codecpar?.pointee, let extradata = parameters.extradata else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar")
        }
        codec = parameters.codec_id == AV_CODEC_ID_HEVC ? .hevc : .h264
        let record = Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.extradata_size)))
        guard let configuration = NALUnits.configuration(record, codec: codec) else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "parse avcC/hvcC")
        }
        lengthSize = configuration.lengthSize
        sourceParameterSets = configuration.parameterSets
        frame = try Frame()
        let out = try output.addCopy(of: stream)
        // avc3/hev1: parameter sets may change in-band, as they do at each seam.
        out.pointee.codecpar.pointee.codec_tag = codec == .h264 ? Self.tag("avc3") : Self.tag("hev1")
        outputIndex = Int(out.pointee.index)
    }

    static func tag(_ text: String) -> UInt32 {
        text.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    private var startTicks: Int64 { plan.shift }

    private func isPacket(_ timing: CutPlan.VideoPacket, _ key: CutPlan.VideoPacket) -> Bool {
        timing.isKeyframe && timing.pts == key.pts
    }

    func consume(_ packet: Packet) throws -> Int64? {
        if finished { return micro(smart.end) }
        let timing = packet.timing
        if !started {
            guard isPacket(timing, plan.keyframe) else { return nil }
            started = true
            if smart.hasHead {
                // HEVC: an end of sequence closes the head, so the copied CRA starts a new coded video sequence
                // (its POC and the source's parameter sets begin afresh) rather than continuing x265's.
                head = try makeSegment(name: "head", decodeDelay: smart.firstCopied.pts &- smart.firstCopied.dts,
                                       trailer: codec == .hevc ? [0x48, 0x01] : nil)
            }
        }
        // Head: everything through K1's leading pictures; the first later packet ends it.
        if var current = head {
            if isPacket(timing, smart.firstCopied) { current.sawFirstCopied = true; head = current }
            if current.sawFirstCopied, timing.pts > smart.firstCopied.pts {
                try finishHead()
            } else {
                try decode(packet, with: current.decoder) { frame throws in try self.headFrame(frame) }
            }
        }
        // Tail: decoding starts where it can; its frames count from the tail's start.
        if tail == nil, smart.hasTail, isPacket(timing, smart.tailDecodeFrom) {
            tail = try makeSegment(name: "tail", decodeDelay: 0)
        }
        if let current = tail, let tailStart = smart.tailStart {
            var reachedEnd = false
            try decode(packet, with: current.decoder) { frame throws in
                let timestamp = frame.timestamp
                if reachedEnd || timestamp < tailStart { return }
                if timestamp >= self.smart.end { reachedEnd = true; return }
                try current.encoder.encode(frame, outputPts: timestamp - self.startTicks)
            }
            if reachedEnd { return try finish() }
        }
        // Middle: copied from K1 up to K2 in decode order, K1's leading pictures left out.
        if isPacket(timing, smart.firstCopied) { copying = true }
        if !smart.copiesToEnd, isPacket(timing, smart.copyEnd) {
            copying = false
            if !smart.hasTail { return try finish() }
        }
        if copying, timing.pts >= smart.firstCopied.pts {
            try copy(packet)
        }
        return nil
    }

    func finish() throws -> Int64 {
        guard !finished else { return micro(smart.end) }
        if head != nil { try finishHead() }
        try flushWaiting()
        if let current = tail, let tailStart = smart.tailStart {
            try drain(current.decoder) { frame throws in
                let timestamp = frame.timestamp
                if timestamp >= tailStart, timestamp < self.smart.end {
                    try current.encoder.encode(frame, outputPts: timestamp - self.startTicks)
                }
            }
            try current.encoder.finish(endPts: smart.end - startTicks)
            notes.append("re-encoded \(current.encoder.frames) frame(s) from \(seconds(tailStart)) s to the end")
            tail = nil
        }
        finished = true
        return micro(smart.end)
    }

    private func micro(_ ticks: Int64) -> Int64 { av_rescale_q(ticks, timeBase, cav_time_base_q()) }

    private func makeSegment(name: String, decodeDelay: Int64, trailer: [UInt8]? = nil) throws -> Segment {
        guard let parameters = stream.pointee.codecpar?.pointee else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar") }
        let decoder = try Decoder(stream: stream, threads: spec.encoderThreads)
        let encoder = try SegmentEncoder(name: encoderName, source: parameters, stream: stream, output: output, outputIndex: outputIndex,
                                         lengthSize: lengthSize, decodeDelay: max(0, decodeDelay), crf: spec.crf, preset: spec.preset,
                                         threads: spec.encoderThreads, trailer: trailer)
        return Segment(decoder: decoder, encoder: encoder)
    }

    /// Head frames: the one shown at `start` is encoded at output time 0, later ones after it.
    private func headFrame(_ decoded: Frame) throws {
        let timestamp = decoded.timestamp
        guard timestamp < smart.firstCopied.pts, let encoder = head?.encoder else { return }
        if try startFrame.take(decoded) { return }
        if let held = startFrame.release() { try encoder.encode(held, outputPts: 0) }
        try encoder.encode(decoded, outputPts: timestamp - startTicks)
    }

    private func finishHead() throws {
        guard let current = head else { return }
        try drain(current.decoder) { frame throws in try self.headFrame(frame) }
        if let held = startFrame.release() { try current.encoder.encode(held, outputPts: 0) }
        try current.encoder.finish(endPts: smart.firstCopied.pts - startTicks)
        notes.append("re-encoded \(current.encoder.frames) frame(s) up to the keyframe at \(seconds(smart.firstCopied.pts)) s")
        head = nil
        try flushWaiting()
    }

    private func seconds(_ ticks: Int64) -> String {
        let origin = input.format.pointee.start_time == CAV_NOPTS_VALUE ? 0 : input.format.pointee.start_time
        return FrameSampler.text(Double(micro(ticks) - origin) / Double(AV_TIME_BASE))
    }

    /// Copies a packet; while the head is still being encoded it waits (its decode time is later).
    private func copy(_ packet: Packet) throws {
        let held = try packet.clone()
        if copied == 0 {
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
        let pts = held.pts != CAV_NOPTS_VALUE ? held.pts : held.dts
        held.pointer.pointee.pts = pts - startTicks
        if held.dts != CAV_NOPTS_VALUE { held.pointer.pointee.dts = held.dts - startTicks }
        waiting.append(held)
        if head == nil { try flushWaiting() }
    }

    private func flushWaiting() throws {
        for packet in waiting {
            lastCopiedDts = max(lastCopiedDts, packet.dts)
            try output.write(packet, stream: outputIndex, timeBase: timeBase)
        }
        waiting = []
    }

    private func decode(_ packet: Packet, with decoder: Decoder, _ handle: (Frame) throws -> Void) throws {
        var sent = false
        while !sent {
            do {
                switch try decoder.send(packet) {
                case .accepted, .drained: sent = true
                case .full: break
                }
            } catch {
                decodeErrors += 1
                sent = true
            }
            try receive(decoder, handle)
        }
    }

    private func drain(_ decoder: Decoder, _ handle: (Frame) throws -> Void) throws {
        _ = try? decoder.send(nil)
        try receive(decoder, handle)
    }

    private func receive(_ decoder: Decoder, _ handle: (Frame) throws -> Void) throws {
        while true {
            let result: Decoder.ReceiveResult
            do { result = try decoder.receive(into: frame) } catch {
                decodeErrors += 1
                continue
            }
            guard result == .frame else { return }
            try handle(frame)
        }
    }
}
