/// How an edit's re-encoded frames are made — decided with the plan, so the writers only execute it (and a plan
/// made in one `vtrim serve` worker runs the same in another). One for the whole output: an exact edit's one
/// encoder, or a smart edit's edges in every range.
public struct Reencoding: Sendable, Equatable, Codable {
    /// The encoder (libx264, libx265, …) and its options: quality, speed, threads, the profile and level a
    /// smart cut's edges share with the source, HDR metadata, x264's own parameter set id.
    public var encoder: String
    public var options: [String: String]
    /// Encoder threads of each re-encoding part.
    public var threads: Int
    /// The encoder's input pixel format (FFmpeg's name).
    public var pixelFormat: String
    /// A full-range source converted to a limited-range format: the output is tagged limited.
    public var tagsLimitedRange: Bool
    /// The orientation turned into the pixels (the output cannot carry a display matrix), or nil.
    public var bakedOrientation: Orientation?
}
