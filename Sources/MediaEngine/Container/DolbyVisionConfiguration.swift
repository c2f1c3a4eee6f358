import CAV

/// A Dolby Vision stream's configuration record (Dolby's "Dolby Vision streams within the ISO base media file format"
/// 2.2): read from FFmpeg's `AVDOVIDecoderConfigurationRecord` side data, written as the sample entry's `dvcC`
/// (profiles ≤ 7), `dvvC` (8–10) or `dvwC` (above) box. FFmpeg 5.1's MOV muxer never writes the box and its MP4 muxer only in its
/// "unofficial" mode, so vtrim writes it into the finished file (`insert`), one path for both.
public struct DolbyVisionConfiguration: Sendable, Equatable, Codable {
    public var versionMajor: Int
    public var versionMinor: Int
    public var profile: Int
    public var level: Int
    public var rpuPresent: Bool
    public var enhancementLayerPresent: Bool
    public var baseLayerPresent: Bool
    /// 0 none (profile 5, 10.0), 1 HDR10, 2 SDR, 4 HLG, 6 Blu-ray HDR10.
    public var compatibility: Int

    /// From the side data's eight bytes; nil when short or a field is out of its bit width (7, 6 and 4 bits).
    init?(sideData bytes: UnsafePointer<UInt8>, size: Int) {
        guard size >= 8, bytes[2] < 128, bytes[3] < 64, bytes[7] < 16 else { return nil }
        versionMajor = Int(bytes[0])
        versionMinor = Int(bytes[1])
        profile = Int(bytes[2])
        level = Int(bytes[3])
        rpuPresent = bytes[4] != 0
        enhancementLayerPresent = bytes[5] != 0
        baseLayerPresent = bytes[6] != 0
        compatibility = Int(bytes[7])
    }

    static func of(_ stream: UnsafeMutablePointer<AVStream>) -> DolbyVisionConfiguration? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size) else { return nil }
        return DolbyVisionConfiguration(sideData: data, size: size)
    }

    /// Whether a cut in `mode` keeps Dolby Vision: copies keep every frame's RPU; smart and exact cuts of a single-layer
    /// stream put each source frame's RPU into the frame re-encoded from it (`FrameMetadataCarrier`), where the codec carries RPUs
    /// (HEVC, H.264, AV1) and the re-encode keeps the codec, the pixel format and the picture as they are (`alike`).
    public func isKept(mode: CutMode, codec: String, reencodesAlike alike: Bool) -> Bool {
        switch mode {
        case .copy, .keyframe: true
        case .smart, .exact: alike && rpuPresent && !enhancementLayerPresent && FrameMetadataCodec(codec: codec) != nil
        }
    }

    /// "8.4": the profile and compatibility id, as phones and players name it.
    public var name: String { "\(profile).\(compatibility)" }

    /// The whole box: 8 bytes of header, then 24 of record (4 of fields, 20 reserved).
    public var box: [UInt8] {
        let fields = UInt32(profile & 0x7F) << 25 | UInt32(level & 0x3F) << 19 | (rpuPresent ? 1 << 18 : 0)
            | (enhancementLayerPresent ? 1 << 17 : 0) | (baseLayerPresent ? 1 << 16 : 0) | UInt32(compatibility & 0xF) << 12
        let record = [UInt8(truncatingIfNeeded: versionMajor), UInt8(truncatingIfNeeded: versionMinor),
                      UInt8(truncatingIfNeeded: fields >> 24), UInt8(truncatingIfNeeded: fields >> 16),
                      UInt8(truncatingIfNeeded: fields >> 8)] + [UInt8](repeating: 0, count: 19)
        return MovieBoxes.header(size: 8 + record.count, type: profile > 10 ? "dvwC" : profile > 7 ? "dvvC" : "dvcC") + record
    }

    /// Adds the box to the video track's (`trackID`'s) first sample entry of the finished MP4/MOV at `path`, unless
    /// the entry already has one.
    func insert(into path: String, trackID: Int) throws(AVFailure) {
        try MovieBoxes.withMovieBox(path: path) { (moov: inout [UInt8]) throws(AVFailure) in
            try Self.insert(box, dolbyOnlyAV1: profile == 10 && compatibility == 0, into: &moov, trackID: trackID)
        }
    }

    /// The same on a `moov` in memory: the entry and each box around it (stsd, stbl, minf, mdia, trak) grow by the
    /// box's size; `moov`'s own size is set when it is written back.
    static func insert(_ box: [UInt8], dolbyOnlyAV1: Bool = false, into moov: inout [UInt8], trackID: Int) throws(AVFailure) {
        func children(_ parent: MovieBoxes.Box, skipping header: Int = 8) -> [MovieBoxes.Box] {
            parent.end - parent.start >= header ? MovieBoxes.boxes(in: moov, from: parent.start + header, to: parent.end) : []
        }
        for trak in MovieBoxes.boxes(in: moov, from: 8, to: moov.count) where trak.type == "trak" {
            let parts = children(trak)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }), MovieBoxes.trackID(moov, tkhd: tkhd) == trackID else { continue }
            var chain = [trak]
            for type in ["mdia", "minf", "stbl", "stsd"] {
                guard let last = chain.last, let next = MovieBoxes.child(moov, of: last, type) else {
                    throw MovieHeaderPatch.failure(EINVAL, "no \(type) box in the video track")
                }
                chain.append(next)
            }
            // stsd is a full box with an entry count before its entries; a visual entry's fields take 78 bytes.
            guard let stsd = chain.last, let entry = children(stsd, skipping: 16).first else {
                throw MovieHeaderPatch.failure(EINVAL, "no video sample entry")
            }
            // Profile 10.0 has no AV1-compatible base layer: its entry is `dav1`, which players without Dolby Vision
            // skip, where FFmpeg's muxer writes `av01`.
            if dolbyOnlyAV1, MovieBoxes.fourCC(moov, at: entry.start + 4) == "av01" {
                moov.replaceSubrange((entry.start + 4)..<(entry.start + 8), with: Array("dav1".utf8))
            }
            if children(entry, skipping: 8 + 78).contains(where: { ["dvcC", "dvvC", "dvwC"].contains($0.type) }) { return }
            for parent in chain + [entry] {
                try MovieBoxes.setSize(&moov, at: parent.start, to: parent.end - parent.start + box.count)
            }
            moov.insert(contentsOf: box, at: entry.end)
            return
        }
        throw MovieHeaderPatch.failure(EINVAL, "no track \(trackID)")
    }
}

extension VideoFacts {
    /// Whether `mode`'s re-encoded frames are the source's pictures in the source's codec, so each can carry its source
    /// frame's Dolby Vision RPU: a smart cut's edges always are (they match the copied frames); an exact cut's when its
    /// encoder is of the source's codec, the pixel format stays and nothing is turned upright.
    func reencodesAlike(_ mode: CutMode) -> Bool {
        guard mode == .exact else { return true }
        guard let picture = exactPicture, picture.bakedOrientation == nil, picture.pixelFormat == picture.sourcePixelFormat,
              let id = Encoder.codecID(exactEncoder) else { return false }
        return FFmpegText.string(avcodec_get_name(id)) == codec
    }
}
