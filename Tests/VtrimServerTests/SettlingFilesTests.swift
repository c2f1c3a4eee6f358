import Foundation
import Testing
import TestSupport
@testable import VtrimServer

/// A file being written is ready once nothing has written to it for the settle time and its size held; one whose
/// size moved without an event waits again; a file removed from the set is no longer held.
@Suite struct SettlingFilesTests {
    @Test func aFileSettlesWhenItsWritesStopAndItsSizeHolds() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("rec.mp4")
        try Data(count: 100).write(to: URL(fileURLWithPath: path))
        var settling = SettlingFiles()
        settling.touch(path, at: 10)
        #expect(settling.files == [path])
        #expect(settling.settled(at: 12.9, after: 3).isEmpty, "written 2.9 s ago")
        settling.touch(path, at: 12.9)
        #expect(settling.settled(at: 15, after: 3).isEmpty, "written again since")
        // Grown without an event reaching us: measured again, and waits another settle time.
        try Data(count: 200).write(to: URL(fileURLWithPath: path))
        #expect(settling.settled(at: 16, after: 3).isEmpty)
        #expect(settling.contains(path))
        #expect(settling.settled(at: 18.9, after: 3).isEmpty)
        #expect(settling.settled(at: 19, after: 3) == [folder.path])
        #expect(settling.isEmpty)
    }

    @Test func aClosedOrRemovedFileIsNoLongerHeld() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var settling = SettlingFiles()
        settling.touch(folder.file("gone.mp4"), at: 0)
        // Never there (or removed): its size stays unknown, so it settles and its folder is listed again.
        #expect(settling.settled(at: 3, after: 3) == [folder.path])
        settling.touch(folder.file("a.mp4"), at: 0)
        settling.remove(folder.file("a.mp4"))
        #expect(settling.isEmpty)
    }
}
