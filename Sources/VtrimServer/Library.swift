import Foundation
import LibraryFiles
import Locking
import WorkerProtocol

/// The clips `vtrim serve` offers: the media files under its folders (the walker and filters of
/// `vtrim … -r`, vtrim's own outputs left out; a file given instead of a folder is served alone), each
/// with a stable id derived from its folder and relative path — the client never sends a path. The walk is cached and repeated at most every `refreshSeconds` (a request for an id the
/// last walk did not see walks at once, at most once a second), so files that appear or vanish show up
/// without every request — a player's Range reads above all — stat'ing the whole library. Probes are
/// cached per file version (size and modification time) and dropped when the walk sees a new version.
final class Library: Sendable {
    struct Clip: Sendable {
        let id: String
        /// Below the served folder ("trip/beach.mp4"); with several folders, prefixed by the folder's name.
        let relativePath: String
        let path: String
        let version: FileVersion
        /// vtrim's outputs beside it made from it (serve's `{stem}.{start}-{end}.cut.{ext}`, the CLI's
        /// `{stem}.cut.{ext}`): listed under their source, never as clips of their own.
        var cuts: [Clip] = []

        var size: Int64 { version.sizeBytes }
        var modifiedSeconds: Double { Double(version.modifiedNanoseconds) / 1e9 }
    }

    static let refreshSeconds = 2.0
    let roots: [String]
    private let resolvedRoots: [String]
    private struct Snapshot {
        var clips: [Clip] = []
        var byID: [String: Clip] = [:]
        var walkedAt = -Double.infinity
    }
    private let snapshot = Locked(Snapshot())
    private let walking = Locked(false)
    private let probes = Locked<[String: (version: FileVersion, json: JSON)]>([:])

    init(folders: [String]) {
        roots = folders
        resolvedRoots = folders.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().standardizedFileURL.path }
    }

    /// Every clip, sorted by relative path, as of a walk at most `refreshSeconds` old.
    func clips() -> [Clip] {
        refreshIfOlder(than: Self.refreshSeconds)
        return snapshot.withLock { $0.clips }
    }

    func clip(id: String) -> Clip? {
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return nil }
        if let known = snapshot.withLock({ $0.byID[id] }) { return known }
        refreshIfOlder(than: 1)
        return snapshot.withLock { $0.byID[id] }
    }

    private func refreshIfOlder(than seconds: Double) {
        let now = ProcessInfo.processInfo.systemUptime
        guard snapshot.withLock({ now - $0.walkedAt >= seconds }) else { return }
        // One walk at a time; callers meanwhile use the last one.
        guard walking.withLock({ busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }) else { return }
        defer { walking.withLock { $0 = false } }
        let clips = walk()
        let versions = Dictionary(clips.map { ($0.path, $0.version) }, uniquingKeysWith: { a, _ in a })
        probes.withLock { table in table = table.filter { versions[$0.key] == $0.value.version } }
        snapshot.withLock { state in
            state.clips = clips
            // Outputs are addressable (to play them) but not listed as clips.
            state.byID = Dictionary((clips + clips.flatMap(\.cuts)).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            state.walkedAt = ProcessInfo.processInfo.systemUptime
        }
    }

    /// Files whose real location is outside the served folders (reached through a symlink) are not offered.
    private func walk() -> [Clip] {
        var clips: [Clip] = []
        var outputs: [Clip] = []
        // Outputs are walked too, to be listed under their source clip.
        let walker = InputWalker(recursive: true, includeOutputs: true)
        for (index, root) in roots.enumerated() {
            // A file given on the command line is served alone (`vtrim serve clip.mp4`).
            let isFile = !InputWalker.isDirectory(root)
            guard let items = try? walker.items([root]) else { continue }
            let prefix = roots.count > 1 && !isFile ? (root as NSString).lastPathComponent + "/" : ""
            for item in items {
                guard isFile ? FileManager.default.fileExists(atPath: item.path) : isInside(item.path, root: resolvedRoots[index]),
                      let version = FileVersion.of(item.path) else { continue }
                let clip = Clip(id: Self.identifier(root: resolvedRoots[index], relative: item.relativePath),
                                relativePath: prefix + item.relativePath, path: item.path, version: version)
                if InputWalker.isVtrimOutput((item.path as NSString).lastPathComponent) { outputs.append(clip) } else { clips.append(clip) }
            }
        }
        // Each output under the clip in its folder whose name it was made from.
        var bySource: [String: Int] = [:]
        for (position, clip) in clips.enumerated() {
            bySource[(clip.path as NSString).deletingPathExtension] = position
        }
        for output in outputs {
            let name = (output.path as NSString).lastPathComponent
            guard let stem = InputWalker.sourceStem(ofOutput: name) else { continue }
            let folder = (output.path as NSString).deletingLastPathComponent
            // A named output (`x.intro.cut.mkv` from a cut list's label) belongs to the longest stem that is a clip.
            var candidate = stem
            while true {
                if let position = bySource[(folder as NSString).appendingPathComponent(candidate)] {
                    clips[position].cuts.append(output)
                    break
                }
                guard let dot = candidate.lastIndex(of: ".") else { break }
                candidate = String(candidate[..<dot])
            }
        }
        return clips
    }

    /// The clip as it is on disk now (its current version), for work that must see a change at once.
    func current(_ clip: Clip) -> Clip {
        guard let version = FileVersion.of(clip.path), version != clip.version else { return clip }
        return Clip(id: clip.id, relativePath: clip.relativePath, path: clip.path, version: version)
    }

    /// The cached probe of a clip's version, if any.
    func cachedProbe(_ clip: Clip) -> JSON? {
        probes.withLock { $0[clip.path].flatMap { $0.version == clip.version ? $0.json : nil } }
    }

    func storeProbe(_ clip: Clip, _ json: JSON) {
        probes.withLock { $0[clip.path] = (clip.version, json) }
    }

    /// Whether `path`'s real location is below `root` (already resolved).
    func isInside(_ path: String, root: String) -> Bool {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        return real.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// 16 hex digits of FNV-1a over the folder and the relative path: stable across runs and restarts.
    static func identifier(root: String, relative: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (root + "\u{0}" + relative).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// Files that crashed a worker: not handed to the engine again until their size or modification time
/// changes (or the server restarts), so one bad file cannot keep killing workers.
final class Quarantine: Sendable {
    private let crashed = Locked<[String: (version: FileVersion, reason: String)]>([:])

    func add(_ clip: Library.Clip, reason: String) {
        crashed.withLock { $0[clip.path] = (clip.version, reason) }
    }

    /// Why the clip's current version is not given to the engine, or nil.
    func reason(_ clip: Library.Clip) -> String? {
        crashed.withLock { $0[clip.path].flatMap { $0.version == clip.version ? $0.reason : nil } }
    }
}
