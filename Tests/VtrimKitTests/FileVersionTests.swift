import Foundation
import Glibc
import LibraryFiles
import Testing

/// A file's version says whether it is still the file a plan, a tile or a summary was made from.
struct FileVersionTests {
    /// `cp -p` (and `rsync -a`) of other content with the same size over a file keeps its size and mtime: with size and
    /// mtime alone the replaced file looked unchanged, and a shown plan ran on different content.
    @Test func contentCopiedOverWithTheSameSizeAndTimeIsAnotherVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vtrim-version-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clip = folder + "/clip.mp4"
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: clip))
        let before = try #require(FileVersion.of(clip))
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, clip, &times, 0) == 0)
        let stamped = try #require(FileVersion.of(clip))
        // What `cp -p` does: the same inode written with other bytes of the same length, then its times set back.
        let handle = try #require(FileHandle(forWritingAtPath: clip))
        try handle.write(contentsOf: Data(repeating: 2, count: 4096))
        try handle.close()
        #expect(utimensat(AT_FDCWD, clip, &times, 0) == 0)
        let after = try #require(FileVersion.of(clip))
        #expect(after.sizeBytes == stamped.sizeBytes && after.modifiedNanoseconds == stamped.modifiedNanoseconds && after.inode == stamped.inode)
        #expect(after != stamped, "\(after) reads as the version before the copy")
        #expect(before.inode == after.inode)
        // Replaced by a rename (an editor's save, `mv`): another inode.
        let replacement = folder + "/new.mp4"
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, clip) == 0)
        #expect(try #require(FileVersion.of(clip)).inode != after.inode)
    }
}
