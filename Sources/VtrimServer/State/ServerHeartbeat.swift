import Foundation

/// Each server writes its sign of life into the state database every `everySeconds`, so that a server elsewhere — on
/// another host with a shared state folder, or in another container (a new hostname on each start, and pids of its
/// own) — can tell that the server that queued a cut has ended: its sign is older than `staleSeconds`, or gone.
enum ServerHeartbeat {
    static let everySeconds = 10.0
    static let staleSeconds = 60.0

    /// Whether `owner`'s server has certainly ended: on this host what the process table says (at once), elsewhere
    /// its heartbeat (within a minute). A cut with no owner (an older vtrim's row) has.
    static func hasEnded(_ owner: ServerProcess?, in database: StateDatabase, now: Double = Date().timeIntervalSince1970) -> Bool {
        guard let owner else { return true }
        if owner.isOnThisHost { return owner.hasEnded }
        guard let seen = database.lastSeen(owner) else { return true }
        return now - seen > staleSeconds
    }

    /// Beats until cancelled, then takes this server's sign away (its cuts have ended with it).
    static func run(_ database: StateDatabase) async {
        guard let me = ServerProcess.current else { return }
        while !Task.isCancelled {
            database.beat(me, at: Date().timeIntervalSince1970)
            try? await Task.sleep(for: .seconds(everySeconds))
        }
        database.forget(me)
    }
}

/// The `servers` table.
extension StateDatabase {
    func beat(_ server: ServerProcess, at seconds: Double) {
        _ = use("note that this server is running") { connection throws(SQLiteError) in
            try connection.prepare("INSERT OR REPLACE INTO servers (owner, seen) VALUES (?, ?)").run([.text(server.stored), .real(seconds)])
        }
    }

    func lastSeen(_ server: ServerProcess) -> Double? {
        use("read a server's last sign of life") { connection throws(SQLiteError) in
            try connection.rows("SELECT seen FROM servers WHERE owner = ?", [.text(server.stored)]).first?.first?.real
        } ?? nil
    }

    func forget(_ server: ServerProcess) {
        _ = use("forget this server") { connection throws(SQLiteError) in
            try connection.prepare("DELETE FROM servers WHERE owner = ?").run([.text(server.stored)])
        }
    }
}
