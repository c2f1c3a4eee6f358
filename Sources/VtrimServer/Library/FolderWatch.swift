import Glibc

/// inotify over the library's folders: which folders changed since the last call, so only they are listed again.
/// Where inotify is missing, refused, or runs out of watches (`fs.inotify.max_user_watches`), `isComplete` is false
/// and the library falls back to bounded full rescans. Used by the scanning thread alone.
struct FolderWatch: ~Copyable {
    private let descriptor: Int32
    private var folderByWatch: [Int32: String] = [:]
    private var watchByFolder: [String: Int32] = [:]
    /// Every folder asked for is watched (false without inotify, or once a watch was refused).
    private(set) var isComplete: Bool

    init() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        isComplete = descriptor >= 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    private static let mask: UInt32 = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO)
        | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    /// Watches exactly `folders` (adds the new, drops the gone).
    mutating func watch(_ folders: some Sequence<String>) {
        guard descriptor >= 0 else { return }
        let wanted = Set(folders)
        for (folder, watch) in watchByFolder where !wanted.contains(folder) {
            inotify_rm_watch(descriptor, watch)
            watchByFolder[folder] = nil
            folderByWatch[watch] = nil
        }
        for folder in wanted where watchByFolder[folder] == nil {
            let watch = inotify_add_watch(descriptor, folder, Self.mask)
            if watch < 0 {
                // ENOSPC (out of watches) or a folder gone meanwhile: only the first means changes could be missed.
                if errno == ENOSPC { isComplete = false }
                continue
            }
            watchByFolder[folder] = watch
            folderByWatch[watch] = folder
        }
    }

    enum Changes: Equatable {
        case none
        case folders(Set<String>)
        /// The kernel's queue overflowed: anything may have changed.
        case everything
    }

    /// Waits up to `milliseconds` for events, then returns every folder with a change so far.
    mutating func changes(waitingMilliseconds milliseconds: Int32) -> Changes {
        guard descriptor >= 0 else {
            var none = pollfd()
            _ = poll(&none, 0, milliseconds)
            return .none
        }
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, milliseconds) > 0 else { return .none }
        var changed = Set<String>()
        var overflow = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (watch, mask, nameLength) = buffer.withUnsafeBytes { bytes in
                    (bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflow = true }
                if let folder = folderByWatch[watch] {
                    if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
                        // The folder itself went: its parent lists it as gone.
                        changed.insert(Self.parent(of: folder))
                    } else {
                        changed.insert(folder)
                    }
                }
                if mask & UInt32(IN_IGNORED) != 0, let folder = folderByWatch.removeValue(forKey: watch) {
                    watchByFolder[folder] = nil
                }
                offset += header + Int(nameLength)
            }
        }
        if overflow { return .everything }
        return changed.isEmpty ? .none : .folders(changed)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
