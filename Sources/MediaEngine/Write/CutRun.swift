/// What the writer found while running: run-time notes and warnings (damaged frames, an early end).
public struct CutRun: Sendable {
    public var notices: [CutNotice]
    /// How much later than written the muxer put everything (a format without negative times, shifting
    /// an exact cut's first decode times to 0): measured times minus this are the times written.
    public var muxerShiftSeconds: Double = 0
    /// The first video frame's presentation time as written (before the muxer), on the output's timeline.
    public var writtenVideoStartSeconds: Double?
    /// A join: each seam's audio offset against the video (seconds; positive: audio later), one per range after the first.
    public var audioSeamOffsetsSeconds: [Double] = []
}
