#if canImport(Glibc)
import Glibc
#endif

/// The system calls vtrim makes on paths, each through `DiskName.withCString`, so a path carrying bytes that are not
/// UTF-8 reaches the file it names. (Foundation's `FileManager` and `FileHandle` hand the system a `String`'s UTF-8,
/// which is another name for such a path: they are used only on names vtrim makes itself.)
public enum DiskFile {
    public static func status(_ path: String) -> stat? {
        var info = stat()
        return DiskName.withCString(path) { stat($0, &info) } == 0 ? info : nil
    }

    /// `lstat(2)`: a symlink itself, not what it points to.
    public static func linkStatus(_ path: String) -> stat? {
        var info = stat()
        return DiskName.withCString(path) { lstat($0, &info) } == 0 ? info : nil
    }

    public static func exists(_ path: String) -> Bool { status(path) != nil }

    public static func isDirectory(_ path: String) -> Bool {
        status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
    }

    /// `open(2)`, close-on-exec: a descriptor, or -1 with `errno` set.
    /// (`mode` is for a file it creates, less the process's umask, as `creat(2)` has it.)
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o666) -> Int32 {
        DiskName.withCString(path) { Glibc.open($0, flags | O_CLOEXEC, mode) }
    }

    /// `unlink(2)`: 0, or -1 with `errno` set.
    @discardableResult
    public static func unlink(_ path: String) -> Int32 {
        DiskName.withCString(path) { Glibc.unlink($0) }
    }

    /// `rename(2)`: 0, or -1 with `errno` set.
    public static func rename(_ from: String, _ to: String) -> Int32 {
        DiskName.withCString(from) { source in DiskName.withCString(to) { Glibc.rename(source, $0) } }
    }

    public static func makeFolder(_ path: String, mode: mode_t = 0o755) -> Int32 {
        DiskName.withCString(path) { mkdir($0, mode) }
    }

    /// `path` and the folders above it that are missing; false when one cannot be made.
    public static func makeFolders(_ path: String) -> Bool {
        if isDirectory(path) { return true }
        var parent = path
        while parent.hasSuffix("/"), parent.count > 1 { parent.removeLast() }
        if let slash = parent.lastIndex(of: "/"), slash != parent.startIndex {
            guard makeFolders(String(parent[..<slash])) else { return false }
        }
        return makeFolder(path) == 0 || errno == EEXIST && isDirectory(path)
    }

    /// Writes `bytes` as the whole of `path` (created or truncated); false when that fails (`errno` set).
    public static func write(_ bytes: some Collection<UInt8>, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let array = Array(bytes)
        return array.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
    }

    /// Writes `bytes` into the existing file `path` at `offset` (past its end: the gap reads as zeros); false when that
    /// fails (`errno` set).
    public static func write(_ bytes: some Collection<UInt8>, to path: String, at offset: Int64) -> Bool {
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0, offset >= 0 else { return false }
        defer { close(descriptor) }
        let array = Array(bytes)
        return array.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = pwrite(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written, off_t(offset) + off_t(written))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
    }

    /// The whole of the file at `path`; nil when it cannot be read (`errno` set).
    public static func contents(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// The names in folder `path` (not `.` and `..`), as `DiskName` strings; nil when it cannot be read.
    public static func names(in path: String) -> [String]? {
        guard let directory = DiskName.withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let entryName = name(of: entry)
            if entryName != ".", entryName != ".." { names.append(entryName) }
        }
        return names
    }

    /// `realpath(3)`: the path with every symlink, `.` and `..` resolved; nil when it cannot be.
    public static func realPath(_ path: String) -> String? {
        guard let real = DiskName.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(real) }
        return DiskName.string(cString: real)
    }

    /// A directory entry's name, read where it is: a copy of `d_name` (all 256 bytes) would read past the end of a
    /// short record at the end of the buffer `readdir` fills.
    public static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeMutablePointer(to: &entry.pointee.d_name) { field in
            field.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { DiskName.string(cString: $0) }
        }
    }

    /// Removes `path`: a file, a symlink (not what it points to), or a folder with everything in it.
    public static func removeTree(_ path: String) {
        guard let info = linkStatus(path) else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in names(in: path) ?? [] { removeTree(path + "/" + name) }
            _ = DiskName.withCString(path) { rmdir($0) }
        } else {
            unlink(path)
        }
    }
}
