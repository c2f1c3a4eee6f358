import Foundation
import LibraryFiles

/// Media files being written into a served folder (a copy, a download, a recording): listed and probed once, when
/// they settle — closed after writing, moved in, or nothing written to them for `--settle` seconds with their size
/// held — rather than once per write (each would publish a listing and probe a half-written file). Used by the
/// scanning thread alone.
struct SettlingFiles {
    private var entries: [String: (sizeBytes: Int64?, lastWriteSeconds: Double)] = [:]

    var files: Set<String> { Set(entries.keys) }
    var isEmpty: Bool { entries.isEmpty }

    func contains(_ path: String) -> Bool { entries[path] != nil }

    /// A write to `path` seen at `now`.
    mutating func touch(_ path: String, at now: Double) {
        entries[path] = (FileVersion.of(path)?.sizeBytes, now)
    }

    mutating func remove(_ path: String) {
        entries[path] = nil
    }

    /// The folders of the files that settled by `now`: nothing written for `seconds`, and the size the same as at the
    /// last write (a file whose size moved without an event waits again). They are no longer settling.
    mutating func settled(at now: Double, after seconds: Double) -> Set<String> {
        var folders = Set<String>()
        for (path, entry) in entries where now - entry.lastWriteSeconds >= seconds {
            let size = FileVersion.of(path)?.sizeBytes
            if size == entry.sizeBytes {
                entries[path] = nil
                folders.insert((path as NSString).deletingLastPathComponent)
            } else {
                entries[path] = (size, now)
            }
        }
        return folders
    }
}
