import DiskNames
import Glibc

/// inotify over the library's folders: which folders changed since the last call, so only they are listed again, and
/// which files are being written (listed once they settle) or were just closed.
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
            let watch = DiskName.withCString(folder) { inotify_add_watch(descriptor, $0, Self.mask) }
            if watch < 0 {
                // A folder gone meanwhile is no loss; any other refusal (ENOSPC: out of watches) means changes could be
                // missed there, and full rescans take over.
                if errno != ENOENT || DiskFile.exists(folder) { isComplete = false }
                continue
            }
            watchByFolder[folder] = watch
            folderByWatch[watch] = folder
        }
    }

    /// What the kernel said since the last call.
    struct Changes: Equatable {
        /// Folders whose listing changed: an entry made, removed, renamed, its attributes changed.
        var folders: Set<String> = []
        /// Files being written (created or modified, not yet closed): listed once they settle.
        var writing: Set<String> = []
        /// Files closed after writing, or moved in: done, listed now.
        var written: Set<String> = []
        /// The kernel's queue overflowed: anything may have changed.
        var overflow = false

        var isEmpty: Bool { folders.isEmpty && writing.isEmpty && written.isEmpty && !overflow }
    }

    /// Waits up to `milliseconds` for events, then returns every change so far.
    mutating func changes(waitingMilliseconds milliseconds: Int32) -> Changes {
        var changes = Changes()
        guard descriptor >= 0 else {
            var none = pollfd()
            _ = poll(&none, 0, milliseconds)
            return changes
        }
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, milliseconds) > 0 else { return changes }
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
                // The name is NUL-padded after the header (bounded by what was read).
                let start = offset + header, end = min(count, start + Int(nameLength))
                let name = start < end ? DiskName.string(bytes: Array(buffer[start..<end].prefix { $0 != 0 })) : ""
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { changes.overflow = true }
                if let folder = folderByWatch[watch] {
                    let file = name.isEmpty || mask & UInt32(IN_ISDIR) != 0 ? nil : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
                    if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
                        // The folder itself went: its parent lists it as gone.
                        changes.folders.insert(Self.parent(of: folder))
                    } else if let file, mask & (UInt32(IN_MODIFY) | UInt32(IN_CREATE)) != 0 {
                        changes.writing.insert(file)
                    } else if let file, mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
                        changes.written.insert(file)
                    } else {
                        changes.folders.insert(folder)
                    }
                }
                if mask & UInt32(IN_IGNORED) != 0, let folder = folderByWatch.removeValue(forKey: watch) {
                    watchByFolder[folder] = nil
                }
                offset += header + Int(nameLength)
            }
        }
        return changes
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
