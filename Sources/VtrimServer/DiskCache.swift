import Foundation
import Glibc

/// The server's cache of filmstrip tiles and previews on disk, bounded in bytes: least recently used
/// files go first once the total passes the limit (`--cache-size`). What is on disk from an earlier run
/// counts from the start (its modification time as its last use). A file being written (a preview) is
/// pinned until it is finished.
final class DiskCache: @unchecked Sendable {
    static let defaultLimitBytes: Int64 = 1 << 30

    let folder: String
    let limitBytes: Int64
    private let lock = NSLock()
    private var entries: [String: (bytes: Int64, lastUse: Double)] = [:]
    private var pinned: Set<String> = []
    private var total: Int64 = 0

    init(folder: String, limitBytes: Int64) {
        self.folder = folder
        self.limitBytes = limitBytes
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let walker = FileManager.default.enumerator(atPath: folder) {
            while let relative = walker.nextObject() as? String {
                let path = (folder as NSString).appendingPathComponent(relative)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                // A partial file of an earlier run that stopped: never finished, never served.
                if relative.hasSuffix(".partial.mp4") || relative.contains(".tmp-") {
                    unlink(path)
                    continue
                }
                let bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                entries[relative] = (bytes, modified)
                total += bytes
            }
        }
        lock.lock()
        evict()
        lock.unlock()
    }

    var totalBytes: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return total
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// The cached file's path, marked as just used; nil when it is not cached.
    func lookup(_ name: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard entries[name] != nil else { return nil }
        let file = path(name)
        guard FileManager.default.fileExists(atPath: file) else {
            forget(name)
            return nil
        }
        entries[name]?.lastUse = Date().timeIntervalSince1970
        return file
    }

    /// Writes `data` as `name` (a temporary file renamed into place) and returns its path.
    func store(_ name: String, data: Data) throws -> String {
        let file = path(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = file + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard rename(temporary, file) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown)
        }
        add(name, bytes: Int64(data.count))
        return file
    }

    /// Keeps `name` from eviction while it is being written.
    func pin(_ name: String) {
        lock.lock()
        pinned.insert(name)
        lock.unlock()
    }

    /// A pinned file is finished (or abandoned): it counts, and may be evicted, from now on.
    func unpin(_ name: String) {
        lock.lock()
        pinned.remove(name)
        lock.unlock()
    }

    /// Counts a file written into the cache folder by someone else (a worker's preview).
    func add(_ name: String, bytes: Int64) {
        lock.lock()
        defer { lock.unlock() }
        forget(name)
        entries[name] = (bytes, Date().timeIntervalSince1970)
        total += bytes
        evict()
    }

    private func forget(_ name: String) {
        if let old = entries.removeValue(forKey: name) { total -= old.bytes }
    }

    /// Removes the least recently used files until the total fits. Called with the lock held.
    private func evict() {
        guard total > limitBytes else { return }
        for (name, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard total > limitBytes else { return }
            if pinned.contains(name) { continue }
            unlink(path(name))
            entries.removeValue(forKey: name)
            total -= entry.bytes
        }
    }
}
