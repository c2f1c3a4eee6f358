import DiskNames
import Foundation
import LibraryFiles
import PropertyBased
import PropertySupport
import Testing
import TestSupport
import WorkerProtocol
@testable import VtrimServer

/// The state database (`StateDatabase`): it always opens — made, migrated, a damaged or foreign file moved aside, a
/// newer one left alone — and what is written reads back as written.
@Suite struct StateDatabaseTests {
    static let root = RootKey(device: 2049, inode: 131_073)

    private static func open(_ folder: TemporaryFolder) -> (StateDatabase?, [String]) {
        var said: [String] = []
        let database = StateDatabase.open(folder: folder.path) { said.append($0) }
        return (database, said)
    }

    @Test func aNewDatabaseIsOursInWALAtTheNewestSchema() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (database, said) = Self.open(folder)
        let made = try #require(database)
        #expect(said.isEmpty, "\(said)")
        #expect(made.journalMode == "wal")
        let facts = made.use("read") { connection throws(SQLiteError) in
            [try connection.scalar("PRAGMA user_version")?.integer, try connection.scalar("PRAGMA application_id")?.integer]
        }
        #expect(facts == [Int64(StateDatabase.migrations.count), StateDatabase.applicationID])
        // Opened again: the same file, nothing moved.
        let (again, saidAgain) = Self.open(folder)
        #expect(again?.path == made.path && saidAgain.isEmpty)
        #expect(folder.entries().filter { $0.contains("damaged") }.isEmpty)
    }

    @Test(arguments: ["not a database at all, just text", "SQLite format 3\u{0}" + String(repeating: "\u{7}", count: 200)])
    func aDamagedFileIsMovedAsideAndANewOneMade(content: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data(content.utf8).write(to: URL(fileURLWithPath: folder.file(StateDatabase.fileName)))
        let (database, said) = Self.open(folder)
        let made = try #require(database)
        #expect(made.journalMode == "wal", "a file again, not memory")
        let aside = folder.entries().filter { $0.hasPrefix(StateDatabase.fileName + ".damaged-") }
        #expect(aside.count == 1, "\(folder.entries())")
        #expect(said.count == 1 && said[0].contains("moved aside"), "\(said)")
        let moved = try Data(contentsOf: URL(fileURLWithPath: folder.file(aside.first ?? "-")))
        #expect(moved == Data(content.utf8), "moved as it was")
    }

    @Test func anotherProgramsDatabaseIsMovedAside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let other = try SQLiteConnection(path: folder.file(StateDatabase.fileName))
            try other.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('theirs')")
        }
        let (database, said) = Self.open(folder)
        #expect(database?.journalMode == "wal")
        #expect(said.count == 1 && said[0].contains("another program's"), "\(said)")
        #expect(folder.entries().filter { $0.hasPrefix(StateDatabase.fileName + ".damaged-") }.count == 1)
    }

    @Test func aNewerVtrimsDatabaseIsLeftAloneAndMemoryUsed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let newer = try SQLiteConnection(path: folder.file(StateDatabase.fileName))
            try newer.execute("PRAGMA application_id = \(StateDatabase.applicationID); PRAGMA user_version = 99; CREATE TABLE future (x)")
        }
        let (database, said) = Self.open(folder)
        #expect(database?.journalMode == "memory")
        #expect(said.count == 1 && said[0].contains("newer"), "\(said)")
        #expect(folder.entries().filter { $0.contains("damaged") }.isEmpty)
    }

    @Test func noFolderIsADatabaseInMemory() throws {
        var said: [String] = []
        let database = try #require(StateDatabase.open(folder: nil) { said.append($0) })
        #expect(database.journalMode == "memory" && said.isEmpty)
        database.saveFiles([(Self.root, StoredFile(relative: "a.mp4", version: FileVersion(sizeBytes: 1, modifiedNanoseconds: 2), isOutput: false))],
                           removed: [])
        #expect(database.files(under: Self.root).map(\.relative) == ["a.mp4"])
    }

    /// Files of any version and summary, under any names a walk lists, read back as they were saved; removed ones are gone.
    /// (`caf\xe9`: a name that is not UTF-8, kept as its bytes.)
    static let file = zip(Gen.element(of: ["a", "clip", "é", "trip/beach", "x y", "2026/11/29/IMG_0001", "タイトル", "a\tb",
                                           DiskName.string(bytes: [0x63, 0x61, 0x66, 0xE9])]),
                          Gen.element(of: ["mp4", "MOV", "mkv", "webm"]), Wild.int64, Wild.int64, Wild.int64, Gen.bool, Gen.int(in: 0...2),
                          zip(Wild.double, Gen.element(of: ["h264", "hevc", "aac"]), Gen.bool, Wild.int, Wild.int))
        .map { stem, ext, size, modified, inode, output, probed, facts -> StoredFile in
            let (duration, codec, hasVideo, width, height) = facts
            let summary: ClipSummary? = switch probed {
            case 0: nil
            case 1: ClipSummary(failure: "invalid_data")
            default: ClipSummary(durationSeconds: duration.isFinite && duration >= 0 ? duration : nil, codec: codec, hasVideo: hasVideo,
                                 displayWidth: (0..<1_000_000).contains(width) ? width : nil, displayHeight: (0..<1_000_000).contains(height) ? height : nil,
                                 failure: nil)
            }
            return StoredFile(relative: "\(stem ?? "a").\(ext ?? "mp4")", version: FileVersion(sizeBytes: abs(max(size, -Int64.max)), modifiedNanoseconds: modified,
                                                                              inode: UInt64(bitPattern: inode), changedNanoseconds: modified &+ 1),
                              isOutput: output, summary: summary)
        }

    @Test func filesReadBackAsSaved() async throws {
        let database = try #require(StateDatabase.open(folder: nil) { _ in })
        await propertyCheck(count: 200, input: Self.file.array(of: 0...6), Gen.int(in: 0...6)) { files, removing in
            var unique: [String: StoredFile] = [:]
            for file in files { unique[file.relative] = file }
            database.saveFiles(unique.values.map { (Self.root, $0) }, removed: [])
            let gone = Array(unique.keys.sorted().prefix(removing))
            database.saveFiles([], removed: gone.map { (Self.root, $0) })
            for name in gone { unique[name] = nil }
            let read = Dictionary(database.files(under: Self.root).map { ($0.relative, $0) }, uniquingKeysWith: { a, _ in a })
            #expect(read == unique)
            database.saveFiles([], removed: read.keys.map { (Self.root, $0) })
        }
    }

    /// A cut's times as the API writes them: ISO 8601 in UTC, whatever the number kept says.
    @Test(arguments: [(0.0, "1970-01-01T00:00:00Z"), (1_795_000_000.9, "2026-11-18T11:06:40Z"), (951_782_400, "2000-02-29T00:00:00Z"),
                      (253_402_300_799, "9999-12-31T23:59:59Z"), (1e300, "9999-12-31T23:59:59Z"), (-5, "1970-01-01T00:00:00Z"),
                      (.nan, "1970-01-01T00:00:00Z")])
    func cutTimesAreUTC(seconds: Double, text: String) {
        #expect(CutsController.utc(seconds) == text)
    }

    @Test func probesAndCutsReadBackAsWritten() throws {
        let database = try #require(StateDatabase.open(folder: nil) { _ in })
        let version = FileVersion(sizeBytes: 10, modifiedNanoseconds: 20, inode: .max, changedNanoseconds: -30)
        database.storeProbes([.init(root: Self.root, relative: "a.mp4", version: version, json: #"{"duration":1.5}"#)])
        #expect(database.probe(root: Self.root, relative: "a.mp4", version: version) == #"{"duration":1.5}"#)
        var other = version
        other.changedNanoseconds += 1
        #expect(database.probe(root: Self.root, relative: "a.mp4", version: other) == nil, "another version's probe is not this one's")
        let cut = StoredCut(number: 0, clip: "0123456789abcdef", source: "/r/a.mp4", output: "/r/a.1-2.cut.mp4",
                            request: .object([("shape", .string("cut"))]), plan: "{}", planID: nil, status: "queued",
                            report: .object([("mode", .string("copy"))]), createdAt: 1_795_000_000.5, endedAt: nil,
                            owner: ServerProcess.current)
        #expect(cut.owner != nil)
        let first = try #require(database.insertCut(library: "lib", cut))
        let second = try #require(database.insertCut(library: "lib", cut))
        #expect(second == first + 1)
        _ = database.insertCut(library: "another library", cut)
        database.updateCut(number: first, status: "done", report: .object([("mode", .string("smart"))]), endedAt: 1_795_000_009)
        let read = database.cuts(library: "lib", limit: 10)
        #expect(read.map(\.number) == [first, second])
        var done = cut
        done.number = first
        done.status = "done"
        done.report = .object([("mode", .string("smart"))])
        done.endedAt = 1_795_000_009
        #expect(read.first == done)
        #expect(database.cuts(library: "lib", limit: 1).map(\.number) == [second], "the newest")
    }

    /// A database the first schema made (vtrim before cuts had owners) opens at the newest, its cuts kept, owner unknown.
    @Test func aFirstSchemaDatabaseIsMigratedWithItsCuts() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let old = try SQLiteConnection(path: folder.file(StateDatabase.fileName))
            try old.execute("PRAGMA application_id = \(StateDatabase.applicationID)")
            try old.execute(StateDatabase.migrations[0])
            try old.execute("""
                INSERT INTO cuts (library, clip, source, output, request, plan, status, report, created_at)
                VALUES ('lib', 'c', X'2F612E6D7034', X'2F622E6D7034', '{}', '{}', 'running', '{}', 1)
                """)
            try old.execute("PRAGMA user_version = 1")
        }
        let (database, said) = Self.open(folder)
        #expect(said.isEmpty, "\(said)")
        let cuts = try #require(database).cuts(library: "lib", limit: 5)
        #expect(cuts.map(\.source) == ["/a.mp4"] && cuts.first?.owner == nil && cuts.first?.status == "running")
    }

    /// Another server's cut is interrupted only when its process has certainly ended: this host, and another boot or
    /// no process with that pid and start time. A server on another host (a shared state folder) cannot be checked.
    @Test func aServerProcessHasEndedOnlyWhenThisHostCanTell() throws {
        let me = try #require(ServerProcess.current)
        #expect(!me.hasEnded)
        #expect(ServerProcess(stored: me.stored) == me)
        var restarted = me
        restarted.startTicks += 1
        #expect(restarted.hasEnded, "the same pid started at another time is another process")
        var rebooted = me
        rebooted.boot = "00000000-0000-0000-0000-000000000000"
        #expect(rebooted.hasEnded)
        var elsewhere = rebooted
        elsewhere.host = me.host + "-elsewhere"
        #expect(!elsewhere.hasEnded)
        for stored in ["", "a b c", "a b 0 1", "a b -3 1", "a b 12 x", "a b 12 1 more", "a  12 1 "] {
            #expect(ServerProcess(stored: stored) == nil, "\(stored)")
        }
    }

    /// A server on another host or in another container is known to have ended by its heartbeat: stale (a minute) or
    /// gone; on this host the process table answers at once.
    @Test func aServerElsewhereHasEndedOnlyWhenItsHeartbeatIsStaleOrGone() throws {
        let database = try #require(StateDatabase.open(folder: nil) { _ in })
        let me = try #require(ServerProcess.current)
        var elsewhere = me
        elsewhere.host = me.host + "-elsewhere"
        #expect(ServerHeartbeat.hasEnded(elsewhere, in: database), "no heartbeat at all")
        database.beat(elsewhere, at: 1000)
        #expect(!ServerHeartbeat.hasEnded(elsewhere, in: database, now: 1000 + ServerHeartbeat.staleSeconds - 1))
        #expect(ServerHeartbeat.hasEnded(elsewhere, in: database, now: 1000 + ServerHeartbeat.staleSeconds + 1))
        database.beat(elsewhere, at: 2000)
        #expect(!ServerHeartbeat.hasEnded(elsewhere, in: database, now: 2001), "a newer beat replaces the old one")
        database.forget(elsewhere)
        #expect(ServerHeartbeat.hasEnded(elsewhere, in: database, now: 2001), "a server that stopped took its sign away")
        #expect(!ServerHeartbeat.hasEnded(me, in: database), "this process, alive whatever its heartbeat says")
        #expect(ServerHeartbeat.hasEnded(nil, in: database), "an older vtrim's row has no owner")
    }
}
