/// What `vtrim propose` looks for in a file, with the thresholds each detector uses.
public struct ContentQuery: Sendable, Equatable {
    public struct Silence: Sendable, Equatable {
        /// A sample position is silent when every channel is quieter than this (dBFS, negative).
        public var thresholdDB: Double
        public var minSeconds: Double
        public init(thresholdDB: Double, minSeconds: Double) {
            self.thresholdDB = thresholdDB
            self.minSeconds = minSeconds
        }
    }

    public struct Black: Sendable, Equatable {
        public var minSeconds: Double
        /// A pixel is black at or under this luma (0…1 of the range; blackdetect's `pix_th`).
        public var pixelThreshold: Double
        public init(minSeconds: Double, pixelThreshold: Double = 0.10) {
            self.minSeconds = minSeconds
            self.pixelThreshold = pixelThreshold
        }
    }

    public struct Scenes: Sendable, Equatable {
        /// A cut where the HSV content score (0…255) reaches this; PySceneDetect's content detector default is 27.
        public var threshold: Double
        public var minSeconds: Double
        public init(threshold: Double, minSeconds: Double) {
            self.threshold = threshold
            self.minSeconds = minSeconds
        }
    }

    public var silence: Silence?
    public var black: Black?
    public var scenes: Scenes?
    public init(silence: Silence? = nil, black: Black? = nil, scenes: Scenes? = nil) {
        self.silence = silence
        self.black = black
        self.scenes = scenes
    }

    /// Whether a threshold or length from outside is one a detector can use (checked where it enters).
    public var problem: String? {
        if let silence {
            guard silence.thresholdDB.isFinite, (-150.0...0).contains(silence.thresholdDB) else { return "the silence threshold must be between -150 and 0 dB" }
            guard silence.minSeconds.isFinite, (0.01...3600).contains(silence.minSeconds) else { return "--min-silence must be between 0.01 and 3600 seconds" }
        }
        if let black {
            guard black.minSeconds.isFinite, (0...3600).contains(black.minSeconds) else { return "--min-black must be between 0 and 3600 seconds" }
            guard black.pixelThreshold.isFinite, (0...1).contains(black.pixelThreshold) else { return "the black pixel threshold must be between 0 and 1" }
        }
        if let scenes {
            guard scenes.threshold.isFinite, (0.1...255).contains(scenes.threshold) else { return "the scene threshold must be between 0.1 and 255" }
            guard scenes.minSeconds.isFinite, (0...3600).contains(scenes.minSeconds) else { return "--min-scene must be between 0 and 3600 seconds" }
        }
        return nil
    }
}

/// One thing found: a silence or a black span, or a scene (from the cut that starts it to the next); times in µs on
/// vtrim's timeline (0 = the container's start).
public struct Detection: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case silence, black, scene
    }

    public var kind: Kind
    public var startMicro: Int64
    public var endMicro: Int64
    /// Silence: the loudest sample inside, dBFS (digital silence reads `Detection.floorDB`). Black: the mean luma of
    /// its frames, 0…1. Scene: the content score of the cut that starts it (nil for the first scene).
    public var measure: Double?

    public static let floorDB = -120.0

    public init(kind: Kind, startMicro: Int64, endMicro: Int64, measure: Double?) {
        self.kind = kind
        self.startMicro = startMicro
        self.endMicro = endMicro
        self.measure = measure
    }
}

/// What one pass over a file found.
public struct ContentAnalysis: Sendable, Equatable {
    public var durationMicro: Int64
    /// Sorted by start, kind by kind (silences, black, scenes).
    public var detections: [Detection]
    /// The video's clean starts, ascending; empty when not read.
    public var cleanStarts: [CleanPoint]
    /// When each video frame starts being shown (µs, ascending); empty when not read or the file has no video.
    public var frameStartsMicro: [Int64]
    public var warnings: [MediaWarning]

    public init(durationMicro: Int64, detections: [Detection], cleanStarts: [CleanPoint], frameStartsMicro: [Int64] = [],
                warnings: [MediaWarning]) {
        self.durationMicro = durationMicro
        self.detections = detections
        self.cleanStarts = cleanStarts
        self.frameStartsMicro = frameStartsMicro
        self.warnings = warnings
    }
}

/// A clean start of the video (µs, vtrim's timeline): a range starting at `micro` copies from it; a range ending at
/// `shownFromMicro` (its first leading picture, or itself) copies up to it, with nothing to re-encode at its end.
public struct CleanPoint: Sendable, Equatable, Hashable, Comparable {
    public var micro: Int64
    public var shownFromMicro: Int64

    public init(micro: Int64, shownFromMicro: Int64) {
        self.micro = micro
        self.shownFromMicro = min(micro, shownFromMicro)
    }

    public static func < (a: CleanPoint, b: CleanPoint) -> Bool { (a.micro, a.shownFromMicro) < (b.micro, b.shownFromMicro) }
}
