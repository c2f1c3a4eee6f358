/// An HLS playlist as a value (RFC 8216): a master playlist of variants, or a media playlist of segments.
public enum Playlist: Sendable, Equatable {
    case master(MasterPlaylist)
    case media(MediaPlaylist)
}

/// Bytes `offset ..< offset + length` of a resource (`EXT-X-BYTERANGE`, `EXT-X-MAP`'s BYTERANGE).
public struct ByteRange: Sendable, Equatable, Hashable {
    public var offset: Int64
    public var length: Int64

    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }

    /// The last byte's offset (an HTTP Range's second number).
    public var last: Int64 { offset + length - 1 }
}

public struct MasterPlaylist: Sendable, Equatable {
    public struct Variant: Sendable, Equatable {
        public var uri: String
        public var bandwidth: Int
        public var width: Int?
        public var height: Int?
        public var codecs: String?
        public var audioGroup: String?

        /// A variant of sound alone (its CODECS name no video codec): ffmpeg's own masters list their audio rendition
        /// so. Chosen only when nothing else is there.
        public var isAudioOnly: Bool {
            guard width == nil, let codecs else { return false }
            let videoCodecs = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "av01", "vp09", "vp08", "mp4v"]
            return !codecs.split(separator: ",").contains { codec in videoCodecs.contains { codec.trimmingCharacters(in: .whitespaces).hasPrefix($0) } }
        }
    }

    /// `EXT-X-MEDIA`: an alternative rendition (a separate audio playlist of a group).
    public struct Rendition: Sendable, Equatable {
        public var type: String
        public var groupID: String
        public var name: String
        public var uri: String?
        public var isDefault: Bool
    }

    public var variants: [Variant]
    public var renditions: [Rendition]
}

public struct MediaPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var uri: String
        /// EXTINF: what the playlist says the segment lasts.
        public var durationSeconds: Double
        public var byteRange: ByteRange?
        /// Index into `initSections` of the `EXT-X-MAP` in force, if any.
        public var initSection: Int?
        /// An `EXT-X-DISCONTINUITY` comes before it.
        public var followsDiscontinuity: Bool
        /// 1-based line of its URI in the playlist (errors and reports name it).
        public var line: Int
        /// Where it starts on the stream's timeline when the manifest says so (a DASH timeline, which may have gaps);
        /// nil: where the segments before it end.
        public var startSeconds: Double?

        public init(uri: String, durationSeconds: Double, byteRange: ByteRange?, initSection: Int?, followsDiscontinuity: Bool, line: Int,
                    startSeconds: Double? = nil) {
            self.uri = uri
            self.durationSeconds = durationSeconds
            self.byteRange = byteRange
            self.initSection = initSection
            self.followsDiscontinuity = followsDiscontinuity
            self.line = line
            self.startSeconds = startSeconds
        }
    }

    public struct InitSection: Sendable, Equatable {
        public var uri: String
        public var byteRange: ByteRange?
    }

    public var targetDurationSeconds: Double?
    public var mediaSequence: Int
    public var segments: [Segment]
    public var initSections: [InitSection]
    /// `EXT-X-ENDLIST`: the playlist is complete (VOD or a finished event); without it, a live one.
    public var ended: Bool
    /// `EXT-X-KEY` with a METHOD other than NONE: encrypted segments (not read).
    public var encryption: String?
    public var playlistType: String?

    /// Where each segment starts on the playlist's own timeline (the sum of the EXTINF before it).
    public var segmentStartsSeconds: [Double] {
        var starts: [Double] = [], total = 0.0
        for segment in segments {
            starts.append(segment.startSeconds ?? total)
            total = (segment.startSeconds ?? total) + segment.durationSeconds
        }
        return starts
    }

    public var durationSeconds: Double { segments.last.map { (segmentStartsSeconds.last ?? 0) + $0.durationSeconds } ?? 0 }
}
