import Foundation
import MediaEngine
import TestSupport
import Testing

/// What players need of an H.264/HEVC track in MP4/MOV (ISO/IEC 14496-15): exact and copy cuts are
/// `avc1`/`hvc1`, every parameter set in the sample entry's record and none in the samples, checked by
/// walking the boxes, then decoded in full by ffmpeg and by GStreamer.
struct SampleEntryTests {
    static func expectOutOfBand(_ path: String, entry: String, _ context: String) throws {
        let track = try MP4VideoTrack.read(path)
        #expect(track.entries.map(\.type) == [entry], "\(context)")
        let wanted: Set<Int> = entry == "hvc1" ? [32, 33, 34] : [7, 8]
        let record = Set(track.entries.first?.recordNALTypes ?? [])
        #expect(record.isSuperset(of: wanted), "\(context): record holds \(record.sorted())")
        #expect(track.sampleEntryIndices.allSatisfy { $0 == 1 } && !track.sampleEntryIndices.isEmpty, "\(context)")
        let inBand = track.sampleNALTypes.enumerated().filter { !$0.element.allSatisfy { !track.parameterSetTypes.contains($0) } }.map(\.offset)
        #expect(inBand.isEmpty, "\(context): parameter sets inside samples \(inBand.prefix(5))")
    }

    static func expectDecodesCleanly(_ path: String, hevc: Bool, _ context: String) throws {
        let ffmpeg = try Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "null", "-"])
        #expect(ffmpeg.status == 0 && ffmpeg.stderr.isEmpty, "\(context): \(ffmpeg.stderr)")
        guard TestPaths.toolExists("gst-launch-1.0") else { return }
        let parser = hevc ? "h265parse ! avdec_h265" : "h264parse ! avdec_h264"
        let pipeline = "filesrc location=\(path) ! qtdemux name=d d.video_0 ! queue ! \(parser) ! fakesink"
        let gst = try Run.tool("gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init))
        #expect(gst.status == 0, "\(context): GStreamer: \(gst.stderr) \(gst.stdout)")
        #expect(!gst.stderr.contains("ERROR") && !gst.stdout.contains("ERROR"), "\(context): \(gst.stderr)")
    }

    @Test(arguments: [("hevc.mp4", "exact", "mp4"), ("hevc.mp4", "exact", "mov"), ("h264-aac.mp4", "exact", "mp4"),
                      ("hevc.mp4", "copy", "mp4"), ("h264-aac.mp4", "copy", "mov"), ("hdr10-pq.mp4", "exact", "mp4")])
    func exactAndCopyCutsAreOutOfBand(_ file: String, _ mode: String, _ container: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("cut.\(container)")
        let result = try Run.vtrim(["cut", TestPaths.fixture(file), "--start", "0.2", "--end", "0.8", "--mode", mode, "-o", output])
        #expect(result.status == 0, "\(result)")
        let hevc = file != "h264-aac.mp4"
        try Self.expectOutOfBand(output, entry: hevc ? "hvc1" : "avc1", "\(file) \(mode) .\(container)")
        try Self.expectDecodesCleanly(output, hevc: hevc, "\(file) \(mode) .\(container)")
    }

    /// The reader itself: a smart cut today writes the in-band variant, which it must see.
    @Test func theWalkerSeesInBandParameterSets() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("smart.mp4")
        let result = try Run.vtrim(["cut", TestPaths.fixture("h264-aac.mp4"), "--start", "0.5", "--end", "2.5", "--mode", "smart", "-o", output])
        #expect(result.status == 0, "\(result)")
        let track = try MP4VideoTrack.read(output)
        #expect(track.entries.map(\.type) == ["avc3"])
        #expect(track.sampleNALTypes.contains { $0.contains(7) } && track.sampleNALTypes.contains { $0.contains(8) })
    }
}
