import CAV

/// What a smart cut's re-encoded head and tail must match in the source, and whether they can.
enum SmartEncoding {
    /// The encoders that may make a codec's edges, in the order tried: libx264 / libx265 for H.264 / HEVC, libvpx
    /// for VP8, libvpx-vp9 for VP9, libsvtav1 then libaom-av1 for AV1 (the first whose sequence header matches the
    /// source's is used: `SmartTrial`), FFmpeg's mpeg2video for MPEG-2; none for anything else (the cut falls back
    /// to exact).
    static func candidates(for codec: AVCodecID) -> [String] {
        let names: [String]
        switch codec {
        case AV_CODEC_ID_H264: names = ["libx264"]
        case AV_CODEC_ID_HEVC: names = ["libx265"]
        case AV_CODEC_ID_VP8: names = ["libvpx"]
        case AV_CODEC_ID_VP9: names = ["libvpx-vp9"]
        case AV_CODEC_ID_AV1: names = ["libsvtav1", "libaom-av1"]
        case AV_CODEC_ID_MPEG2VIDEO: names = ["mpeg2video"]
        default: names = []
        }
        return names.filter { avcodec_find_encoder_by_name($0) != nil }
    }

    static func encoder(for codec: AVCodecID) -> String? { candidates(for: codec).first }

    /// Codecs spliced as whole frames — no parameter sets or NAL units: what a decoder must know comes with each
    /// keyframe (VP8, VP9) or in a sequence header the edges repeat field for field (AV1, MPEG-2).
    static func splicesFrames(_ codec: AVCodecID) -> Bool {
        [AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1, AV_CODEC_ID_MPEG2VIDEO].contains(codec)
    }

    /// The frame-spliced codecs by the names a plan gives them.
    static func splicesFrames(named codec: String) -> Bool {
        ["vp8", "vp9", "av1", "mpeg2video"].contains(codec)
    }

    /// What of the source its edges' encoder must match: read once by the survey, used by the planner.
    struct Match: Sendable, Equatable {
        var encoder: String
        /// The encoder's profile name (no higher than the source's), or nil.
        var profile: String?
        /// The source's level_idc (0: unknown).
        var level: Int
        /// An H.264 source coded losslessly (transform bypass).
        var lossless: Bool
        /// x265 parameters carrying the source's HDR10 metadata (empty otherwise).
        var hdrParameters: [String]
        /// The reorder depth (frames) the edges' SPS must declare though they have no B-frames: the source's for
        /// x264 edges in Matroska, which stores no decode times — FFmpeg's demuxer derives them with the depth the
        /// first SPS declares, so a shallower edge there misorders every copied B-frame after it. 0 elsewhere.
        var declaredReorder = 0
        /// Options that make the encoder's stream-level header the source's (AV1: its sequence header's tools).
        var headerOptions: [String: String] = [:]

        init(encoder: String, profile: String?, level: Int, lossless: Bool, hdrParameters: [String], declaredReorder: Int = 0) {
            self.encoder = encoder
            self.profile = profile
            self.level = level
            self.lossless = lossless
            self.hdrParameters = hdrParameters
            self.declaredReorder = declaredReorder
        }

        init(encoder: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>) {
            self.encoder = encoder
            profile = SmartEncoding.profile(name: encoder, source: source)
            level = Int(source.level)
            lossless = encoder == "libx264" && SmartEncoding.losslessH264(source)
            hdrParameters = encoder == "libx265" ? HDRMetadata.x265Parameters(stream) : []
        }
    }

