import CAV

/// What a smart cut's re-encoded head and tail must match in the source, and whether they can.
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
    /// `spsId`: x264's SPS and PPS id (its PPS takes the SPS's), so its sets sit beside the source's in one
    /// record; nil for x264's default 0.
    static func options(name: String, source: AVCodecParameters, crf: Int, preset: String, threads: Int, spsId: Int? = nil) -> [String: String] {
        var options = ["crf": String(crf), "preset": preset]
        if name == "libx264", losslessH264(source) {
            // A lossless source (transform bypass) gets a lossless head and tail: the quality it was made
            // with, and parameter sets of the same kind — FFmpeg's decoder mis-decodes the copied lossless
            // frames after a switch from a lossy High profile SPS under the same id (checked: ~5 dB).
            options["crf"] = nil
            options["qp"] = "0"
        }
        if let profile = profile(name: name, source: source) { options["profile"] = profile }
        if name == "libx264" {
            if source.level > 0 { options["level"] = "\(source.level / 10).\(source.level % 10)" }
            options["x264-params"] = "bframes=0:keyint=100000:min-keyint=100000:scenecut=0" + (spsId.map { ":sps-id=\($0)" } ?? "")
        } else {
            // wpp=0: no entry points in slice headers, so their PPS id can be renumbered (HEVCRenumbering).
            var parameters = ["log-level=error", "bframes=0", "keyint=100000", "min-keyint=100000", "scenecut=0", "repeat-headers=1", "wpp=0"]
            if source.level > 0 { parameters.append("level-idc=\(source.level / 30).\(source.level % 30 / 3)") }
            options["x265-params"] = EncoderChoice.x265Parameters(parameters, threads: threads)
        }
        return options
    }

    /// Whether an H.264 source's first SPS sets qpprime_y_zero_transform_bypass_flag (lossless coding).
    static func losslessH264(_ source: AVCodecParameters) -> Bool {
        let record = source.extradataBytes
        guard source.codec_id == AV_CODEC_ID_H264, record.count > 6, record[0] == 1 else { return false }
        guard let sps = NALUnits.configuration(record, codec: .h264)?.parameterSets.first(where: { NALUnits.type($0, codec: .h264) == 7 }) else {
            return false
        }
        var bits = RBSPBits(Array(sps.dropFirst()))
        guard let profile = bits.read(8), bits.read(16) != nil, bits.readUE() != nil else { return false }
        guard [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) else { return false }
        guard let chroma = bits.readUE() else { return false }
        if chroma == 3, bits.read(1) == nil { return false }
        guard bits.readUE() != nil, bits.readUE() != nil, let bypass = bits.read(1) else { return false }
        return bypass == 1
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

    /// Why this source cannot be smart-cut into `output`, or nil when it can.
    static func refusal(_ source: AVCodecParameters, output: OutputFormat) -> SmartFallback? {
        guard let name = encoder(for: source.codec_id) else { return .codec(Probe.codecName(source.codec_id)) }
        guard output.supportsEditLists else { return .container(output.name) }
        let format = AVPixelFormat(rawValue: source.format)
        guard Encoder.pixelFormats(name).contains(format), profile(name: name, source: source) != nil else {
            return .pixelFormat(FFmpegText.string(av_get_pix_fmt_name(format)) ?? "?")
        }
        guard source.field_order == AV_FIELD_PROGRESSIVE || source.field_order == AV_FIELD_UNKNOWN else { return .interlaced }
        // Annex B (MPEG-TS): the copied samples are repackaged with 4-byte lengths.
        let record = source.extradataBytes
        guard record.count > 6, record[0] == 1 else { return nil }
        guard let configuration = NALUnits.configuration(record, codec: source.codec_id == AV_CODEC_ID_HEVC ? .hevc : .h264) else {
            return .configurationRecord
        }
        // Re-encoded units can outgrow 1- or 2-byte length fields; the copied samples keep theirs.
        guard configuration.lengthSize == 4 else { return .lengthSize(configuration.lengthSize) }
        return nil
    }
}

