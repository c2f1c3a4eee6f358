import Foundation
import Glibc
import LibraryFiles
import Locking

/// The server's cache of filmstrip tiles and previews on disk, bounded in bytes: least recently used
/// files go first once the total passes the limit (`--cache-size`). What is on disk from an earlier run
/// counts from the start (its modification time as its last use). A file being written (a preview) is
/// pinned until it is finished; one a request is reading is held until the response ends; a preview stays until it
/// has been served once (larger than the whole cache, it would otherwise go before the page could play it), or for
/// `unservedKeepSeconds` when nobody asks for it. Only the cache's own subfolders are its files: anything else in its folder
/// (an older version's library index, a user's file) is never counted or removed.
final class DiskCache: Sendable {
    static let defaultLimitBytes: Int64 = 1 << 30
    /// The subfolders the cache writes (every name given to it starts with one of them).
    static let ownedFolders = ["tiles", "previews"]

    let folder: String
    let limitBytes: Int64

    private struct State {
        var entries: [String: (bytes: Int64, lastUse: Double)] = [:]
        var pinned: Set<String> = []
        /// Names requests are reading, with how many.
        var held: [String: Int] = [:]
        /// Names kept until served once (previews), with when they were added.
        var unserved: [String: Double] = [:]
        var total: Int64 = 0
    }

    /// How long a preview nobody asks for stays beyond the limit.
    static let unservedKeepSeconds = 600.0

    private let state = Locked(State())

    init(folder: String, limitBytes: Int64) {
        self.folder = folder
        self.limitBytes = limitBytes
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var found = State()
        for owned in Self.ownedFolders {
            guard let walker = FileManager.default.enumerator(atPath: (folder as NSString).appendingPathComponent(owned)) else { continue }
            while let within = walker.nextObject() as? String {
                let relative = owned + "/" + within
                let path = (folder as NSString).appendingPathComponent(relative)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                // A file being written (by this server, or another sharing the cache) is not the cache's until it is
                // renamed into place; one whose writer is gone is removed.
                if TemporaryName.isTemporary((relative as NSString).lastPathComponent) {
                    TemporaryName.removeIfLeftOver(path)
                    continue
                }
                let bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                found.entries[relative] = (bytes, modified)
                found.total += bytes
            }
        }
        state.withLock { state in
            state = found
            evict(&state)
        }
    }

    var totalBytes: Int64 { state.withLock { $0.total } }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// The cached file's path, marked as just used; nil when it is not cached.
    func lookup(_ name: String) -> String? {
        state.withLock { state in
            guard state.entries[name] != nil else { return nil }
            let file = path(name)
            guard FileManager.default.fileExists(atPath: file) else {
                forget(name, &state)
                return nil
            }
            state.entries[name]?.lastUse = Date().timeIntervalSince1970
            return file
        }
    }

    /// Writes `data` as `name` (a temporary file renamed into place) and returns its path.
    func store(_ name: String, data: Data) throws -> String {
        let file = path(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writing = TemporaryName(output: file)
        let temporary = writing.makePath()
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try writing.commit(temporary, replacing: true)
        add(name, bytes: Int64(data.count))
        return file
    }

    /// Keeps `name` from eviction while it is being written.
    func pin(_ name: String) {
        _ = state.withLock { $0.pinned.insert(name) }
    }

    /// A pinned file is finished (or abandoned): it counts, and may be evicted, from now on.
    func unpin(_ name: String) {
        _ = state.withLock { $0.pinned.remove(name) }
    }

    /// Counts a file written into the cache folder by someone else (a worker's preview); `keepUntilServed`: not evicted
    /// before a request has read it (or `unservedKeepSeconds` have passed).
    func add(_ name: String, bytes: Int64, keepUntilServed: Bool = false) {
        state.withLock { state in
            forget(name, &state)
            let now = Date().timeIntervalSince1970
            state.entries[name] = (bytes, now)
            state.total += bytes
            if keepUntilServed { state.unserved[name] = now }
            evict(&state)
        }
    }

    /// Keeps `name` while a response reads it, released when the returned hold goes — and then counted as served when
    /// `serving` (a GET, not a HEAD). Nil when it is not cached (evicted meanwhile).
    func hold(_ name: String, serving: Bool) -> Hold? {
        let cached = state.withLock { state -> Bool in
            guard state.entries[name] != nil else { return false }
            state.held[name, default: 0] += 1
            return true
        }
        return cached ? Hold(cache: self, name: name, serving: serving) : nil
    }

    /// A request's hold on a cached file (`hold(_:)`), released when the last reference to it goes.
    final class Hold: Sendable {
        private let cache: DiskCache
        private let name: String
        private let serving: Bool

        fileprivate init(cache: DiskCache, name: String, serving: Bool) {
            self.cache = cache
            self.name = name
            self.serving = serving
        }

        deinit { cache.release(name, served: serving) }
    }

    private func release(_ name: String, served: Bool) {
        state.withLock { state in
            let count = (state.held[name] ?? 1) - 1
            state.held[name] = count > 0 ? count : nil
            if served { state.unserved[name] = nil }
        }
    }

    private func forget(_ name: String, _ state: inout State) {
        if let old = state.entries.removeValue(forKey: name) { state.total -= old.bytes }
        state.unserved[name] = nil
    }

    /// Removes the least recently used files until the total fits.
    private func evict(_ state: inout State) {
        guard state.total > limitBytes else { return }
        let now = Date().timeIntervalSince1970
        for (name, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.total > limitBytes else { return }
            if state.pinned.contains(name) || state.held[name] != nil { continue }
            if let added = state.unserved[name], now - added < Self.unservedKeepSeconds { continue }
            unlink(path(name))
            forget(name, &state)
        }
    }
}
