/// How much a read of a remote file fetches past what it asked for: after a seek, what the read needs; the first
/// read on from there, again only what it needs (a keyframe a little larger than the first run: fast thumbnails read
/// one per seek, and a doubled run would fetch as much again past it); from the second on, twice the last run, never
/// more than `maximumBlocks` (256 KiB) in one request. Blocks are small (16 KiB) so a seek costs little past what it
/// reads. Pure: a cache's state, updated by each miss.
public struct ReadAhead: Sendable, Equatable {
    public static let blockBytes: Int64 = 16 << 10
    public static let maximumBlocks: Int64 = 16

    /// The block after the last fetched run, that run's length, and how many runs in a row went on from the last.
    private var nextBlock: Int64 = -1
    private var lastRun: Int64 = 0
    private var runsOn = 0

    public init() {}

    /// Blocks to fetch for a miss at `block` (at least the blocks the read needs, `needed`).
    public mutating func blocks(missAt block: Int64, needed: Int64) -> Int64 {
        runsOn = block == nextBlock ? runsOn + 1 : 0
        let grown = runsOn >= 2 ? lastRun * 2 : 1
        let run = min(Self.maximumBlocks, max(needed, grown))
        lastRun = run
        nextBlock = block + run
        return run
    }
}