    /// Options that match the source: profile and level no higher, no B-frames, one IDR at the start.
    /// `spsId`: x264's SPS and PPS id (its PPS takes the SPS's), so its sets sit beside the source's in one
    /// record; nil for x264's default 0. Pure: the planner calls it.
    /// `edgeFrames`: the longest edge's frames; the encoder looks no further ahead than that (each frame of
    /// lookahead holds a picture: ~6 MiB at 1080p in x264), nil for the preset's own lookahead.
    static func options(_ match: Match, crf: Int, preset: String, threads: Int, spsId: Int? = nil,
                        edgeFrames: Int? = nil) -> [String: String] {
        let name = match.encoder
        if !["libx264", "libx265"].contains(name) {
            // One keyframe at the edge's start (the first frame is sent as I), every other frame predicted.
            var options = EncoderChoice.options(for: name, crf: crf, preset: preset, threads: threads)
            // An edge is at most a GOP, and both run at once: it is made at the encoder's faster speeds, spending a few
            // per cent more bits for the same quality (measured on 1 s of 1080p VP9 at the same CRF: realtime speed 8
            // 49.1 dB in 1.2 s, good speed 6 49.0 dB in 6.1 s; libsvtav1 at preset 12 and CRF 22 rather than 9 and 26:
            // 46.9 against 47.5 dB, 2.2× faster).
            switch name {
            case "libvpx-vp9":
                options["deadline"] = "realtime"
                options["cpu-used"] = String(EncoderChoice.speed(preset, slowest: 5, fastest: 9))
            case "libsvtav1":
                options["preset"] = String(EncoderChoice.speed(preset, slowest: 9, fastest: 13))
                options["crf"] = String(max(1, crf + 6))
            default:
                break
            }
            // The trial's options exactly (its header is the one checked), so no lookahead sized to the edge here.
            // mpeg2video takes no interval over 600 frames (it lowers it, with a warning); an edge is one GOP.
            options["g"] = name == "mpeg2video" ? "600" : "100000"
            return options.merging(match.headerOptions) { $1 }
        }
        let lookahead = edgeFrames.flatMap { frames in
            lookaheadFrames(encoder: name, preset: preset).flatMap { frames < $0 ? max(1, frames) : nil }
        }
        var options = ["crf": String(crf), "preset": preset]
        if match.lossless {
            // A lossless source (transform bypass) gets a lossless head and tail: the quality it was made
            // with, and parameter sets of the same kind — FFmpeg's decoder mis-decodes the copied lossless
            // frames after a switch from a lossy High profile SPS under the same id (checked: ~5 dB).
            options["crf"] = nil
            options["qp"] = "0"
        }
        if let profile = match.profile { options["profile"] = profile }
        if name == "libx264" {
            if match.level > 0 { options["level"] = "\(match.level / 10).\(match.level % 10)" }
            // x264 declares a reorder depth of 1 with B-frames, 2 with a B-pyramid; the edges' frames after the
            // first are sent as P (`FrameEncoder`), so none is reordered whatever the SPS allows.
            let bframes = match.declaredReorder <= 0 ? "bframes=0" : match.declaredReorder == 1 ? "bframes=1:b-pyramid=none" : "bframes=3:b-pyramid=normal"
            options["x264-params"] = EncoderChoice.x264Parameters([bframes, "keyint=100000", "min-keyint=100000", "scenecut=0"]
                + (spsId.map { ["sps-id=\($0)"] } ?? []) + (lookahead.map { ["rc-lookahead=\($0)"] } ?? []))
        } else {
            // wpp=0: no entry points in slice headers, so their PPS id can be renumbered (HEVCRenumbering).
            var parameters = ["log-level=error", "bframes=0", "keyint=100000", "min-keyint=100000", "scenecut=0", "repeat-headers=1", "wpp=0"]
            if match.level > 0 { parameters.append("level-idc=\(match.level / 30).\(match.level % 30 / 3)") }
            if let lookahead { parameters.append("rc-lookahead=\(lookahead)") }
            options["x265-params"] = (EncoderChoice.x265Parameters(parameters, threads: threads).split(separator: ":").map(String.init)
                                      + match.hdrParameters).joined(separator: ":")
        }
        return options
    }

