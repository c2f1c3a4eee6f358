import DiskNames
import Foundation
import WorkerProtocol

/// A cut as the `cuts` table keeps it: what was asked, the plan run, where the output is, how it ended.
struct StoredCut: Sendable, Equatable {
    /// The row's number, the cut's id (`c0042`).
    var number: Int64
    var clip: String
    var source: String
    var output: String
    /// `{ranges, shape, mode}` as asked.
    var request: JSON
    /// The plan the writing worker ran (the worker protocol's `planned`).
    var plan: String
    var planID: String?
    var status: String
    /// The plan's report, then the run's, or the engine's error.
    var report: JSON
    /// Seconds since the epoch.
    var createdAt: Double
    var endedAt: Double?
    /// The server process that queued it; nil when unknown (an older vtrim's row).
    var owner: ServerProcess?
}

/// The `cuts` table: every cut a server over this library queued, kept across restarts.
extension StateDatabase {
    /// Adds a queued cut; its number (the id), or nil when it could not be written.
    func insertCut(library: String, _ cut: StoredCut) -> Int64? {
        use("keep a cut") { connection throws(SQLiteError) in
            try connection.prepare("""
                INSERT INTO cuts (library, clip, source, output, request, plan, plan_id, status, report, created_at, ended_at, owner)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run([.text(library), .text(cut.clip), .blob(DiskName.bytes(cut.source)), .blob(DiskName.bytes(cut.output)),
                          .text(cut.request.serialized), .text(cut.plan), .optional(cut.planID), .text(cut.status),
                          .text(cut.report.serialized), .real(cut.createdAt), .optional(cut.endedAt), .optional(cut.owner?.stored)])
            return try connection.scalar("SELECT last_insert_rowid()")?.integer
        } ?? nil
    }

    /// A cut's status and report as they are now.
    func updateCut(number: Int64, status: String, report: JSON, endedAt: Double?) {
        _ = use("keep a cut's end") { connection throws(SQLiteError) in
            try connection.prepare("UPDATE cuts SET status = ?, report = ?, ended_at = ? WHERE number = ?")
                .run([.text(status), .text(report.serialized), .optional(endedAt), .integer(number)])
        }
    }

    /// One cut as its row says now, or nil (no such row, or one that does not read back).
    func cut(number: Int64) -> StoredCut? {
        let rows = use("read a cut") { connection throws(SQLiteError) in
            try connection.rows("""
                SELECT number, clip, source, output, request, plan, plan_id, status, report, created_at, ended_at, owner
                FROM cuts WHERE number = ?
                """, [.integer(number)])
        } ?? []
        return rows.first.flatMap(Self.storedCut)
    }

    /// The newest `limit` cuts of `library`, oldest first. Rows that do not read back (damaged JSON, a path that is not
    /// text) are left out.
    func cuts(library: String, limit: Int) -> [StoredCut] {
        let rows = use("read the cuts") { connection throws(SQLiteError) in
            try connection.rows("""
                SELECT number, clip, source, output, request, plan, plan_id, status, report, created_at, ended_at, owner
                FROM cuts WHERE library = ? ORDER BY number DESC LIMIT ?
                """, [.text(library), .integer(Int64(max(0, limit)))])
        } ?? []
        return rows.reversed().compactMap(Self.storedCut)
    }

    private static func storedCut(_ row: [SQLiteValue]) -> StoredCut? {
        guard row.count == 12, let number = row[0].integer, let clip = row[1].text,
              let source = row[2].blob.map({ DiskName.string(bytes: $0) }),
              let output = row[3].blob.map({ DiskName.string(bytes: $0) }),
              let request = row[4].text.flatMap({ try? JSON(parsing: $0) }), let plan = row[5].text, let status = row[7].text,
              let report = row[8].text.flatMap({ try? JSON(parsing: $0) }), let created = row[9].real else { return nil }
        return StoredCut(number: number, clip: clip, source: source, output: output, request: request, plan: plan,
                         planID: row[6].text, status: status, report: report, createdAt: created, endedAt: row[10].real,
                         owner: row[11].text.flatMap(ServerProcess.init(stored:)))
    }
}