/// Encodes one re-encoded part of a smart cut (the head or the tail) so that it joins the copied
/// packets: same codec, size, pixel format, colour, time base, profile and level (no higher), no
/// B-frames (its decode times are set one reorder delay early, so they stay below the copied ones), and
/// its own parameter sets in-band before its IDR, or (out of band) in the record under ids of their own.
/// Packets come out length-prefixed like MP4's.
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
    private var durations = FrameDurations()
    private(set) var frames = 0
    private let shouldStop: @Sendable () -> Bool

    /// Out of band: drops the encoder's parameter sets and renumbers HEVC slices; nil keeps them in band.
    private let rewriter: EncoderUnitRewriter?

    init(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, output: OutputFile, outputIndex: Int,
         lengthSize: Int, decodeDelay: Int64, crf: Int, preset: String, threads: Int, trailer: [UInt8]? = nil,
         rewriter: EncoderUnitRewriter?, shouldStop: @escaping @Sendable () -> Bool) throws {
        self.rewriter = rewriter
        self.trailer = trailer
        self.shouldStop = shouldStop
        self.output = output
        self.outputIndex = outputIndex
        self.timeBase = stream.pointee.time_base
        self.lengthSize = lengthSize
        self.decodeDelay = decodeDelay
        packet = try Packet()
        encoder = try Encoder(name: name, settings: Self.settings(name: name, source: source, stream: stream, crf: crf, preset: preset,
                                                                  threads: threads, spsId: rewriter.map { $0.codec == .h264 ? $0.ids.sps : nil } ?? nil))
    }

    /// The encoder set up like the source (size, SAR, pixel format, colour, frame rate, time base).
    static func settings(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, crf: Int, preset: String,
                         threads: Int, spsId: Int? = nil, globalHeader: Bool = false) -> Encoder.Settings {
        var settings = Encoder.Settings(source: source, stream: stream, pixelFormat: AVPixelFormat(rawValue: source.format),
                                        threads: threads, globalHeader: globalHeader)
        settings.options = EncoderChoice.withHDRMetadata(SmartEncoding.options(name: name, source: source, crf: crf, preset: preset, threads: threads,
                                                                               spsId: spsId),
                                                         encoder: name, stream: stream)
        return settings
    }

    /// Why the encoder refuses these settings (e.g. a level the source mislabels, too low for its
    /// picture size), found before anything is written; nil when it opens.
    static func trialRefusal(name: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, crf: Int,
                             preset: String) -> SmartFallback? {
        var trial = settings(name: name, source: source, stream: stream, crf: crf, preset: preset, threads: 1)
        // x265 logs on its own; the refusal is reported as a warning instead.
        trial.options["x265-params"] = trial.options["x265-params"]?.replacingOccurrences(of: "log-level=error", with: "log-level=none")
        do {
            _ = try Encoder(name: name, settings: trial)
            return nil
        } catch {
            return .encoderRefused(encoder: name, detail: error.text)
        }
    }

    /// Encodes a decoded frame shown at `outputPts` (output ticks).
    func encode(_ frame: Frame, outputPts: Int64) throws {
        durations.frameSent(at: outputPts)
        frame.pointer.pointee.pts = outputPts
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        frame.pointer.pointee.key_frame = 0
        frames += 1
        try encoder.send(frame)
        try drain()
        frame.unref()
    }

    /// Flushes the encoder; the last frame lasts until `endPts` (output ticks).
    func finish(endPts: Int64) throws {
        durations.close(at: endPts)
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
            if shouldStop() { throw CutInterrupted() }
            // Annex B with in-band parameter sets → length-prefixed, as the copied samples are; out of band,
            // without the sets (the record holds them).
            var units = NALUnits.splitAnnexB(packet.bytes)
            if let rewriter { units = try units.compactMap { try rewriter.rewrite($0).map { $0[...] } } }
            try packet.setBytes(NALUnits.lengthPrefixed(units, lengthSize: lengthSize))
            packet.pointer.pointee.dts = packet.pts.minus(decodeDelay)
            durations.apply(to: packet)
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
