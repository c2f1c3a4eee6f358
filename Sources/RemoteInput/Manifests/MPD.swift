/// A DASH manifest (ISO/IEC 23009-1) as a value: what vtrim reads of it — one period's adaptation sets and their
/// representations, addressed by SegmentTemplate (`$Number$`, `$Time$`, with or without a SegmentTimeline),
/// SegmentList or SegmentBase (a `sidx` index).
public struct MPD: Sendable, Equatable {
    public var isDynamic: Bool
    public var durationSeconds: Double?
    public var baseURL: String?
    public var periods: [Period]

    public struct Period: Sendable, Equatable {
        public var baseURL: String?
        public var durationSeconds: Double?
        public var adaptationSets: [AdaptationSet]
    }

    public struct AdaptationSet: Sendable, Equatable {
        public var contentType: String?
        public var mimeType: String?
        public var baseURL: String?
        public var addressing: Addressing
        public var representations: [Representation]
    }

    public struct Representation: Sendable, Equatable {
        public var id: String
        public var bandwidth: Int
        public var width: Int?
        public var height: Int?
        public var codecs: String?
        public var mimeType: String?
        public var baseURL: String?
        public var addressing: Addressing
    }

    /// Segment addressing, as given at one level (an adaptation set's, overridden field by field by its representation's).
    public struct Addressing: Sendable, Equatable {
        public var media: String?
        public var initialization: String?
        public var timescale: Int64?
        public var duration: Int64?
        public var startNumber: Int64?
        public var presentationTimeOffset: Int64?
        public var timeline: [TimelineEntry]?
        /// SegmentBase: the `sidx` bytes and the init section's bytes of the representation's one file.
        public var indexRange: ByteRange?
        public var initializationRange: ByteRange?
        /// SegmentList: each segment's URL (nil: the BaseURL) and byte range.
        public var list: [(media: String?, range: ByteRange?)]?
        public var isTemplate = false
        public var isBase = false

        public init() {}

        /// This level's fields where given, else `outer`'s.
        func over(_ outer: Addressing) -> Addressing {
            var merged = self
            merged.media = media ?? outer.media
            merged.initialization = initialization ?? outer.initialization
            merged.timescale = timescale ?? outer.timescale
            merged.duration = duration ?? outer.duration
            merged.startNumber = startNumber ?? outer.startNumber
            merged.presentationTimeOffset = presentationTimeOffset ?? outer.presentationTimeOffset
            merged.timeline = timeline ?? outer.timeline
            merged.indexRange = indexRange ?? outer.indexRange
            merged.initializationRange = initializationRange ?? outer.initializationRange
            merged.list = list ?? outer.list
            merged.isTemplate = isTemplate || outer.isTemplate
            merged.isBase = isBase || outer.isBase
            return merged
        }

        public static func == (a: Addressing, b: Addressing) -> Bool {
            a.media == b.media && a.initialization == b.initialization && a.timescale == b.timescale && a.duration == b.duration
                && a.startNumber == b.startNumber && a.presentationTimeOffset == b.presentationTimeOffset && a.timeline == b.timeline
                && a.indexRange == b.indexRange && a.initializationRange == b.initializationRange && a.isTemplate == b.isTemplate
                && a.isBase == b.isBase && a.list?.count == b.list?.count
                && zip(a.list ?? [], b.list ?? []).allSatisfy { $0.media == $1.media && $0.range == $1.range }
        }
    }

    /// `<S t d r>`: `r` + 1 segments of `d` ticks, from `t` (or where the last ended).
    public struct TimelineEntry: Sendable, Equatable {
        public var start: Int64?
        public var duration: Int64
        public var repeats: Int64
    }
}
