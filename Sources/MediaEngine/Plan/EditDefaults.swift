import CAV

/// What an edit is made with when the user does not say, and where smart cuts can be written — one rule for every
/// surface: the planner (`SmartEncoding.refusal`), the default mode of the command line, the API and the page
/// (`mode`), the messages that say why not, and the command line's help and man page (`smartSummary`).
public enum EditDefaults {
    /// Encoder quality (x264/x265 CRF): smart edges sit beside copied frames, so they are made finer.
    public static func crf(for mode: CutMode) -> Int { mode == .smart ? 16 : 20 }

    /// Encoder speed preset (x264 names).
    public static let preset = "veryfast"

    /// The mode of an edit that names none: a join (`--keep`, `--remove`, `--join`, the page's ranges) is smart wherever
    /// smart is available for its video and its output's container — else a copy where the container holds the video
    /// as it is (an exact edit where it does not), with the reason smart is not; a single cut is a copy.
    /// `videoCodec`: FFmpeg's name of the source's video codec (nil: no video, a copy).
    public static func mode(joins: Bool, videoCodec: String?, outputName: String) -> (mode: CutMode, smartUnavailable: SmartFallback?) {
        guard joins, let videoCodec else { return (.copy, nil) }
        let codec = avcodec_descriptor_get_by_name(videoCodec)?.pointee.id ?? AV_CODEC_ID_NONE
        guard let muxer = OutputFormat(fileName: outputName) else { return (.copy, .container(String(outputName.split(separator: ".").last ?? ""))) }
        guard let refusal = smartRefusal(codec: codec, muxer: muxer) else { return (.smart, nil) }
        return (muxer.canHold(codec) ? .copy : .exact, refusal)
    }

    /// Why a smart edit of `codec` video cannot be written by `muxer`, or nil where it can: the codec has an edge
    /// encoder here, and the container holds its frames (VP8, VP9, AV1, MPEG-2: FFmpeg 5.1's MPEG-TS muxer has no
    /// stream type for the first three) or its parameter sets (H.264, HEVC: MP4/MOV's sample entry, Matroska's
    /// CodecPrivate, MPEG-TS in band).
    static func smartRefusal(codec: AVCodecID, muxer: OutputFormat) -> SmartFallback? {
        guard SmartEncoding.encoder(for: codec) != nil else { return .codec(Probe.codecName(codec)) }
        guard EditOutput.containers.contains(muxer.name) else { return .container(muxer.name) }
        if SmartEncoding.splicesFrames(codec) {
            guard muxer.canHold(codec), muxer.name != "mpegts" || codec == AV_CODEC_ID_MPEG2VIDEO else { return .container(muxer.name) }
            return nil
        }
        return ParameterSetCarriage(muxer: muxer.name) == nil ? .container(muxer.name) : nil
    }

    /// The codecs smart cuts handle here (an edge encoder in this FFmpeg), by the names messages use.
    static var smartCodecs: [(id: AVCodecID, name: String)] {
        let all: [(AVCodecID, String)] = [(AV_CODEC_ID_H264, "H.264"), (AV_CODEC_ID_HEVC, "HEVC"), (AV_CODEC_ID_VP8, "VP8"),
                                          (AV_CODEC_ID_VP9, "VP9"), (AV_CODEC_ID_AV1, "AV1"), (AV_CODEC_ID_MPEG2VIDEO, "MPEG-2")]
        return all.filter { SmartEncoding.encoder(for: $0.0) != nil }
    }

    /// Where smart cuts are written, from `smartRefusal` over every output extension: codecs that go into the same
    /// containers together — "H.264 and HEVC into .mp4, .mov, …; VP8 into .mkv, .webm; …".
    public static let smartSummary: String = {
        var groups: [(names: [String], extensions: [String])] = []
        for (codec, name) in smartCodecs {
            let extensions = EditOutput.extensions.filter { ext in
                OutputFormat(fileName: "x." + ext).map { smartRefusal(codec: codec, muxer: $0) == nil } ?? false
            }
            guard !extensions.isEmpty else { continue }
            if let index = groups.firstIndex(where: { $0.extensions == extensions }) {
                groups[index].names.append(name)
            } else {
                groups.append(([name], extensions))
            }
        }
        return groups.map { group in
            Words.list(group.names) + " into " + group.extensions.map { "." + $0 }.joined(separator: ", ")
        }.joined(separator: "; ")
    }()
}
