/// The containers a cut of sound is written to in its own format (`.mp3`, `.m4a`, `.flac`, …), chosen by the output's
/// extension, and what each can say about where the sound starts and ends.
public enum SoundContainer: String, Sendable, Codable, CaseIterable {
    case mp3
    /// MP4 audio (`.m4a`, `.m4b`): an edit list hides what decoding needs before and after the range.
    case mp4
    /// Raw AAC in ADTS (`.aac`): no way to say where the sound starts or ends.
    case adts
    case flac
    /// Ogg (`.ogg`, `.oga`: Vorbis, Opus or FLAC; `.opus`: Opus).
    case ogg
    case wav
    /// Matroska audio (`.mka`).
    case matroska

    /// The extensions, in the order the usage lists them.
    public static let extensions = ["mp3", "m4a", "m4b", "aac", "flac", "opus", "ogg", "oga", "wav", "mka"]

    /// The container for an output name, by its extension; nil for every other name (pictures' containers).
    public init?(fileName: String) {
        let dot = fileName.lastIndex(of: ".")
        guard let dot, !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "mp3": self = .mp3
        case "m4a", "m4b": self = .mp4
        case "aac": self = .adts
        case "flac": self = .flac
        case "ogg", "oga", "opus": self = .ogg
        case "wav": self = .wav
        case "mka": self = .matroska
        default: return nil
        }
    }

    /// What the container holds as it is (a copy); anything else is re-encoded to `encoder`.
    func holds(codec: String) -> Bool {
        switch self {
        case .mp3: codec == "mp3"
        case .mp4: ["aac", "mp3", "alac", "ac3", "eac3", "opus", "flac"].contains(codec)
        case .adts: codec == "aac"
        case .flac: codec == "flac"
        case .ogg: ["vorbis", "opus", "flac"].contains(codec)
        case .wav: codec.hasPrefix("pcm_")
        case .matroska: true
        }
    }

    /// The encoder a sound of another codec is re-encoded with (the one for `.opus` is libopus, `.ogg` libvorbis).
    func encoder(outputName: String) -> String {
        switch self {
        case .mp3: "libmp3lame"
        case .mp4, .adts: "aac"
        case .flac: "flac"
        case .ogg: outputName.lowercased().hasSuffix(".opus") ? "libopus" : "libvorbis"
        case .wav: "pcm_s16le"
        case .matroska: "flac"
        }
    }

    /// Whether the container writes chapters (MP4, ID3v2 CHAP, Vorbis comments, Matroska).
    var holdsChapters: Bool { self != .wav && self != .adts }

    /// Whether FFmpeg 5.1's muxer writes cover art (an attached picture) into it.
    var holdsCoverArt: Bool { self == .mp3 || self == .mp4 || self == .flac }
}
