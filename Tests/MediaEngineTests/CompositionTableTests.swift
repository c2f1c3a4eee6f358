@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// A keyframe's presentation time from its track's composition offsets: only a table FFmpeg reads as it stands.
struct CompositionTableTests {
    @Test func offsetsFollowTheRuns() throws {
        // x264 with B-frames: a keyframe +2, then runs of P/B frames.
        let table = try #require(CompositionTable(sampleCount: 6, entries: [(1, 1024), (2, 2048), (3, 0)]))
        #expect((0..<6).map { table.offset(sample: $0) } == [1024, 2048, 2048, 0, 0, 0])
        #expect(table.offset(sample: 6) == nil && table.offset(sample: -1) == nil)
        #expect(CompositionTable(sampleCount: 3, entries: [])?.offset(sample: 2) == 0, "no table: shown when decoded")
        #expect(CompositionTable(sampleCount: 6, entries: [(1, 1024), (2, 2048)]) == nil, "a table short of the track's samples")
        #expect(CompositionTable(sampleCount: 6, entries: [(0, 5), (6, 1)]) == nil, "an entry FFmpeg skips")
        #expect(CompositionTable(sampleCount: 6, entries: [(6, 1 << 29)]) == nil, "a table FFmpeg drops")
    }

    /// Any entries (counts and offsets as a file may hold them) for any sample count: a table whose offsets are the
    /// runs spelt out, or none; never a trap.
    @Test func anyEntriesGiveTheRunsOrNone() async {
        let entry = zip(Gen.int64(in: -3...40), Wild.int64).map { (count: $0, offset: $1) }
        await propertyCheck(count: 500, input: entry.array(of: 0...12), Gen.int(in: -2...300)) { entries, samples in
            guard let table = CompositionTable(sampleCount: samples, entries: entries) else { return }
            let spelt = entries.flatMap { [Int64](repeating: $0.offset, count: Int($0.count)) }
            #expect(entries.isEmpty ? true : spelt.count == samples)
            for sample in 0..<samples { #expect(table.offset(sample: sample) == (entries.isEmpty ? 0 : spelt[sample])) }
            #expect(table.offset(sample: samples) == nil)
        }
    }
}
