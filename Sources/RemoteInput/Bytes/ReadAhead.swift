/// How much a read of a remote file fetches past what it asked for: one block after a seek, twice as many as last
/// time while reads continue where the last fetch ended, never more than `maximumBlocks` (256 KiB) in one request.
/// Blocks are small (16 KiB) so a seek costs little past what it reads: fast thumbnails read a keyframe per seek, and
/// one of a low-rate clip is a few KiB. Pure: a cache's state, updated by each miss.
public struct ReadAhead: Sendable, Equatable {
    public static let blockBytes: Int64 = 16 << 10
    public static let maximumBlocks: Int64 = 16

    /// The block after the last fetched run, and that run's length.
    private var nextBlock: Int64 = -1
    private var lastRun: Int64 = 0

    public init() {}

    /// Blocks to fetch for a miss at `block` (at least the blocks the read needs, `needed`).
    public mutating func blocks(missAt block: Int64, needed: Int64) -> Int64 {
        let sequential = block == nextBlock
        let run = min(Self.maximumBlocks, max(needed, sequential ? max(1, lastRun * 2) : 1))
        lastRun = run
        nextBlock = block + run
        return run
    }
}
