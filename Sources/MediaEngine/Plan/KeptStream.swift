import CAV

/// A stream the output keeps, or why one is not kept.
public struct KeptStream: Sendable, Equatable, Codable {
    /// `data`: GoPro telemetry (gpmd), the one data track known to survive a cut into MP4/MOV.
    public enum Kind: String, Sendable, Codable { case video, audio, subtitle, data }
    public var index: Int
    public var kind: Kind
    public var codec: String
    /// AMR-NB packets holding several frames are split into one frame per packet (3GP/MOV need it).
    public var splitsAudioFrames: Bool
    /// Text subtitles converted to the codec the output holds (FFmpeg's encoder name), or nil when copied.
    public var convertsTo: String? = nil
    /// A join's audio re-encoded (this encoder, the source's codec) so every seam is sample-exact; nil when copied.
    public var audioEncoder: String? = nil
    /// Joins into MP4/MOV: the encoder that can re-encode this audio exact to the sample (it opened with the
    /// stream's format while planning), whether or not the join asks for it.
    public var exactAudioEncoder: String? = nil
}

/// How a join's audio meets at the seams: copied, following on from the packet nearest its place (within half an
/// audio frame), or re-encoded so every seam is exact to the sample (`exact`; exact joins always).
public enum AudioSeams: String, Sendable, Codable, CaseIterable {
    case nearest
    case exact

    /// The encoder of the source's codec whose input is the decoder's output as it is, when FFmpeg has it.
    static func encoder(forCodec codec: String) -> String? {
        let names = ["aac": "aac", "ac3": "ac3", "eac3": "eac3", "mp3": "libmp3lame", "flac": "flac", "alac": "alac",
                     "pcm_s16le": "pcm_s16le", "pcm_s16be": "pcm_s16be", "pcm_s24le": "pcm_s24le", "pcm_f32le": "pcm_f32le"]
        guard let name = names[codec], avcodec_find_encoder_by_name(name) != nil else { return nil }
        return name
    }
}
