import CAV
import Glibc

/// The muxer FFmpeg chooses for an output name, and what it can hold.
struct OutputFormat {
    let format: UnsafePointer<AVOutputFormat>

    /// The muxer for a file name (by its extension), or nil when FFmpeg has none.
    init?(fileName: String) {
        guard let format = av_guess_format(nil, fileName, nil) else { return nil }
        self.format = format
    }

    init(_ format: UnsafePointer<AVOutputFormat>) { self.format = format }

    /// FFmpeg's short name of the muxer ("mp4", "mov", "matroska", "webm").
    var name: String { FFmpegText.string(format.pointee.name) ?? "" }

    /// MP4/MOV write edit lists, which can hide a pre-roll; Matroska and the rest cannot.
    var supportsEditLists: Bool { ParameterSetCarriage(muxer: name) == .sampleEntry }

    /// Whether the muxer stores a display matrix (only the mov family in FFmpeg 5.1).
    var carriesDisplayMatrix: Bool { supportsEditLists }

    /// AVI stores no presentation times: frames are shown in decode-time slots.
    var storesDecodeTimesOnly: Bool { name == "avi" }

    /// MP4/MOV (a chapter track and `chpl`) and Matroska/WebM hold chapters; MPEG-TS and AVI cannot.
    var holdsChapters: Bool { supportsEditLists || name == "matroska" || name == "webm" }

    var needsGlobalHeader: Bool { format.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    func canHold(_ codec: AVCodecID) -> Bool {
        // FFmpeg 5.1's MOV muxer lists AV1 and VP9 tags, then refuses them when it writes the header ("only supported in MP4").
        if name == "mov", codec == AV_CODEC_ID_AV1 || codec == AV_CODEC_ID_VP9 { return false }
        // 1: yes, 0: no, negative: the muxer does not say (e.g. MPEG-TS), which the ffmpeg CLI also allows.
        return avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL) != 0
    }
}
