import Foundation
@testable import MediaEngine
import Testing

/// Ending MP4 edit lists in place: the values change, nothing moves; damaged box sizes never trap.
struct MovieHeaderPatchTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8((size >> 16) & 0xff), UInt8((size >> 8) & 0xff), UInt8(size & 0xff)] + Array(type.utf8) + payload
    }

    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)] }

    /// A version-0 moov: mvhd (timescale 1000), a video track 1 with an edit [0, 2000) and an audio track
    /// 2 of 2100 with a delay edit of 100 before a 2000 media edit.
    static func movie() -> [UInt8] {
        let mvhd = box("mvhd", [0, 0, 0, 0] + u32(0) + u32(0) + u32(1000) + u32(2100) + Array(repeating: 0, count: 80))
        func tkhd(_ id: UInt32, _ duration: UInt32) -> [UInt8] {
            box("tkhd", [0, 0, 0, 3] + u32(0) + u32(0) + u32(id) + u32(0) + u32(duration) + Array(repeating: 0, count: 60))
        }
        func elst(_ entries: [(UInt32, Int32)]) -> [UInt8] {
            box("edts", box("elst", [0, 0, 0, 0] + u32(UInt32(entries.count)) + entries.flatMap { u32($0.0) + u32(UInt32(bitPattern: $0.1)) + u32(0x10000) }))
        }
        let video = box("trak", tkhd(1, 2000) + elst([(2000, 512)]))
        let audio = box("trak", tkhd(2, 2100) + elst([(100, -1), (2000, 0)]))
        return box("moov", mvhd + video + audio)
    }

    @Test func endsTheVideoEditAndShortensLongerTracks() async throws {
        var moov = Self.movie()
        // 1.5 s in a 1/90000 time base: 1500 movie ticks.
        try MovieHeaderPatch.patch(&moov, videoTrackID: 1, videoEditTicks: 135_000, timeBase: Rational(1, 90000))
        let children = MovieBoxes.boxes(in: moov, from: 8, to: moov.count)
        let mvhd = try #require(children.first { $0.type == "mvhd" })
        #expect(MovieBoxes.read(moov, at: mvhd.start + 24, bytes: 4) == 1500)
        let traks = children.filter { $0.type == "trak" }
        func tkhdDuration(_ trak: MovieBoxes.Box) -> UInt64 {
            let tkhd = MovieBoxes.boxes(in: moov, from: trak.start + 8, to: trak.end).first { $0.type == "tkhd" }!
            return MovieBoxes.read(moov, at: tkhd.start + 28, bytes: 4)
        }
        func lastEdit(_ trak: MovieBoxes.Box) -> UInt64 {
            let edts = MovieBoxes.boxes(in: moov, from: trak.start + 8, to: trak.end).first { $0.type == "edts" }!
            let elst = MovieBoxes.boxes(in: moov, from: edts.start + 8, to: edts.end).first { $0.type == "elst" }!
            let count = Int(MovieBoxes.read(moov, at: elst.start + 12, bytes: 4))
            return MovieBoxes.read(moov, at: elst.start + 16 + (count - 1) * 12, bytes: 4)
        }
        #expect(tkhdDuration(traks[0]) == 1500 && lastEdit(traks[0]) == 1500)
        // The audio track keeps its 100-tick delay; its media edit ends with the video.
        #expect(tkhdDuration(traks[1]) == 1500 && lastEdit(traks[1]) == 1400)
        #expect(moov.count == Self.movie().count)
    }

    @Test func damagedBoxSizesEndTheWalk() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("boxes-\(UUID().uuidString).mp4").path
        defer { unlink(path) }
        // ftyp, then an mdat whose 64-bit size runs past Int64 (what a muxer wrote for a damaged input).
        let bytes = Self.box("ftyp", Array("isom".utf8) + Self.u32(0)) + Self.u32(1) + Array("mdat".utf8) + Array(repeating: 0xff, count: 8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        #expect(try MovieBoxes.findMovieBox(descriptor) == nil)
        #expect(throws: AVFailure.self) {
            try MovieHeaderPatch.endEdits(path: path, videoTrackID: 1, videoEditTicks: 10, timeBase: Rational(1, 1000))
        }
    }
}
