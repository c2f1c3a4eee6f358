import Foundation
import Glibc
@testable import LibraryFiles
import Testing

/// The one way a file or folder is written: a temporary beside the output, put in place whole.
struct TemporaryNameTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vtrim-temporary-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ path: String, _ text: String) { FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
    static func read(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }

    /// A file: never over an existing one unless replacing; the temporary gone either way.
    @Test func filesAreCommittedWhole() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = TemporaryName(output: folder + "/clip.cut.mp4")
        let first = name.makePath()
        #expect((first as NSString).lastPathComponent.hasPrefix(".clip.cut.vtrim-tmp-") && first.hasSuffix(".mp4"))
        Self.write(first, "one")
        try name.commit(first, replacing: false)
        #expect(Self.read(name.output) == "one" && !FileManager.default.fileExists(atPath: first))
        let second = name.makePath()
        Self.write(second, "two")
        #expect(throws: TemporaryName.CommitError.exists) { try name.commit(second, replacing: false) }
        #expect(Self.read(name.output) == "one" && !FileManager.default.fileExists(atPath: second))
        let third = name.makePath()
        Self.write(third, "three")
        try name.commit(third, replacing: true)
        #expect(Self.read(name.output) == "three")
    }

    /// A folder (a storyboard): put in place whole, replacing an existing one by exchange — never half old, half new —
    /// and never over one without replacing (not even an empty one, which rename(2) would take).
    @Test func foldersAreCommittedWhole() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = TemporaryName(output: folder + "/clip.trickplay")
        for (round, replacing) in [(1, false), (2, true)] {
            let temporary = name.makePath()
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
            Self.write(temporary + "/\(round).jpg", "sheet \(round)")
            try name.commit(temporary, replacing: replacing)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: name.output) == ["2.jpg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["clip.trickplay"], "the old folder is gone")
        let empty = TemporaryName(output: folder + "/empty.trickplay")
        try FileManager.default.createDirectory(atPath: empty.output, withIntermediateDirectories: false)
        let temporary = empty.makePath()
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        #expect(throws: TemporaryName.CommitError.exists) { try empty.commit(temporary, replacing: false) }
    }

    /// Leftovers are removed only when written on this host by a process that is gone: a live process's temporary, and
    /// another host's, stay.
    @Test func onlyDeadProcessesLeftoversAreRemoved() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let host = TemporaryName.hostName
        var dead: Int32 = 999_999
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let names = [".clip.cut.vtrim-tmp-\(host)+\(dead)+1.mp4", ".clip.cut.vtrim-tmp-\(host)+\(getpid())+2.mp4",
                     ".clip.cut.vtrim-tmp-elsewhere+\(dead)+3.mp4", ".other.cut.vtrim-tmp-\(host)+\(dead)+4.mp4"]
        for name in names { Self.write(folder + "/" + name, "x") }
        try FileManager.default.createDirectory(atPath: folder + "/.clip.cut.vtrim-tmp-\(host)+\(dead)+5.mp4", withIntermediateDirectories: false)
        TemporaryName(output: folder + "/clip.cut.mp4").removeStale()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == Array(names[1...3]).sorted())
        TemporaryName.removeStale(inFolder: folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == Array(names[1...2]).sorted())
    }

    /// A retried task's attempt removes its earlier attempts' temporaries, by the attempt's id (their pids may be another
    /// host's): not its own, not another task's, not a host-marked one of a live process.
    @Test(arguments: [
        (".c.cut.vtrim-tmp-@in3@a1+5+1.mp4", "in3:a2", true),
        (".c.cut.vtrim-tmp-@in3@a2+5+1.mp4", "in3:a2", false),
        (".c.cut.vtrim-tmp-@in4@a1+5+1.mp4", "in3:a2", false),
        (".c.cut.vtrim-tmp-@in3@a1+5+1.mp4", nil, false),
        (".c.cut.vtrim-tmp-@in3+5+1.mp4", "in3:a2", false),
        (".c.cut.vtrim-tmp-@@a1+5+1.mp4", "in3:a2", false),
        (".c.cut.vtrim-tmp-@in3@a1+x+1.mp4", "in3:a2", false),
    ] as [(String, String?, Bool)])
    func attemptsRemoveTheirTasksEarlierAttempts(_ name: String, current: String?, removed: Bool) {
        #expect(TemporaryName.isLeftOver(name, host: "h", attempt: current.flatMap(TemporaryName.Attempt.init)) == removed)
    }

    @Test(arguments: ["", "a", "a:", ":b", "a:b:c", "a b:c", "a:b/c", String(repeating: "x", count: 33) + ":1", "a:@"])
    func malformedAttemptsAreRefused(_ text: String) {
        #expect(TemporaryName.Attempt(text) == nil)
    }
}
