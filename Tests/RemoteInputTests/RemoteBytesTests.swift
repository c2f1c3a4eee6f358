import Foundation
import PropertyBased
import PropertySupport
@testable import RemoteInput
import Testing

@Suite struct ReadAheadTests {
    /// What a read needs after a seek and on the first read on from it (a keyframe a little larger than the demuxer's
    /// 16 KiB buffer fill: a doubled run fetched as much again past it per fast thumbnail); then twice the last run
    /// while reads go on where it ended; never more than 256 KiB at once.
    @Test func runsDoubleWhileSequentialAndStartSmallAfterASeek() {
        var ahead = ReadAhead()
        var position: Int64 = 100_000
        var runs: [Int64] = []
        for _ in 0..<7 {
            let run = ahead.bytes(missAt: position, needed: 16_384)
            runs.append(run)
            position += run
        }
        #expect(runs == [16_384, 16_384, 32_768, 65_536, 131_072, 262_144, 262_144])
        // The demuxer over a 42,163-byte keyframe after a seek: its 16 KiB buffer fill, then the rest read directly.
        var keyframe = ReadAhead()
        #expect(keyframe.bytes(missAt: 7_000_123, needed: 16_384) == 16_384 && keyframe.bytes(missAt: 7_016_507, needed: 25_779) == 25_779)
        #expect(keyframe.bytes(missAt: 7_042_286, needed: 100) == 51_558, "a third read on: a long read is under way")
        #expect(ahead.bytes(missAt: 5, needed: 1) == 1, "a seek starts small again")
        #expect(ahead.bytes(missAt: 900_000, needed: 1 << 20) == ReadAhead.maximumBytes, "a large read is fetched 256 KiB at a time")
        var stopped = ReadAhead()
        _ = stopped.bytes(missAt: 0, needed: 10)
        _ = stopped.bytes(missAt: 10, needed: 10)
        stopped.restart()
        #expect(stopped.bytes(missAt: 20, needed: 10) == 10, "after a run cut short, as after a seek")
    }
}

/// What a remote file holds: ranges at their own offsets, never overlapping, each byte the file's.
@Suite struct ByteExtentsTests {
    static func content(_ range: Range<Int64>) -> Data { Data(range.map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }) }

    /// Any ranges stored in any order (overlapping, repeated, adjacent), under any bound: what is held reads back as the
    /// file's bytes, the ranges stay sorted and apart, the total is their sum and stays under the bound (or one range).
    @Test func anyInsertsHoldTheFilesBytesApart() async {
        let range = zip(Gen.int(in: 0...5_000), Gen.int(in: 0...700)).map { start, length in Int64(start)..<Int64(start + length) }
        await propertyCheck(count: 300, input: range.array(of: 0...30), Gen.int(in: 1...6_000)) { ranges, bound in
            var extents = ByteExtents(maximumBytes: Int64(bound))
            for range in ranges { extents.insert(Self.content(range), at: range.lowerBound) }
            let held = extents.ranges
            #expect(zip(held, held.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound })
            #expect(extents.totalBytes == held.reduce(0) { $0 + Int64($1.count) })
            #expect(extents.totalBytes <= Int64(bound) || held.count <= 1)
            for range in held {
                #expect(extents.held(at: range.lowerBound) == Self.content(range))
                #expect(extents.bytes(at: range.lowerBound, count: range.count) == Array(Self.content(range)))
            }
            for position in stride(from: Int64(0), to: 5_800, by: 97) {
                let run = extents.held(at: position)
                #expect(run == Self.content(position..<(position + Int64(run.count))))
                #expect(run.isEmpty == !held.contains { $0.contains(position) })
                if run.isEmpty, let next = extents.nextStart(after: position) {
                    #expect(next > position && held.contains { $0.lowerBound == next })
                }
            }
        }
    }
}

/// The `moov`'s end from the top-level headers, whatever bytes a server sends.
@Suite struct TopLevelBoxesTests {
    static func header(_ size: UInt32, _ type: String) -> [UInt8] {
        [UInt8(size >> 24), UInt8((size >> 16) & 0xff), UInt8((size >> 8) & 0xff), UInt8(size & 0xff)] + Array(type.utf8)
    }

    @Test func theMovieBoxEndsWhereItsHeaderSays() {
        // ftyp 32, moov 7,791,908, free 8, mdat to the end: as the bench's 2-hour file.
        var file: [Int64: [UInt8]] = [0: Self.header(32, "ftyp"), 32: Self.header(7_791_908, "moov"), 7_791_940: Self.header(8, "free"),
                                      7_791_948: Self.header(1_000_000, "mdat")]
        var boxes = TopLevelBoxes(fileSize: 8_791_948)
        boxes.learn { offset, count in file[offset].map { Array($0.prefix(count)) } }
        #expect(boxes.ends == [7_791_940] && boxes.end(after: 7_667_712) == 7_791_940 && boxes.end(after: 7_791_940) == nil)
        // The moov at the end, its header read later.
        file = [0: Self.header(32, "ftyp"), 32: Self.header(1_000, "mdat")]
        boxes = TopLevelBoxes(fileSize: 1_532)
        boxes.learn { offset, count in file[offset].map { Array($0.prefix(count)) } }
        #expect(boxes.ends.isEmpty)
        file[1_032] = Self.header(500, "moov")
        boxes.learn { offset, count in file[offset].map { Array($0.prefix(count)) } }
        #expect(boxes.ends == [1_532])
        // Not an MP4 (a TS packet): nothing learnt.
        boxes = TopLevelBoxes(fileSize: 1_000)
        boxes.learn { _, count in Array([0x47, 0x40, 0x00, 0x10, 0x00, 0x00, 0xB0, 0x0D].prefix(count)) }
        #expect(boxes.ends.isEmpty)
    }

    /// Any header bytes at any offsets: ends inside the file, ascending; never a trap.
    @Test func anyHeadersGiveEndsInsideTheFile() async {
        let byte = Gen.int(in: 0...255).map { UInt8($0) }
        await propertyCheck(count: 400, input: byte.array(of: 16...16).array(of: 0...12), Wild.int64) { headers, size in
            let fileSize = max(0, size % (1 << 40))
            var boxes = TopLevelBoxes(fileSize: fileSize)
            var served = 0
            boxes.learn { _, count in
                guard served < headers.count else { return nil }
                defer { served += 1 }
                return Array(headers[served].prefix(count))
            }
            #expect(boxes.ends.allSatisfy { $0 > 0 && $0 <= fileSize })
            #expect(boxes.ends == boxes.ends.sorted())
        }
    }
}
