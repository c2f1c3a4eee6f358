import Foundation
import Synchronization
import VtrimKit

/// The clips `vtrim serve` offers: the media files under its folders (the walker and filters of
/// `vtrim … -r`), each with a stable id derived from its folder and relative path — the client never
/// sends a path. Listing walks again every time (cheap: names and sizes only), so files that appear or
/// vanish show up; probes are cached per file version (size and modification time) and made lazily.
final class Library: Sendable {
    struct Clip: Sendable {
        let id: String
        /// Below the served folder ("trip/beach.mp4"); with several folders, prefixed by the folder's name.
        let relativePath: String
        let path: String
        let size: Int64
        let modified: Double
    }

    let roots: [String]
    private let resolvedRoots: [String]
    private let probes = Mutex<[String: (version: String, json: JSON)]>([:])

    init(folders: [String]) {
        roots = folders
        resolvedRoots = folders.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().standardizedFileURL.path }
    }

    /// Every clip, sorted by relative path. Files whose real location is outside the served folders
    /// (reached through a symlink) are not offered.
    func clips() -> [Clip] {
        var clips: [Clip] = []
        let walker = InputWalker(recursive: true)
        for (index, root) in roots.enumerated() {
            guard let items = try? walker.items([root]) else { continue }
            let prefix = roots.count > 1 ? (root as NSString).lastPathComponent + "/" : ""
            for item in items {
                guard isInside(item.path, root: resolvedRoots[index]) else { continue }
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: item.path) else { continue }
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                let relative = prefix + item.relativePath
                clips.append(Clip(id: Self.identifier(root: resolvedRoots[index], relative: item.relativePath), relativePath: relative,
                                  path: item.path, size: size, modified: modified))
            }
        }
        return clips
    }

    func clip(id: String) -> Clip? {
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return nil }
        return clips().first { $0.id == id }
    }

    /// The cached probe of a clip's current version, if any.
    func cachedProbe(_ clip: Clip) -> JSON? {
        let version = Self.version(clip)
        return probes.withLock { $0[clip.path].flatMap { $0.version == version ? $0.json : nil } }
    }

    func storeProbe(_ clip: Clip, _ json: JSON) {
        let version = Self.version(clip)
        probes.withLock { $0[clip.path] = (version, json) }
    }

    private static func version(_ clip: Clip) -> String { "\(clip.size)-\(clip.modified)" }

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
