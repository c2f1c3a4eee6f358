import DiskNames
import Glibc

/// A file's size, modification time, inode and status-change time: what says it is the file a plan (or a cache entry)
/// was made from. Size and mtime alone are copied by `cp -p` and `rsync -a` onto a file with other content; the
/// change time cannot be set from user space, and a file replaced by a rename has another inode.
public struct FileVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sizeBytes: Int64
    /// st_mtim in nanoseconds since the epoch (saturating; any value a file system stores fits).
    public var modifiedNanoseconds: Int64
    public var inode: UInt64
    /// st_ctim in nanoseconds since the epoch (saturating), changed by every write, rename, chmod or link.
    public var changedNanoseconds: Int64

    public init(sizeBytes: Int64, modifiedNanoseconds: Int64, inode: UInt64 = 0, changedNanoseconds: Int64 = 0) {
        self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
        self.changedNanoseconds = changedNanoseconds
    }

    /// The version of the file at `path` now (following symlinks), or nil when it cannot be stat'ed.
    public static func of(_ path: String) -> FileVersion? {
        DiskFile.status(path).map(FileVersion.init)
    }

    /// The version a `stat` result gives.
    public init(_ info: stat) {
        self.init(sizeBytes: Int64(info.st_size), modifiedNanoseconds: Self.nanoseconds(info.st_mtim), inode: UInt64(info.st_ino),
                  changedNanoseconds: Self.nanoseconds(info.st_ctim))
    }

    /// A timespec in nanoseconds since the epoch, saturating.
    static func nanoseconds(_ time: timespec) -> Int64 {
        let seconds = Int64(time.tv_sec)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
        return overflow || sumOverflow ? (seconds < 0 ? Int64.min : Int64.max) : sum
    }

    /// For cache keys and file names: "size-mtime-inode-ctime".
    public var description: String { "\(sizeBytes)-\(modifiedNanoseconds)-\(inode)-\(changedNanoseconds)" }
}