    /// The preset's own lookahead (frames), from x264's and x265's preset tables; nil for a preset not listed
    /// (its own is kept).
    static func lookaheadFrames(encoder: String, preset: String) -> Int? {
        let x264 = ["ultrafast": 0, "superfast": 0, "veryfast": 10, "faster": 20, "fast": 30, "medium": 40, "slow": 50,
                    "slower": 60, "veryslow": 60, "placebo": 60]
        let x265 = ["ultrafast": 5, "superfast": 10, "veryfast": 15, "faster": 15, "fast": 15, "medium": 20, "slow": 25,
                    "slower": 40, "veryslow": 40, "placebo": 60]
        return (encoder == "libx264" ? x264 : x265)[preset]
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
        if let refusal = EditDefaults.smartRefusal(codec: source.codec_id, muxer: output) { return refusal }
        guard let name = encoder(for: source.codec_id) else { return .codec(Probe.codecName(source.codec_id)) }
        if splicesFrames(source.codec_id) {
            let format = AVPixelFormat(rawValue: source.format)
            guard candidates(for: source.codec_id).contains(where: { Encoder.pixelFormats($0).contains(format) }) else {
                return .pixelFormat(FFmpegText.string(av_get_pix_fmt_name(format)) ?? "?")
            }
            return nil
        }
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
/// packets: the plan's encoder and options (same codec, profile and level no higher, no B-frames), the
/// source's size, pixel format, colour, time base; decode times set one reorder delay early so they stay
/// below the copied ones; its own parameter sets in band before its IDR, or (out of band) dropped, the
/// record holding them under ids of their own. Packets come out length-prefixed like MP4's, to `write`.
final class SegmentEncoder {
    private let frames: FrameEncoder
    private let sink: Sink
    var framesEncoded: Int { frames.framesSent }

    /// - Parameters:
    ///   - trailer: a NAL unit appended to the last packet (HEVC's end of sequence after the head), or nil.
    ///   - rewriter: out of band, drops the encoder's parameter sets and renumbers HEVC slices; nil keeps them.
    /// `lengthSize`: H.264/HEVC packets are written with NAL lengths of this size; nil (VP8, VP9, AV1) as encoded.
    /// `metadata`: each frame's Dolby Vision RPU and HDR10+, put into the access unit shown at its time; nil carries none.
    init(reencoding: Reencoding, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, lengthSize: Int?, decodeDelay: Int64,
         trailer: [UInt8]? = nil, rewriter: EncoderUnitRewriter?, metadata: FrameMetadataCarrier? = nil,
         shouldStop: @escaping @Sendable () -> Bool,
         write: @escaping (Packet) throws -> Void) throws {
        let settings = Self.settings(encoder: reencoding.encoder, source: source, stream: stream, options: reencoding.options,
                                     threads: reencoding.threads)
        let encoder = try Encoder(name: reencoding.encoder, settings: settings)
        let sink = Sink(trailer: lengthSize == nil ? nil : trailer, lengthSize: lengthSize ?? 4, write: write)
        self.sink = sink
        let ticks = av_cmp_q(settings.timeBase, stream.pointee.time_base) == 0 ? nil : stream.pointee.time_base
        frames = try FrameEncoder(encoder: encoder, predictedAfterFirst: true, callerTimeBase: ticks, shouldStop: shouldStop, rewrite: { packet in
            try metadata?.carry(in: packet, shownAt: packet.pts)
            if let lengthSize {
                var units = NALUnits.splitAnnexB(packet.bytes)
                if let rewriter { units = try units.compactMap { try rewriter.rewrite($0).map { $0[...] } } }
                try packet.setBytes(NALUnits.lengthPrefixed(units, lengthSize: lengthSize))
            }
            packet.pointer.pointee.dts = packet.pts.minus(decodeDelay)
        }, write: { packet in try sink.take(packet) })
    }

    /// The encoder set up like the source (size, SAR, pixel format, colour, frame rate, time base). mpeg2video
    /// reads its frame rate code from the time base, so it counts frames (1/rate) and the caller's ticks are
    /// converted (`FrameEncoder.callerTimeBase`).
    static func settings(encoder: String, source: AVCodecParameters, stream: UnsafeMutablePointer<AVStream>, options: [String: String],
                         threads: Int, globalHeader: Bool = false) -> Encoder.Settings {
        var settings = Encoder.Settings(source: source, stream: stream, pixelFormat: AVPixelFormat(rawValue: source.format),
                                        threads: threads, globalHeader: globalHeader)
        settings.options = options
        if encoder == "mpeg2video", settings.frameRate.num > 0, settings.frameRate.den > 0 {
            settings.timeBase = av_inv_q(settings.frameRate)
        }
        return settings
    }

    /// Encodes a decoded frame shown at `outputPts` (output ticks).
    func encode(_ frame: Frame, outputPts: Int64) throws {
        try frames.encode(frame, outputPts: outputPts)
    }

    /// Flushes the encoder; the last frame lasts until `endPts` (output ticks).
    func finish(endPts: Int64) throws {
        try frames.finish(endPts: endPts)
        try sink.flush()
    }

    /// Where packets go: held back one when a trailer must join the last.
    private final class Sink {
        let trailer: [UInt8]?
        let lengthSize: Int
        let write: (Packet) throws -> Void
        var last: Packet?

        init(trailer: [UInt8]?, lengthSize: Int, write: @escaping (Packet) throws -> Void) {
            self.trailer = trailer
            self.lengthSize = lengthSize
            self.write = write
        }

        func take(_ packet: Packet) throws {
            guard trailer != nil else { return try write(packet) }
            if let previous = last { try write(previous) }
            last = try packet.clone()
        }

        func flush() throws {
            guard let held = last, let trailer else { return }
            last = nil
            try held.setBytes(held.bytes + NALUnits.lengthPrefixed([trailer[...]], lengthSize: lengthSize))
            try write(held)
        }
    }
}
