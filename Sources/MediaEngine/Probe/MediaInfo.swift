/// What `vtrim probe` reports about one file. Times are seconds on the file's presentation timeline
/// except `startTimeSeconds`, which is that timeline's origin in container time (ffprobe's start_time).
public struct MediaInfo: Sendable, Equatable {
    public enum DurationSource: String, Sendable {
        /// The container's own duration (ffprobe's format duration).
        case container
        /// The container states none; measured from the streams' packets.
        case streams
    }

    public var path: String
    public var durationSeconds: Double
    public var durationSource: DurationSource
    /// How much of that is really there: the duration, or less where the file ends early (`truncated`).
    public var readableDurationSeconds: Double
    /// Why less than the duration can be read, when it is so (the file is truncated, or its duration wrong).
    public var shortfall: String?
    public var startTimeSeconds: Double
    public var sizeBytes: Int64
    /// FFmpeg's demuxer name, as ffprobe's format_name (e.g. "mov,mp4,m4a,3gp,3g2,mj2").
    public var formatName: String
    public var formatLongName: String?
    public var bitRate: Int64?
    public var video: VideoStreamInfo?
    public var audio: [AudioStreamInfo]
    public var streams: [StreamSummary]
    public var warnings: [MediaWarning]
    /// The start timecode the file states (`HH:MM:SS:FF`, a camera's or an editor's), if any: edit decision
    /// lists and timelines count source times from it.
    public var startTimecode: String? = nil
}

public struct Rational: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public var description: String { "\(numerator):\(denominator)" }
    public var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
}

public struct VideoStreamInfo: Sendable, Equatable {
    public var index: Int
    /// FFmpeg's codec name ("h264", "hevc"), or "unknown" when this FFmpeg has no codec id for it.
    public var codec: String
    /// The container's four-character code when there is one (e.g. "avc1", "hvc1", "vvc1").
    public var codecTag: String?
    public var profile: String?
    /// Coded (stored) size, before rotation and SAR.
    public var width: Int
    public var height: Int
    /// The ratio the file states (ffprobe's `sample_aspect_ratio`; 1:1 when it states none).
    public var storedSampleAspectRatio: Rational
    /// The ratio vtrim shows the picture with: the stored one, or 1:1 where it is outside 1:16…16:1 (`sar_ignored`).
    public var sampleAspectRatio: Rational
    /// Size a player shows: SAR applied to the width, then rotated; 1…32767 (1×1 when `sizeIsValid` is false).
    public var displayWidth: Int
    public var displayHeight: Int
    /// The stored size is 1…32767 on both sides (`size_invalid` otherwise: nothing can be laid out from it).
    public var sizeIsValid: Bool
    public var orientation: Orientation
    public var framesPerSecond: Double?
    /// Reorder depth (ffprobe's has_b_frames).
    public var hasBFrames: Int
    public var pixelFormat: String?
    public var bitDepth: Int?
    public var colorTransfer: String?
    public var frameCount: Int64?
    public var durationSeconds: Double?
    public var timeBase: Rational
    public var decoderAvailable: Bool
    /// The first frame was decoded (probe only; nil where not tried).
    public var firstFrameDecoded: Bool?
    /// Where the video's own packets end (presentation seconds), measured from the index or the file's
    /// tail; nil where unknown. Another stream may run longer: past this, the last frame is shown.
    public var measuredEndSeconds: Double? = nil
}

public struct AudioStreamInfo: Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var durationSeconds: Double?
    public var language: String?
}

public struct StreamSummary: Sendable, Equatable {
    public var index: Int
    /// "video", "audio", "subtitle", "data", "attachment" or "unknown".
    public var type: String
    public var codec: String
    public var codecTag: String?
    public var isAttachedPicture: Bool
    public var isDefault: Bool
}
