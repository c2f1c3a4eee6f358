import Foundation
import TestSupport
import Testing

/// One field of a video track's `stts` or `ctts` changed (the values a crafted-header sweep found fatal: the
/// smart and exact writers' frame handlers counted dropped frames into the same variable the decoder counted
/// damage into, an overlapping access Swift aborts on). Every run ends with a result or a clean error.
@Suite struct CraftedTimingTests {
    struct Field: Sendable, CustomTestStringConvertible {
        var box: String
        var name: String
        var offset: Int
        var value: UInt32
        var testDescription: String { "\(box) \(name)=\(value)" }
    }

    static let fields: [Field] = ["stts", "ctts"].flatMap { box in
        [Field(box: box, name: "entry_count", offset: 4, value: 0), Field(box: box, name: "entry_count", offset: 4, value: 1),
         Field(box: box, name: "entry_count", offset: 4, value: 1000),
         Field(box: box, name: "sample_count", offset: 8, value: 0), Field(box: box, name: "sample_count", offset: 8, value: .max),
         Field(box: box, name: "delta", offset: 12, value: 1000), Field(box: box, name: "delta", offset: 12, value: UInt32(Int32.max))]
    }

    static var sources: [String] {
        var files = [TestPaths.fixture("h264-aac.mp4"), TestPaths.fixture("hevc.mp4")]
        if let shared = TestPaths.sharedMedia { files.append(shared + "/streamio-ffmpeg/horizontal_video_from_iphone.mov") }
        return files
    }

    @Test(arguments: sources, fields)
    func smartExactAndJoinsEndCleanly(source: String, field: Field) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ext = (source as NSString).pathExtension
        let path = folder.file("crafted.\(ext)")
        try Data(MP4Craft.settingField(of: source, box: field.box, offset: field.offset, to: field.value)).write(to: URL(fileURLWithPath: path))
        // The smart cut (edges on threads of their own), the exact writer (where the overlapping access was) and a
        // smart join; the phone clip, larger, through the smart cut the crash was first seen in.
        let fixture = source.hasPrefix(TestPaths.fixture(""))
        // The phone clip (1080p HEVC, one keyframe) falls back to re-encoding the range with x265: 0.2 s of it, at
        // x265's fastest preset (which keeps its B-frames).
        let end = fixture ? "2.5" : "0.7", preset = fixture ? "superfast" : "ultrafast"
        var runs: [(String, [String])] = [
            ("smart", ["cut", path, "--start", "0.5", "--end", end, "--mode", "smart", "-o", folder.file("smart.\(ext)")]),
        ]
        if fixture {
            runs += [("exact", ["cut", path, "--start", "0.5", "--end", "2.5", "--mode", "exact", "-o", folder.file("exact.\(ext)")]),
                     ("smart join", ["cut", path, "--keep", "0.2..1", "--keep", "1.5..2.5", "--mode", "smart", "-o", folder.file("join.\(ext)")])]
        }
        for (what, arguments) in runs {
            // What is checked is how each run ends, not its pictures: a fast preset (x264's and x265's B-frames kept).
            let result = try await Run.vtrim(arguments + ["--preset", preset])
            #expect(result.status == 0 || result.status == 1, "\(what) of \(field.testDescription): \(result)")
            #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") }, "\(what) of \(field.testDescription): \(result.stderr)")
        }
    }
}
