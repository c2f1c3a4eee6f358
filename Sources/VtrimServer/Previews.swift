import Foundation
import VtrimKit
import Synchronization

/// Preview stand-ins for clips the browser cannot play (HEVC in Chromium on Linux): made once per clip
/// version on their own thread, cached in the XDG cache folder, served while they are being written.
final class Previews: Sendable {
    enum State: Sendable {
        case running(progress: Double)
        case done
        case failed(String)
    }

    struct Entry: Sendable {
        var state: State
        let partial: String
        let final: String
    }

    private let folder: String
    private let pool: EnginePool
    private let threads: Int
    private let entries = Mutex<[String: Entry]>([:])
    private let cancelled = Atomic<Bool>(false)
    private let active = Atomic<Int>(0)

    init(folder: String, cores: Int) {
        self.folder = folder
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        pool = EnginePool(name: "vtrim-preview", threads: 1)
        threads = max(1, cores / 2)
    }

    /// The preview's file name for this version of the clip.
    private func key(_ clip: Library.Clip) -> String { "\(clip.id)-\(clip.size)-\(Int64(clip.modified))" }

    /// The clip's preview: done (from cache), being made, or started now.
    func entry(for clip: Library.Clip) -> Entry {
        let key = key(clip)
        let final = folder + "/" + key + ".mp4"
        let partial = folder + "/" + key + ".partial.mp4"
        return entries.withLock { table in
            if let known = table[key] {
                if case .failed = known.state {} else { return known }
            }
            if FileManager.default.fileExists(atPath: final) {
                let entry = Entry(state: .done, partial: partial, final: final)
                table[key] = entry
                return entry
            }
            let entry = Entry(state: .running(progress: 0), partial: partial, final: final)
            table[key] = entry
            start(clip, key: key, entry: entry)
            return entry
        }
    }

    func state(for clip: Library.Clip) -> State? { entries.withLock { $0[key(clip)]?.state } }

    private func start(_ clip: Library.Clip, key: String, entry: Entry) {
        active.add(1, ordering: .relaxed)
        let threads = self.threads
        pool.start { [self] in
            defer { active.subtract(1, ordering: .relaxed) }
            unlink(entry.partial)
            let failure = ServeSupport.preview(path: clip.path, to: entry.partial, threads: threads,
                                               shouldStop: { [self] in cancelled.load(ordering: .relaxed) },
                                               progress: { [self] fraction in set(key, .running(progress: fraction)) })
            if let failure {
                unlink(entry.partial)
                set(key, .failed(failure.reason))
            } else if rename(entry.partial, entry.final) != 0 {
                unlink(entry.partial)
                set(key, .failed("cannot keep the preview in \(folder)"))
            } else {
                set(key, .done)
            }
        }
    }

    private func set(_ key: String, _ state: State) {
        entries.withLock { table in table[key]?.state = state }
    }

    func cancelAll() { cancelled.store(true, ordering: .releasing) }

    func waitUntilIdle() {
        while active.load(ordering: .acquiring) > 0 { usleep(20_000) }
        pool.stop()
    }
}
