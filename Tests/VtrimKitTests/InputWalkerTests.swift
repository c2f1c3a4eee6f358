import Foundation
import TestSupport
import Testing
@testable import VtrimKit

struct InputWalkerTests {
    @Test func foldersNeedRecursive() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: InputWalker.WalkError.folderNeedsRecursive(folder.path)) {
            try InputWalker(recursive: false).expand([folder.path])
        }
    }

    @Test func mediaFilesSortedHiddenSkippedFilesKeptAsGiven() throws {
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
}
