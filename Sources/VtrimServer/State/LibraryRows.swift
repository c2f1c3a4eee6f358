import DiskNames
import Foundation
import Glibc
import LibraryFiles

/// A served folder (or file) as the state database keys it: its device and inode, so the same folder reached through
/// another path (a symlink, a bind mount, a renamed parent) is the same library.
struct RootKey: Hashable, Sendable {
    let device: Int64
    let inode: Int64

    /// The key of what `path` names now, or nil when it cannot be stat'ed (its rows are then neither read nor written).
    static func of(_ path: String) -> RootKey? {
        guard let info = DiskFile.status(path) else { return nil }
        return RootKey(device: Int64(bitPattern: UInt64(info.st_dev)), inode: Int64(bitPattern: UInt64(info.st_ino)))
    }
}

/// A walked file as the database keeps it: its version, whether it is one of vtrim's outputs, and what its probe said.
struct StoredFile: Hashable, Sendable {
    var relative: String
    var version: FileVersion
    var isOutput: Bool
    var summary: ClipSummary?

    /// What a walk could have listed: a relative path of visible parts (no `..`, no leading `/`) naming a media file.
    /// The database is a file on disk like any other: what it says is checked before it is served.
    static func isRelativeMediaPath(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }), let name = parts.last else { return false }
        return InputWalker.mediaExtensions.contains((String(name) as NSString).pathExtension.lowercased())
    }
}

/// The `files` and `probes` tables: the walk and what probes said, per file version.
extension StateDatabase {
    /// The files known under `root`, each checked as a walk would have listed it (rows that are not are left out).
    func files(under root: RootKey) -> [StoredFile] {
        use("read the library") { connection throws(SQLiteError) in
            let rows = try connection.rows("""
                SELECT relative, size, modified_ns, inode, changed_ns, is_output, probed, duration, codec, has_video,
                       display_width, display_height, failure
                FROM files WHERE root_device = ? AND root_inode = ?
                """, [.integer(root.device), .integer(root.inode)])
            return rows.compactMap(Self.storedFile)
        } ?? []
    }

    private static func storedFile(_ row: [SQLiteValue]) -> StoredFile? {
        guard row.count == 13, let bytes = row[0].blob, case let relative = DiskName.string(bytes: bytes),
              StoredFile.isRelativeMediaPath(relative), let size = row[1].integer, size >= 0, let modified = row[2].integer,
              let inode = row[3].integer, let changed = row[4].integer, let output = row[5].integer else { return nil }
        let version = FileVersion(sizeBytes: size, modifiedNanoseconds: modified, inode: UInt64(bitPattern: inode), changedNanoseconds: changed)
        var summary: ClipSummary?
        if row[6].integer == 1 {
            func whole(_ value: SQLiteValue) -> Int? { value.integer.flatMap { (0..<1_000_000).contains($0) ? Int($0) : nil } }
            if let failure = row[12].text {
                summary = ClipSummary(failure: failure)
            } else {
                summary = ClipSummary(durationSeconds: row[7].real.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                                      codec: row[8].text.map { String($0.prefix(32)) }, hasVideo: row[9].integer == 1,
                                      displayWidth: whole(row[10]), displayHeight: whole(row[11]), failure: nil)
            }
        }
        return StoredFile(relative: relative, version: version, isOutput: output == 1, summary: summary)
    }

    /// Writes the files that are new or changed and removes the ones gone, in one transaction.
    func saveFiles(_ changed: [(root: RootKey, file: StoredFile)], removed: [(root: RootKey, relative: String)]) {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        _ = use("save the library") { connection throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in
                let upsert = try connection.prepare("""
                    INSERT OR REPLACE INTO files (root_device, root_inode, relative, display, size, modified_ns, inode, changed_ns,
                      is_output, probed, duration, codec, has_video, display_width, display_height, failure)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for (root, file) in changed {
                    let summary = file.summary
                    try upsert.run([
                        .integer(root.device), .integer(root.inode), .blob(DiskName.bytes(file.relative)), .text(DiskName.display(file.relative)),
                        .integer(file.version.sizeBytes), .integer(file.version.modifiedNanoseconds),
                        .integer(Int64(bitPattern: file.version.inode)), .integer(file.version.changedNanoseconds),
                        .integer(file.isOutput ? 1 : 0), .integer(summary == nil ? 0 : 1), .optional(summary?.durationSeconds),
                        .optional(summary?.codec), summary.map { .integer($0.hasVideo ? 1 : 0) } ?? .null,
                        .optional(summary?.displayWidth), .optional(summary?.displayHeight), .optional(summary?.failure),
                    ])
                }
                let delete = try connection.prepare("DELETE FROM files WHERE root_device = ? AND root_inode = ? AND relative = ?")
                let deleteProbe = try connection.prepare("DELETE FROM probes WHERE root_device = ? AND root_inode = ? AND relative = ?")
                for (root, relative) in removed {
                    let key: [SQLiteValue] = [.integer(root.device), .integer(root.inode), .blob(DiskName.bytes(relative))]
                    try delete.run(key)
                    try deleteProbe.run(key)
                }
            }
        }
    }

    /// Keeps a clip's whole probe (`GET /api/clips/{id}`'s object) for its version.
    /// A clip's whole probe, as the probes table keeps it.
    struct ProbeRow: Sendable {
        var root: RootKey
        var relative: String
        var version: FileVersion
        var json: String
    }

    /// Keeps probes (each for its file's version), in one transaction: probes written one by one rewrote their
    /// B-tree pages once each (5.5 MB/s of writes while a 100,000-clip library was probed, measured).
    func storeProbes(_ rows: [ProbeRow]) {
        guard !rows.isEmpty else { return }
        _ = use("keep probes") { connection throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in
                let insert = try connection.prepare("""
                    INSERT OR REPLACE INTO probes (root_device, root_inode, relative, size, modified_ns, inode, changed_ns, json)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for row in rows {
                    try insert.run([.integer(row.root.device), .integer(row.root.inode), .blob(DiskName.bytes(row.relative)),
                                    .integer(row.version.sizeBytes), .integer(row.version.modifiedNanoseconds),
                                    .integer(Int64(bitPattern: row.version.inode)), .integer(row.version.changedNanoseconds), .text(row.json)])
                }
            }
        }
    }

    /// The probe kept for this version of the file, or nil.
    func probe(root: RootKey, relative: String, version: FileVersion) -> String? {
        use("read a probe") { connection throws(SQLiteError) in
            try connection.scalar("""
                SELECT json FROM probes WHERE root_device = ? AND root_inode = ? AND relative = ?
                  AND size = ? AND modified_ns = ? AND inode = ? AND changed_ns = ?
                """, [.integer(root.device), .integer(root.inode), .blob(DiskName.bytes(relative)), .integer(version.sizeBytes),
                      .integer(version.modifiedNanoseconds), .integer(Int64(bitPattern: version.inode)),
                      .integer(version.changedNanoseconds)])?.text
        } ?? nil
    }
}
