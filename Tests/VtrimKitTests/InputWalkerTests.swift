import Foundation
import LibraryFiles
import Testing
import TestSupport
@testable import VtrimKit

struct InputWalkerTests {
    @Test func foldersNeedRecursive() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: InputWalker.WalkError.folderNeedsRecursive(folder.path)) {
            try InputWalker(recursive: false).expand([folder.path])
        }
    }

    @Test func mediaFilesSortedHiddenSkippedFilesKeptAsGiven() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for name in ["b.mp4", "a.MKV", "notes.txt", ".hidden.mp4", "sub/c.webm", "sub/.secret/d.mp4"] {
            let path = folder.file(name)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: path))
        }
        let files = try InputWalker(recursive: true).expand([folder.path, "given-as-is.txt"])
        #expect(files == ["a.MKV", "b.mp4", "sub/c.webm"].map(folder.file) + ["given-as-is.txt"])
    }

    /// Storyboard folders (`thumbs --storyboard`) are not walked, even with --include "*"; BIF files are no media.
    @Test func walksSkipStoryboards() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for name in ["m.mkv", "m.trickplay/320 - 10x10/0.jpg", "m.trickplay-hls/320 - 10x10/x.ts", "m.trickplay-dash/320 - 10x10/y.mp4",
                     "m-320-10.bif", "extras.trickplayer/z.mp4"] {
            let path = folder.file(name)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: path))
        }
        #expect(try InputWalker(recursive: true).expand([folder.path]) == ["extras.trickplayer/z.mp4", "m.mkv"].map(folder.file))
        #expect(try InputWalker(recursive: true, include: ["*"]).expand([folder.path]) == ["extras.trickplayer/z.mp4", "m-320-10.bif", "m.mkv"].map(folder.file))
    }

    /// A second run over a folder never takes the first run's outputs (x.cut.mov → x.cut.cut.mov), even under
    /// --include, unless --include-outputs; files given by name are always taken.
    @Test func walksSkipVtrimsOwnOutputs() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let names = ["x.mov", "x.cut.mov", "x.2.cut.mp4", "x.intro.cut.mkv", "x.thumbs.png", "x.thumbs.vtt", "x.1.5-3.25.cut.mov",
                     "x.1.5-3.25.cut-2.mov", "cut.mp4", "x.cutaway.mp4", "x.cut-take.mp4"]
        for name in names { try Data().write(to: URL(fileURLWithPath: folder.file(name))) }
        #expect(try InputWalker(recursive: true).expand([folder.path]) == ["cut.mp4", "x.cut-take.mp4", "x.cutaway.mp4", "x.mov"].map(folder.file))
        #expect(try InputWalker(recursive: true, include: ["*"]).expand([folder.path]) == ["cut.mp4", "x.cut-take.mp4", "x.cutaway.mp4", "x.mov"].map(folder.file))
        #expect(try InputWalker(recursive: true, includeOutputs: true).expand([folder.path]).count == names.count - 2)
        #expect(try InputWalker(recursive: true).expand([folder.file("x.cut.mov")]) == [folder.file("x.cut.mov")])
    }

    /// Which input an output was made from (serve lists cuts under their clip).
    @Test(arguments: [("x.cut.mov", "x"), ("x.thumbs.png", "x"), ("x.1.5-3.25.cut.mov", "x"), ("x.1.5-3.25.cut-2.mov", "x"),
                      ("x.1-3.cut.mp4", "x"), ("trip.day.1.5-3.cut.mp4", "trip.day"), ("x.intro.cut.mkv", "x.intro"),
                      ("x.mov", nil), ("x.cutaway.mp4", nil), ("x.cut-take.mp4", nil)] as [(String, String?)])
    func outputsNameTheirSource(_ name: String, _ stem: String?) async {
        #expect(InputWalker.sourceStem(ofOutput: name) == stem)
    }
}
