import Foundation
import Synchronization

/// What `vtrim serve` knows that outlives it — the walk's files with their versions, each clip's probe, the cuts made —
/// in one SQLite database in the state folder (`$XDG_STATE_HOME/vtrim/vtrim.sqlite3`), never in the cache, whose files
/// are evicted. Several servers share it: WAL (readers never wait for a writer), each write one short transaction
/// taken at once, `busy_timeout` for the rest.
///
/// It always opens: a damaged or foreign file is moved aside and made again; a folder that cannot be written, or a
/// database of a newer vtrim (left as it is), gives one in memory for this run. Each is said once on stderr.
///
/// The connection is kept in a `Mutex` rather than `Locked`: it is a non-Sendable resource, and `Mutex`'s `sending`
/// closure lets the compiler check that it never leaves the lock. It holds no mutable Swift state (only the handle,
/// set once), so there is nothing there ThreadSanitizer could miss; SQLite's own state is behind the same mutex.
final class StateDatabase: Sendable {
    static let fileName = "vtrim.sqlite3"
    /// `PRAGMA application_id`: "vtrm". A database without it (and not empty) is another program's.
    static let applicationID: Int64 = 0x7674_726d

    /// Each takes the schema from version `index` to `index + 1` (`PRAGMA user_version`), in one transaction.
    static let migrations: [String] = [
        """
        CREATE TABLE files (
          root_device INTEGER NOT NULL, root_inode INTEGER NOT NULL, relative BLOB NOT NULL, display TEXT NOT NULL,
          size INTEGER NOT NULL, modified_ns INTEGER NOT NULL, inode INTEGER NOT NULL, changed_ns INTEGER NOT NULL,
          is_output INTEGER NOT NULL, probed INTEGER NOT NULL DEFAULT 0,
          duration REAL, codec TEXT, has_video INTEGER, display_width INTEGER, display_height INTEGER, failure TEXT,
          PRIMARY KEY (root_device, root_inode, relative)
        ) WITHOUT ROWID;
        CREATE INDEX files_by_display ON files (display);
        CREATE TABLE probes (
          root_device INTEGER NOT NULL, root_inode INTEGER NOT NULL, relative BLOB NOT NULL,
          size INTEGER NOT NULL, modified_ns INTEGER NOT NULL, inode INTEGER NOT NULL, changed_ns INTEGER NOT NULL,
          json TEXT NOT NULL,
          PRIMARY KEY (root_device, root_inode, relative)
        ) WITHOUT ROWID;
        CREATE TABLE cuts (
          number INTEGER PRIMARY KEY AUTOINCREMENT, library TEXT NOT NULL, clip TEXT NOT NULL,
          source BLOB NOT NULL, output BLOB NOT NULL, request TEXT NOT NULL, plan TEXT NOT NULL, plan_id TEXT,
          status TEXT NOT NULL, report TEXT NOT NULL, created_at REAL NOT NULL, ended_at REAL
        );
        CREATE INDEX cuts_by_library ON cuts (library, number);
        """,
        // The server process that queued each cut (`ServerProcess`): another server's live cut is not interrupted.
        "ALTER TABLE cuts ADD COLUMN owner TEXT;",
        // Each running server's last sign of life (`ServerHeartbeat`): how a server on another host, or in another
        // container, is known to have ended.
        "CREATE TABLE servers (owner TEXT PRIMARY KEY, seen REAL NOT NULL) WITHOUT ROWID;",
    ]

    /// The database file, or ":memory:".
    let path: String
    /// `wal`, `delete` (a filesystem without shared memory) or `memory`.
    let journalMode: String
    private let connection: Mutex<SQLiteConnection>

    private init(connection: sending SQLiteConnection, journalMode: String) {
        path = connection.path
        self.journalMode = journalMode
        self.connection = Mutex(connection)
    }

