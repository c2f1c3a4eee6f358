import Foundation
import Glibc
import LibraryFiles
import Locking
import WorkerProtocol

/// Preview stand-ins for clips the browser cannot play (HEVC in Chromium on Linux): made on request (a
/// POST; a GET never starts one) by a long-work worker, once per clip version, kept in the disk cache and
/// served while they are being written.
final class Previews: Sendable {
    enum State: Sendable {
        case running(progress: Double)
        case done
        case failed(String)
    }

    struct Entry: Sendable {
        var state: State
        /// Where the preview is written (`TemporaryName`) and served from while it grows; `final` once done.
        let partial: String
        let final: String
        let name: String
    }

    private let cache: DiskCache
    private let pool: WorkerPool
    private let threads: ThreadShare
    private let entries = Locked<[String: Entry]>([:])
    private let tickets = Locked<[String: WorkerPool.Ticket]>([:])

    init(cache: DiskCache, pool: WorkerPool, threads: ThreadShare) {
        self.cache = cache
        self.pool = pool
        self.threads = threads
    }

    /// The cache name of a clip version's preview.
    private func name(_ clip: Library.Clip) -> String { "previews/\(clip.id)-\(clip.version).mp4" }

    /// The clip's preview as it stands: done (from the cache), being made, failed, or nil (none yet, or evicted from
    /// the cache since it was made: the next POST makes it again).
    func state(for clip: Library.Clip) -> Entry? {
        let name = name(clip)
        if let known = entries.withLock({ $0[name] }) {
            guard case .done = known.state, cache.lookup(name) == nil else { return known }
            entries.withLock { table in
                if case .done? = table[name]?.state { table.removeValue(forKey: name) }
            }
            return nil
        }
        guard let file = cache.lookup(name) else { return nil }
        let entry = Entry(state: .done, partial: file, final: file, name: name)
        entries.withLock { $0[name] = entry }
        return entry
    }

    /// Starts making the clip's preview unless it exists or is being made (a failed one is tried again).
    func start(_ clip: Library.Clip) -> Entry {
        let name = name(clip)
        if let existing = state(for: clip), !isFailed(existing.state) { return existing }
        let final = cache.path(name)
        let entry = Entry(state: .running(progress: 0), partial: TemporaryName(output: final).makePath(), final: final, name: name)
        let started = entries.withLock { table -> Bool in
            if let current = table[name], !isFailed(current.state) { return false }
            table[name] = entry
            return true
        }
        guard started else { return state(for: clip) ?? entry }
        try? FileManager.default.createDirectory(atPath: (final as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        cache.pin(name)
        let partial = entry.partial
        let ticket = pool.makeTicket(.preview(path: clip.path, output: partial, threads: threads),
                                     progress: { [self] fraction in set(name, .running(progress: fraction)) },
                                     cleanup: { unlink(partial) })
        tickets.withLock { $0[name] = ticket }
        let cache = self.cache
        Task {
            let result = await pool.run(ticket)
            tickets.withLock { _ = $0.removeValue(forKey: name) }
            defer { cache.unpin(name) }
            switch result {
            case let .reply(message, _) where message.result != nil:
                do throws(TemporaryName.CommitError) {
                    try TemporaryName(output: final).commit(partial, replacing: true)
                } catch {
                    set(name, .failed("cannot keep the preview in \(cache.folder) (\(error.reason))"))
                    return
                }
                let bytes = (try? FileManager.default.attributesOfItem(atPath: final)[.size] as? NSNumber)?.int64Value ?? 0
                cache.add(name, bytes: bytes, keepUntilServed: true)
                set(name, .done)
            case let .reply(message, _):
                unlink(partial)
                set(name, .failed(message.failureMessage ?? "the preview could not be made"))
            case let .crashed(how):
                set(name, .failed("the engine crashed making it (\(how))"))
            case let .timedOut(seconds):
                set(name, .failed("the engine made no progress for \(Int(seconds)) s and was stopped"))
            case .cancelled:
                unlink(partial)
                entries.withLock { _ = $0.removeValue(forKey: name) }
            case let .unavailable(why):
                set(name, .failed(why))
            }
        }
        return entry
    }

    private func isFailed(_ state: State) -> Bool {
        if case .failed = state { return true }
        return false
    }

    private func set(_ name: String, _ state: State) {
        entries.withLock { table in table[name]?.state = state }
    }
}
