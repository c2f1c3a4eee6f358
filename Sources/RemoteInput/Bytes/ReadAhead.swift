/// How much a read of a remote file fetches past what it asked for: after a seek, what the read needs; the first
/// read on from there, again only what it needs (a keyframe a little larger than the demuxer's first buffer fill:
/// fast thumbnails read one per seek, and a doubled run would fetch as much again past it); from the second on,
/// twice the last run, never more than `maximumBytes` (256 KiB) in one request. In bytes, not blocks: a seek fetches
/// from where the read begins. Pure: a cache's state, updated by each miss.
public struct ReadAhead: Sendable, Equatable {
    public static let maximumBytes: Int64 = 256 << 10

    /// The byte after the last fetched run, that run's length, and how many runs in a row went on from the last.
    private var nextByte: Int64 = -1
    private var lastRun: Int64 = 0
    private var runsOn = 0

    public init() {}

    /// Bytes to fetch for a miss at `position` (at least what the read needs, `needed`, up to the maximum).
    public mutating func bytes(missAt position: Int64, needed: Int64) -> Int64 {
        runsOn = position == nextByte ? runsOn + 1 : 0
        let grown = runsOn >= 2 ? lastRun * 2 : 1
        let run = min(Self.maximumBytes, max(needed, grown, 1))
        lastRun = run
        nextByte = position + run
        return run
    }

    /// The run fetched was cut short (at a `moov`'s end): the next read there starts afresh, as after a seek.
    public mutating func restart() {
        nextByte = -1
        lastRun = 0
        runsOn = 0
    }
}