    /// The state database in `folder` (nil: one in memory). `say` gets each line worth a log (moved aside, in memory,
    /// no WAL). Nil only where SQLite cannot open even a database in memory (out of memory).
    static func open(folder: String?, say: (String) -> Void) -> StateDatabase? {
        guard let folder else { return memory() }
        let path = (folder as NSString).appendingPathComponent(fileName)
        do {
            return try ready(path, say: say)
        } catch let error where error.isDamage || error.operation == "foreign" {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
            if rename(path, aside) == 0 {
                say("vtrim serve: the state database \(path) is \(error.operation == "foreign" ? "another program's" : "damaged") (\(error.message)); moved aside to \(aside), starting a new one")
                if let made = try? ready(path, say: say) { return made }
            }
            say("vtrim serve: cannot use the state database \(path) (\(error.message)); what is learned is kept for this run only")
            return memory()
        } catch {
            say("vtrim serve: cannot use the state database \(path) (\(error.message)); what is learned is kept for this run only")
            return memory()
        }
    }

    private static func memory() -> StateDatabase? {
        guard let connection = try? SQLiteConnection(path: ":memory:"), (try? migrate(connection)) != nil else { return nil }
        return StateDatabase(connection: connection, journalMode: "memory")
    }

    /// Opened, checked as ours, in WAL where the filesystem allows it, migrated to the newest schema.
    private static func ready(_ path: String, say: (String) -> Void) throws(SQLiteError) -> StateDatabase {
        let connection = try SQLiteConnection(path: path)
        // The first read of the header: a file that is not a database fails here (SQLITE_NOTADB).
        let application = try connection.scalar("PRAGMA application_id")?.integer ?? 0
        let version = try connection.scalar("PRAGMA user_version")?.integer ?? 0
        let tables = try connection.scalar("SELECT count(*) FROM sqlite_schema")?.integer ?? 0
        if application != applicationID, application != 0 || tables > 0 {
            throw SQLiteError(path: path, operation: "foreign", code: 0, message: "application id \(application), \(tables) tables")
        }
        if version > Int64(migrations.count) {
            // A newer vtrim's: left for it as it is.
            throw SQLiteError(path: path, operation: "open", code: 0, message: "schema \(version) is newer than this vtrim's \(migrations.count)")
        }
        var mode = try connection.scalar("PRAGMA journal_mode = WAL")?.text?.lowercased() ?? ""
        if mode != "wal" {
            mode = try connection.scalar("PRAGMA journal_mode = DELETE")?.text?.lowercased() ?? "delete"
            say("vtrim serve: the state database \(path) cannot use WAL here (a filesystem without shared memory?); using journal_mode=\(mode)")
        }
        // WAL's NORMAL: a crash loses at most the last transactions, never the database.
        try connection.execute("PRAGMA synchronous = NORMAL")
        try migrate(connection)
        return StateDatabase(connection: connection, journalMode: mode)
    }

    private static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.transaction { () throws(SQLiteError) in
            let version = Int(try connection.scalar("PRAGMA user_version")?.integer ?? 0)
            guard version < migrations.count else { return }
            if version == 0 { try connection.execute("PRAGMA application_id = \(applicationID)") }
            for step in migrations[max(0, version)...] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = \(migrations.count)")
        }
    }

    /// Runs `body` on the connection, alone; an SQLite error is said on stderr and gives nil (what could not be
    /// kept is still known in memory for this run).
    func use<Result: Sendable>(_ operation: String, _ body: (SQLiteConnection) throws(SQLiteError) -> Result) -> Result? {
        let outcome: Swift.Result<Result, SQLiteError> = connection.withLock { connection in
            do throws(SQLiteError) { return .success(try body(connection)) } catch { return .failure(error) }
        }
        switch outcome {
        case let .success(result): return result
        case let .failure(error):
            FileHandle.standardError.write(Data("vtrim serve: state: \(operation): \(error)\n".utf8))
            return nil
        }
    }
}
