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

    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)] }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
    /// A moov with one track (ID 1) of `samples` samples and the given sample-table boxes after its `stsz`.
    static func moov(samples: UInt32, tables: [[UInt8]], trackID: UInt32 = 1, tracks: Int = 1) -> [UInt8] {
        let tkhd = box("tkhd", [0, 0, 0, 0] + u32(0) + u32(0) + u32(trackID) + [UInt8](repeating: 0, count: 68))
        let stsz = box("stsz", [0, 0, 0, 0] + u32(0) + u32(samples))
        let trak = box("trak", tkhd + box("mdia", box("minf", box("stbl", stsz + tables.flatMap { $0 }))))
        return box("moov", (0..<tracks).flatMap { _ in trak })
    }
    static func ctts(declared: UInt32, _ entries: [(UInt32, UInt32)]) -> [UInt8] {
        box("ctts", [0, 0, 0, 0] + u32(declared) + entries.flatMap { u32($0.0) + u32($0.1) })
    }

    /// Read from a moov only where FFmpeg reads the same table: one track of the ID, one `ctts`, no entries declared
    /// past the box's end.
    @Test func aTableIsReadOnlyWhereFFmpegReadsTheSame() {
        let table = CompositionTable.read(moov: Self.moov(samples: 3, tables: [Self.ctts(declared: 2, [(1, 2048), (2, 0)])]), trackID: 1)
        #expect(table?.offset(sample: 0) == 2048 && table?.offset(sample: 2) == 0)
        #expect(CompositionTable.read(moov: Self.moov(samples: 3, tables: []), trackID: 1)?.offset(sample: 1) == 0)
        #expect(CompositionTable.read(moov: Self.moov(samples: 3, tables: [Self.ctts(declared: 3, [(1, 2048), (2, 0)])]), trackID: 1) == nil)
        #expect(CompositionTable.read(moov: Self.moov(samples: 3, tables: [Self.ctts(declared: 1, [(3, 0)]), Self.ctts(declared: 1, [(3, 512)])]), trackID: 1) == nil)
        #expect(CompositionTable.read(moov: Self.moov(samples: 3, tables: [], tracks: 2), trackID: 1) == nil)
        #expect(CompositionTable.read(moov: Self.moov(samples: 3, tables: []), trackID: 2) == nil)
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
