/// How to cut, whatever the range: the settings a cut request carries and its plan is made with.
public struct CutSettings: Sendable, Equatable, Codable {
    public var mode: CutMode
    /// Re-encoding: encoder quality (CRF) and speed preset (x264 names).
    public var crf: Int
    /// The quality an exact cut gets: `crf` where it was asked for, else exact's default — a smart cut falling back
    /// encodes as `--mode exact` would (smart's edges default finer, 16, to match the copied frames).
    public var exactCRF: Int
    public var preset: String
    public var threads: ThreadBudget
    /// MP4/MOV: put the index before the media (for playback while downloading).
    public var faststart: Bool
    /// H.264/HEVC into MP4/MOV: parameter sets in the sample entry (avc1/hvc1) or in the samples (avc3/hev1).
    public var sampleEntry: SampleEntryPlan.Placement
    /// What happens to the source's chapters.
    public var chapters: ChapterPolicy = .keep
    /// Joins: how the audio meets at the seams (exact joins re-encode it whatever this says).
    public var audioSeams: AudioSeams = .nearest

    public init(mode: CutMode, crf: Int = 20, preset: String = "veryfast", threads: ThreadBudget = .share(cores: 1, jobs: 1),
                faststart: Bool = false, sampleEntry: SampleEntryPlan.Placement = .outOfBand, exactCRF: Int? = nil) {
        self.mode = mode
        self.crf = crf
        self.exactCRF = exactCRF ?? crf
        self.preset = preset
        self.threads = threads
        self.faststart = faststart
        self.sampleEntry = sampleEntry
    }
}

/// What to cut: a range on the source's presentation timeline (seconds, 0 = container start), and how.
public struct CutSpec: Sendable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var settings: CutSettings

    public init(startSeconds: Double, endSeconds: Double, settings: CutSettings) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.settings = settings
    }

    var mode: CutMode { settings.mode }
}
