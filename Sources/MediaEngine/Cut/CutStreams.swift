import CAV

/// Which input streams a cut keeps, and why the others are left out.
struct CutStreams {
    enum Kind {
        case video, audio, subtitle
    }

    struct Kept {
        let input: Int
        var output: Int
        let kind: Kind
    }

    var kept: [Kept] = []
    var notes: [String] = []
    var warnings: [MediaWarning] = []

    /// The main video (never cover art), every audio track the container can hold, subtitles it can hold.
    /// Timecode, telemetry and other data tracks, cover art and extra video tracks cannot be cut
    /// meaningfully; they are dropped with a note each.
    static func choose(input: InputFile, video: Int?, output: OutputFile) -> CutStreams {
        var streams = CutStreams()
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), let parameters = stream.pointee.codecpar else { continue }
            let type = parameters.pointee.codec_type
            let codec = Probe.codecName(parameters.pointee.codec_id)
            let tag = Probe.fourCC(parameters.pointee.codec_tag).map { " '\($0)'" } ?? ""
            if index == video {
                streams.kept.append(Kept(input: index, output: -1, kind: .video))
                continue
            }
            switch type {
            case AVMEDIA_TYPE_VIDEO where stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0:
                streams.notes.append("stream #\(index): cover art (\(codec)) is not kept in a cut")
            case AVMEDIA_TYPE_VIDEO:
                streams.notes.append("stream #\(index): a second video track (\(codec)) is not kept; only the main video is cut")
            case AVMEDIA_TYPE_AUDIO:
                if output.canHold(parameters.pointee.codec_id) {
                    streams.kept.append(Kept(input: index, output: -1, kind: .audio))
                } else {
                    streams.warnings.append(MediaWarning(code: "stream_dropped",
                        message: "audio stream #\(index) (\(codec)) cannot be stored in \(output.formatName); it is left out"))
                }
            case AVMEDIA_TYPE_SUBTITLE:
                if output.canHold(parameters.pointee.codec_id) {
                    streams.kept.append(Kept(input: index, output: -1, kind: .subtitle))
                } else {
                    streams.notes.append("stream #\(index): subtitles (\(codec)) cannot be stored in \(output.formatName); left out")
                }
            case AVMEDIA_TYPE_DATA:
                streams.notes.append("stream #\(index): data track\(tag) (timecode or telemetry) is not cut; left out")
            default:
                streams.notes.append("stream #\(index): \(codec) track\(tag) is not kept")
            }
        }
        return streams
    }
}
