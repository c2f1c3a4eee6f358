import CAV

/// HDR10's static metadata of a stream: the mastering display's colour volume and the content light
/// levels. Re-encoded video keeps both: as the output stream's side data (the MP4 muxer writes them as
/// `mdcv`/`clli`, Matroska as Colour elements) and, for x265, as SEI in the bitstream — FFmpeg 5.1's
/// libx265 wrapper does not pass them on by itself.
enum HDRMetadata {
    static let sideDataTypes = [AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL]

    /// Copies whichever of the two the source stream has.
    static func copy(from source: UnsafeMutablePointer<AVStream>, to target: UnsafeMutablePointer<AVStream>, output: OutputFile) throws {
        for type in sideDataTypes { try output.copySideData(from: source, to: target, only: type) }
    }

    /// x265's `master-display` and `max-cll` parameters for the source stream's metadata (none when it
    /// has none, or values x265 would refuse).
    static func x265Parameters(_ stream: UnsafeMutablePointer<AVStream>) -> [String] {
        var parameters: [String] = []
        var size = 0
        if let raw = av_stream_get_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size,
           let values = masteringDisplay(UnsafeRawPointer(raw).loadUnaligned(as: AVMasteringDisplayMetadata.self)) {
            parameters.append("master-display=\(values)")
        }
        if let raw = av_stream_get_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
           size >= MemoryLayout<AVContentLightMetadata>.size {
            parameters.append("max-cll=\(lightLevel(UnsafeRawPointer(raw).loadUnaligned(as: AVContentLightMetadata.self)))")
        }
        return parameters
    }

    /// x265's parameters from a decoded picture's side data (HDR10 carried in SEI rather than in the container).
    static func x265Parameters(_ picture: EdgeReadBack.Decoded) -> [String] {
        [picture.masteringValues.map { "master-display=\($0)" }, picture.lightValues.map { "max-cll=\($0)" }].compactMap { $0 }
    }

    /// Whether the stream's colour tags leave room for HDR10 metadata in its bitstream (PQ or HLG transfer, BT.2020
    /// primaries, or unstated): only then is a picture decoded to look for it.
    static func mayBeHDR(_ parameters: AVCodecParameters) -> Bool {
        [AVCOL_TRC_SMPTE2084, AVCOL_TRC_ARIB_STD_B67, AVCOL_TRC_UNSPECIFIED].contains(parameters.color_trc)
            || parameters.color_primaries == AVCOL_PRI_BT2020
    }

    /// A mastering display as x265's `master-display` and SVT-AV1's `mastering-display` write it — chromaticity in
    /// 0.00002, luminance in 0.0001 cd/m², order G, B, R (FFmpeg's is R, G, B); nil without primaries or luminance.
    static func masteringDisplay(_ mastering: AVMasteringDisplayMetadata) -> String? {
        guard mastering.has_primaries != 0, mastering.has_luminance != 0 else { return nil }
        func chroma(_ value: AVRational) -> Int { scaled(value, by: 50_000, limit: 50_000) }
        func luma(_ value: AVRational) -> Int { scaled(value, by: 10_000, limit: Int(UInt32.max)) }
        let (red, green, blue) = mastering.display_primaries
        return "G(\(chroma(green.0)),\(chroma(green.1)))B(\(chroma(blue.0)),\(chroma(blue.1)))"
            + "R(\(chroma(red.0)),\(chroma(red.1)))WP(\(chroma(mastering.white_point.0)),\(chroma(mastering.white_point.1)))"
            + "L(\(luma(mastering.max_luminance)),\(luma(mastering.min_luminance)))"
    }

    /// A mastering display as SVT-AV1's `mastering-display` takes it: chromaticity and luminance (cd/m²) as decimals,
    /// order G, B, R; precise enough that AV1's fixed-point fields (0.16 chromaticity) come back as they were.
    static func svtMasteringDisplay(_ mastering: AVMasteringDisplayMetadata) -> String? {
        guard mastering.has_primaries != 0, mastering.has_luminance != 0 else { return nil }
        func decimal(_ value: AVRational) -> String {
            guard value.den != 0 else { return "0" }
            let number = Double(value.num) / Double(value.den)
            return number.isFinite ? String(format: "%.10f", min(max(number, 0), 100_000)) : "0"
        }
        let (red, green, blue) = mastering.display_primaries
        return "G(\(decimal(green.0)),\(decimal(green.1)))B(\(decimal(blue.0)),\(decimal(blue.1)))R(\(decimal(red.0)),\(decimal(red.1)))"
            + "WP(\(decimal(mastering.white_point.0)),\(decimal(mastering.white_point.1)))"
            + "L(\(decimal(mastering.max_luminance)),\(decimal(mastering.min_luminance)))"
    }

    /// Content light levels as x265's `max-cll` and SVT-AV1's `content-light` write them: MaxCLL,MaxFALL.
    static func lightLevel(_ light: AVContentLightMetadata) -> String {
        "\(min(light.MaxCLL, 65_535)),\(min(light.MaxFALL, 65_535))"
    }

    /// `value` × `scale`, rounded, clamped to 0…`limit` (values from the file never trap).
    private static func scaled(_ value: AVRational, by scale: Int, limit: Int) -> Int {
        guard value.den != 0 else { return 0 }
        let product = (Double(value.num) / Double(value.den) * Double(scale)).rounded()
        guard product.isFinite else { return 0 }
        return Int(min(max(product, 0), Double(limit)))
    }
}
