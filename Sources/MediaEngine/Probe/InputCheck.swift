import DiskNames
import Glibc

/// Checks a path before FFmpeg sees it, so the common failures get precise codes and a FIFO or device
/// can never block or stream forever inside avformat_open_input.
enum InputCheck {
    /// Returns the file size in bytes.
    static func regularFile(_ name: String) throws(MediaError) -> Int64 {
        // A URL read by range requests is as large as its server says; a URL's spool is checked as the file holding its
        // bytes, and named as given.
        if let source = InputSources.byteSource(for: name) {
            guard source.sizeBytes > 0 else { throw MediaError(.notMedia, path: name, operation: "size", reason: "empty file (0 bytes)") }
            return source.sizeBytes
        }
        let path = InputSources.diskPath(name)
        do { return try regularFile(disk: path) } catch {
            throw MediaError(error.code, path: name, operation: error.operation, reason: error.reason, remedy: error.remedy)
        }
    }

    private static func regularFile(disk path: String) throws(MediaError) -> Int64 {
        var info = stat()
        if DiskName.withCString(path, { stat($0, &info) }) != 0 {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                throw MediaError(.notFound, path: path, operation: "stat", reason: "no such file")
            case EACCES:
                throw MediaError(.unreadable, path: path, operation: "stat", reason: "permission denied")
            default:
                throw MediaError(.unreadable, path: path, operation: "stat", reason: String(cString: strerror(code)))
            }
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw MediaError(.isDirectory, path: path, operation: "stat", reason: "is a folder", remedy: .recursive)
        }
        if type != S_IFREG {
            let kind: String
            switch type {
            case S_IFIFO: kind = "a FIFO"
            case S_IFCHR, S_IFBLK: kind = "a device"
            case S_IFSOCK: kind = "a socket"
            default: kind = "not a regular file"
            }
            throw MediaError(.unreadable, path: path, operation: "stat", reason: "\(kind), not a regular file")
        }
        let fd = DiskFile.open(path, O_RDONLY)
        if fd < 0 {
            let code = errno
            let reason = code == EACCES ? "permission denied" : String(cString: strerror(code))
            throw MediaError(.unreadable, path: path, operation: "open", reason: reason)
        }
        close(fd)
        if info.st_size == 0 {
            throw MediaError(.notMedia, path: path, operation: "stat", reason: "empty file (0 bytes)")
        }
        return Int64(info.st_size)
    }
}
