import Glibc

/// A file's size and modification time: what says it is the file a plan (or a cache entry) was made from.
public struct FileVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sizeBytes: Int64
    /// st_mtim in nanoseconds since the epoch (saturating; any value a file system stores fits).
    public var modifiedNanoseconds: Int64

    public init(sizeBytes: Int64, modifiedNanoseconds: Int64) {
        self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// The version of the file at `path` now (following symlinks), or nil when it cannot be stat'ed.
    public static func of(_ path: String) -> FileVersion? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileVersion(info)
    }

    /// The version a `stat` result gives.
    public init(_ info: stat) {
        let seconds = Int64(info.st_mtim.tv_sec)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(Int64(info.st_mtim.tv_nsec))
        let nanoseconds = overflow || sumOverflow ? (seconds < 0 ? Int64.min : Int64.max) : sum
        self.init(sizeBytes: Int64(info.st_size), modifiedNanoseconds: nanoseconds)
    }

    /// For cache keys and file names: "size-mtime".
    public var description: String { "\(sizeBytes)-\(modifiedNanoseconds)" }
}
