import DiskNames
import Foundation
import Glibc
import LibraryFiles

/// The served folders as the last scans saw them, folder by folder, so one folder that changed is listed again
/// alone (an inotify event names the folder) instead of walking the whole library. Owned by the library's scanning
/// thread; the request side sees only the snapshots built from it.
///
/// The rules are `vtrim … -r`'s walk with vtrim's outputs kept (listed under their sources): media files by
/// extension, hidden names and storyboard folders skipped, a symlink followed only where its real location is
/// inside the served folder (one `realpath` per symlink, not per file: a plain entry of a folder inside the root is
/// inside it), and a folder reached twice (a symlink loop) listed once.
struct LibraryTree {
    struct File: Equatable {
        var version: FileVersion
        var isOutput: Bool
    }

    struct Folder {
        let root: Int
        /// Below the root ("trip/day1"), "" for the root itself.
        let relative: String
        var files: [String: File] = [:]
        /// The absolute paths of the folders below it that are listed.
        var subfolders: Set<String> = []
        /// Its last listing failed (it became unreadable): its files are the last ones seen, marked.
        var unreadable: String?
        let identity: FolderIdentity?
    }

    struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    let roots: [String]
    /// The roots' real locations, for the symlink rule and the clips' ids.
    let resolvedRoots: [String]
    private(set) var folders: [String: Folder] = [:]
    /// Roots that are files (`vtrim serve clip.mp4`): their version, nil while they cannot be stat'ed.
    private(set) var singleFiles: [Int: File] = [:]
    private var identities: [FolderIdentity: String] = [:]
    /// The folders the last `rescan` listed, dropped or marked (the one asked for, and any below it).
    private(set) var touched: Set<String> = []

    let rootIsFile: [Bool]

    init(roots: [String], rootIsFile: [Bool]) {
        self.roots = roots
        self.rootIsFile = rootIsFile
        resolvedRoots = roots.map(Self.realLocation)
    }

    /// Every root from scratch. `holding`: files being written (`SettlingFiles`), kept as they were listed before, or
    /// not listed yet.
    mutating func scanAll(holding: Set<String> = []) {
        defer { touched = [] }
        let previous = folders
        folders = [:]
        identities = [:]
        singleFiles = [:]
        for (index, root) in roots.enumerated() {
            if !rootIsFile[index] {
                list(folder: root, root: index, relative: "", holding: holding, before: previous)
            } else if let version = FileVersion.of(root) {
                singleFiles[index] = File(version: version, isOutput: false)
            }
        }
    }

    /// Lists `folder` again (after a change in it): files added, changed or removed there, folders below it
    /// that appeared (listed whole) or went (dropped with everything under them).
    mutating func rescan(folder path: String, holding: Set<String> = []) {
        touched = []
        guard let known = folders[path] else { return }
        list(folder: path, root: known.root, relative: known.relative, previous: known, holding: holding)
    }

    /// Single-file roots are stat'ed again (cheap; they have no folder to watch).
    mutating func restatFiles() -> Bool {
        var changed = false
        for (index, root) in roots.enumerated() where rootIsFile[index] {
            let now = FileVersion.of(root).map { File(version: $0, isOutput: false) }
            if singleFiles[index] != now {
                singleFiles[index] = now
                changed = true
            }
        }
        return changed
    }

    private mutating func list(folder path: String, root: Int, relative: String, previous: Folder? = nil, holding: Set<String> = [],
                               before: [String: Folder] = [:]) {
        touched.insert(path)
        let identity = Self.identity(of: path)
        if let identity, let owner = identities[identity], owner != path { return }
        guard let directory = DiskName.withCString(path, { opendir($0) }) else {
            let reason = String(cString: strerror(errno))
            if var kept = previous {
                // Unreadable now: what it held stays listed, marked, rather than vanishing.
                kept.unreadable = reason
                folders[path] = kept
                markUnreadable(below: kept, reason: reason)
            } else {
                folders[path] = Folder(root: root, relative: relative, unreadable: reason, identity: identity)
            }
            return
        }
        defer { closedir(directory) }
        if let identity { identities[identity] = path }
        var folder = Folder(root: root, relative: relative, identity: identity)
        var subfolders: [(path: String, relative: String, identity: FolderIdentity)] = []
        while let entry = readdir(directory) {
            let name = DiskFile.name(of: entry)
            if name.hasPrefix(".") { continue }
            let child = path.hasSuffix("/") ? path + name : path + "/" + name
            let below = relative.isEmpty ? name : relative + "/" + name
            guard var info = DiskFile.linkStatus(child) else { continue }
            var kind = info.st_mode & S_IFMT
            if kind == S_IFLNK {
                guard let target = DiskFile.status(child), isInside(child, root: resolvedRoots[root]) else { continue }
                info = target
                kind = info.st_mode & S_IFMT
            }
            if kind == S_IFDIR {
                if InputWalker.isStoryboardFolder(name) { continue }
                subfolders.append((child, below, FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))))
            } else if kind == S_IFREG, InputWalker.mediaExtensions.contains((name as NSString).pathExtension.lowercased()) {
                if holding.contains(child) {
                    // Being written: as it was listed before, if it was.
                    if let listed = (previous ?? before[path])?.files[name] { folder.files[name] = listed }
                    continue
                }
                folder.files[name] = File(version: FileVersion(info), isOutput: InputWalker.isVtrimOutput(name))
            }
        }
        folder.subfolders = Set(subfolders.map(\.path))
        // Folders that went away take everything under them along.
        for gone in (previous?.subfolders ?? []).subtracting(folder.subfolders) { drop(folder: gone) }
        folders[path] = folder
        for (child, below, identity) in subfolders {
            guard let known = folders[child] else {
                list(folder: child, root: root, relative: below, holding: holding, before: before)
                continue
            }
            // Listed before: again only if it could not be read then — what it held stays, marked, while it still
            // cannot be (whichever of it and its parent is listed first after a chmod) — or if it is another folder now
            // (deleted and made again between two events).
            if known.identity != identity {
                drop(folder: child)
                list(folder: child, root: root, relative: below, holding: holding)
            } else if known.unreadable != nil {
                list(folder: child, root: root, relative: below, previous: known, holding: holding)
            }
        }
        // A subfolder skipped as a second way into a folder already listed is not one of ours.
        let listed = Set(folder.subfolders.filter { folders[$0] != nil })
        folders[path]?.subfolders = listed
    }

    private mutating func drop(folder path: String) {
        touched.insert(path)
        guard let folder = folders.removeValue(forKey: path) else { return }
        if let identity = folder.identity, identities[identity] == path { identities[identity] = nil }
        for below in folder.subfolders { drop(folder: below) }
    }

    private mutating func markUnreadable(below folder: Folder, reason: String) {
        for path in folder.subfolders {
            guard var child = folders[path] else { continue }
            child.unreadable = child.unreadable ?? reason
            folders[path] = child
            touched.insert(path)
            markUnreadable(below: child, reason: reason)
        }
    }

    /// Where `path` really is (symlinks resolved; as given, standardised, when it does not exist): what a clip's id
    /// and the symlink rule are made from.
    static func realLocation(_ path: String) -> String {
        DiskFile.realPath(path) ?? URL(fileURLWithPath: path).standardizedFileURL.path
    }

    private func isInside(_ path: String, root: String) -> Bool {
        guard let text = DiskFile.realPath(path) else { return false }
        return text == root || text.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    private static func identity(of path: String) -> FolderIdentity? {
        guard let info = DiskFile.status(path) else { return nil }
        return FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
