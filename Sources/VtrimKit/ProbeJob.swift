import Foundation
import MediaEngine
import WorkerProtocol

/// `vtrim probe` for one input.
public enum ProbeJob {
    public static func run(path: String, remote: RemoteRequest = RemoteRequest()) -> Outcome {
        if RemoteNames.isURL(path), InputSources.byteSource(for: path) == nil { return RemoteJobs.probe(path, request: remote) }
        do {
            let info = try Probe.probe(path: path)
            return outcome(info)
        } catch {
            return .failure(error)
        }
    }

    static func outcome(_ info: MediaInfo) -> Outcome {
        Outcome(path: info.path, status: .succeeded, warnings: info.warnings, fields: fields(info), lines: lines(info))
    }

    static func fields(_ info: MediaInfo) -> [(String, JSON)] {
        [
            ("duration", .number(info.durationSeconds)),
            ("duration_source", .string(info.durationSource.rawValue)),
            ("readable_duration", .number(info.readableDurationSeconds)),
            ("start_time", .number(info.startTimeSeconds)),
            // The file's own start timecode (a camera's or editor's), or null: lists count source times from it.
            ("start_timecode", .optional(info.startTimecode)),
            ("size", .int(info.sizeBytes)),
            ("format", .string(info.formatName)),
            ("format_long_name", .optional(info.formatLongName)),
            ("bit_rate", .optional(info.bitRate)),
            ("video", info.video.map(videoJSON) ?? .null),
            ("audio", .array(info.audio.map(audioJSON))),
            ("streams", .array(info.streams.map(streamJSON))),
        ]
    }

    static func videoJSON(_ video: VideoStreamInfo) -> JSON {
        .object([
            ("index", .int(Int64(video.index))),
            ("codec", .string(video.codec)),
            ("codec_tag", .optional(video.codecTag)),
            ("profile", .optional(video.profile)),
            ("width", .int(Int64(video.width))),
            ("height", .int(Int64(video.height))),
            ("sar", .string(video.storedSampleAspectRatio.description)),
            ("display_width", video.sizeIsValid ? .int(Int64(video.displayWidth)) : .null),
            ("display_height", video.sizeIsValid ? .int(Int64(video.displayHeight)) : .null),
            ("rotation", .int(Int64(video.orientation.rotationDegrees))),
            ("mirrored", .bool(video.orientation.mirrored)),
            ("display_matrix", video.orientation.matrix.map { .array($0.map { .int(Int64($0)) }) } ?? .null),
            ("fps", .optional(video.framesPerSecond)),
            ("has_b_frames", .int(Int64(video.hasBFrames))),
            ("pix_fmt", .optional(video.pixelFormat)),
            ("bit_depth", video.bitDepth.map { .int(Int64($0)) } ?? .null),
            ("color_transfer", .optional(video.colorTransfer)),
            ("frame_count", .optional(video.frameCount)),
            ("duration", .optional(video.durationSeconds)),
            ("time_base", .string("\(video.timeBase.numerator)/\(video.timeBase.denominator)")),
            ("decodable", .bool(video.firstFrameDecoded ?? video.decoderAvailable)),
        ])
    }

    static func audioJSON(_ audio: AudioStreamInfo) -> JSON {
        .object([
            ("index", .int(Int64(audio.index))),
            ("codec", .string(audio.codec)),
            ("sample_rate", .int(Int64(audio.sampleRate))),
            ("channels", .int(Int64(audio.channels))),
            ("duration", .optional(audio.durationSeconds)),
            ("language", .optional(audio.language)),
        ])
    }

    static func streamJSON(_ stream: StreamSummary) -> JSON {
        .object([
            ("index", .int(Int64(stream.index))),
            ("type", .string(stream.type)),
            ("codec", .string(stream.codec)),
            ("codec_tag", .optional(stream.codecTag)),
            ("attached_pic", .bool(stream.isAttachedPicture)),
            ("default", .bool(stream.isDefault)),
        ])
    }

    static func lines(_ info: MediaInfo) -> [String] {
        var lines = [info.path]
        var format = "  format    \(info.formatName)"
        if let long = info.formatLongName { format += " (\(long))" }
        // A URL's stream has no size known (0): none is printed.
        if info.sizeBytes > 0 { format += ", \(Human.bytes(info.sizeBytes))" }
        if let bitRate = info.bitRate { format += ", \(Human.bitRate(bitRate))" }
        lines.append(format)
        var duration = "  duration  \(Human.seconds(info.durationSeconds))"
        if info.durationSource == .streams { duration += " (measured from the streams)" }
        duration += ", starts at \(Human.seconds(info.startTimeSeconds))"
        if info.readableDurationSeconds != info.durationSeconds {
            duration += "; only \(Human.seconds(info.readableDurationSeconds)) readable"
        }
        lines.append(duration)
        if let video = info.video {
            var text = "  video     #\(video.index) \(video.codec)"
            if let profile = video.profile { text += " (\(profile))" }
            text += " \(video.width)x\(video.height)"
            if video.storedSampleAspectRatio.numerator != video.storedSampleAspectRatio.denominator {
                text += " SAR \(video.storedSampleAspectRatio)"
            }
            if let fps = video.framesPerSecond { text += ", \(Human.decimal(fps, places: 3)) fps" }
            if let pixelFormat = video.pixelFormat { text += ", \(pixelFormat)" }
            text += ", B-frames \(video.hasBFrames)"
            lines.append(text)
            var shown = video.sizeIsValid ? "            shown \(video.displayWidth)x\(video.displayHeight)" : "            shown at no valid size"
            let orientation = video.orientation
            if orientation.rotationDegrees != 0 { shown += ", rotated \(orientation.rotationDegrees)° clockwise" }
            if orientation.mirrored { shown += ", mirrored" }
            if orientation.rotationDegrees == 0, !orientation.mirrored { shown += ", upright" }
            lines.append(shown)
        } else {
            lines.append("  video     none")
        }
        for audio in info.audio {
            var text = "  audio     #\(audio.index) \(audio.codec) \(audio.sampleRate) Hz, \(audio.channels) ch"
            if let seconds = audio.durationSeconds { text += ", \(Human.seconds(seconds))" }
            if let language = audio.language, language != "und" { text += ", \(language)" }
            lines.append(text)
        }
        return lines
    }
}

/// Number formatting for human output (JSON carries the exact values).
enum Human {
    static func seconds(_ value: Double) -> String { "\(decimal(value, places: 3)) s" }

    static func decimal(_ value: Double, places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    static func bytes(_ value: Int64) -> String {
        if value < 1024 { return "\(value) bytes" }
        if value < 1024 * 1024 { return "\(decimal(Double(value) / 1024, places: 1)) KiB" }
        if value < 1024 * 1024 * 1024 { return "\(decimal(Double(value) / 1048576, places: 1)) MiB" }
        return "\(decimal(Double(value) / 1073741824, places: 2)) GiB"
    }

    static func bitRate(_ value: Int64) -> String { "\(value / 1000) kb/s" }
}
