import CAV

/// The encoder for re-encoded video: the source's family where Debian's FFmpeg has one and the output
/// container takes it, else one it takes; options from `--crf`/`--preset` on each encoder's own scale,
/// and threads from the job's budget.
enum EncoderChoice {
    static func encoder(for codec: AVCodecID, output: OutputFormat) -> String {
        let family: String?
        switch codec {
        case AV_CODEC_ID_H264: family = "libx264"
        case AV_CODEC_ID_HEVC: family = "libx265"
        case AV_CODEC_ID_VP8, AV_CODEC_ID_VP9: family = "libvpx-vp9"
        case AV_CODEC_ID_AV1: family = "libsvtav1"
        default: family = nil
        }
        if let family, let id = Encoder.codecID(family), output.canHold(id) { return family }
        return output.name == "webm" ? "libvpx-vp9" : "libx264"
    }

    static func options(for encoder: String, crf: Int, preset: String, threads: Int) -> [String: String] {
        switch encoder {
        case "libx264":
            return ["crf": String(crf), "preset": preset].merging(x264Parameters([]).map { ["x264-params": $0] } ?? [:]) { $1 }
        case "libx265":
            // x265 ignores FFmpeg's thread count and builds a pool of every core unless told otherwise.
            return ["crf": String(crf), "preset": preset, "x265-params": x265Parameters(["log-level=error"], threads: threads)]
        case "libvpx-vp9":
            return ["crf": String(crf + 11), "b": "0", "deadline": "good", "row-mt": "1",
                    "cpu-used": String(speed(preset, slowest: 0, fastest: 8))]
        case "libvpx":
            // VP8's constrained quality needs a bitrate ceiling (with none, libvpx aims at its 256 kb/s default).
            return ["crf": String(min(63, max(4, crf - 6))), "b": "100M", "deadline": "good", "cpu-used": String(speed(preset, slowest: 0, fastest: 16))]
        case "libsvtav1":
            return ["crf": String(crf + 10), "preset": String(speed(preset, slowest: 2, fastest: 12))]
        case "libaom-av1":
            return ["crf": String(min(63, crf + 10)), "b": "0", "row-mt": "1", "usage": "good", "cpu-used": String(speed(preset, slowest: 2, fastest: 8))]
        default:
            return [:]
        }
    }

    /// `options` with HDR10 metadata (`HDRMetadata.x265Parameters`) added to x265's parameters (other
    /// encoders: unchanged). Pure.
    static func withHDRMetadata(_ options: [String: String], encoder: String, hdr: [String]) -> [String: String] {
        guard encoder == "libx265", !hdr.isEmpty else { return options }
        var options = options
        options["x265-params"] = ([options["x265-params"]].compactMap { $0 } + hdr).joined(separator: ":")
        return options
    }

    /// x264's parameters (nil when none), kept from x264's AVX-512 routines where the CPU has them: with those, the
    /// same frames encode to different bytes from run to run (they read memory they were not given — measured with
    /// FFmpeg 5.1's own CLI under MALLOC_PERTURB_: three values, three encodes; limited to AVX2, one), so a cut, or a
    /// cluster's clip, could not be reproduced. The names are x264's own, each holding the ones below it.
    static func x264Parameters(_ parameters: [String]) -> String? {
        let all = parameters + (cav_cpu_has_avx512() != 0 ? ["asm=AVX2"] : [])
        return all.isEmpty ? nil : all.joined(separator: ":")
    }

    /// x265's parameters with its thread pool and frame threads limited to `threads` (0: x265 decides).
    static func x265Parameters(_ parameters: [String], threads: Int) -> String {
        guard threads > 0 else { return parameters.joined(separator: ":") }
        return (parameters + ["pools=\(threads)", "frame-threads=\(max(1, min(threads, 4)))"]).joined(separator: ":")
    }

    /// x264's preset names mapped onto another encoder's numeric speed scale.
    static func speed(_ preset: String, slowest: Int, fastest: Int) -> Int {
        let names = ["veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast"]
        let position = names.firstIndex(of: preset) ?? 3
        return slowest + (fastest - slowest) * position / (names.count - 1)
    }

    /// The pixel format the encoder will take: the source's when it can, else 4:2:0, else its first.
    /// `turnsSideways`: the picture is turned by 90° while encoding; chroma subsampled unequally (4:2:2,
    /// 4:4:0, 4:1:1) or interleaved (NV12/NV16) cannot be turned as it is, so it becomes planar 4:2:0 of
    /// the same depth (where the encoder has it) first.
    static func pixelFormat(for encoder: String, source: AVPixelFormat, turnsSideways: Bool = false) -> AVPixelFormat {
        let supported = Encoder.pixelFormats(encoder)
        var wanted = source
        if turnsSideways, let descriptor = av_pix_fmt_desc_get(source)?.pointee, descriptor.nb_components >= 3,
           descriptor.log2_chroma_w != descriptor.log2_chroma_h || descriptor.comp.1.plane == descriptor.comp.2.plane {
            let deep = descriptor.comp.0.depth > 8
            wanted = deep && (supported.isEmpty || supported.contains(AV_PIX_FMT_YUV420P10LE)) ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        }
        if supported.isEmpty || supported.contains(wanted) { return wanted }
        return supported.contains(AV_PIX_FMT_YUV420P) ? AV_PIX_FMT_YUV420P : supported[0]
    }

    /// The deprecated full-range ("J") formats: swscale reads them as full range and writes other YUV
    /// formats in limited range, so a conversion out of one changes the range the output must be tagged with.
    static func isFullRangeFormat(_ format: AVPixelFormat) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P].contains(format)
    }
}
