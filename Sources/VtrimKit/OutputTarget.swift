import DiskNames
import Foundation
import Glibc
import LibraryFiles
import Locking
import MediaEngine

/// Where an output goes and how it gets there: checked before any work (never the input, never an
/// existing file without --overwrite), written to a hidden temporary file in the target folder, and
/// renamed into place only when complete.
public struct OutputTarget: Sendable {
    public let path: String
    public let overwrite: Bool
    /// Create the output's folder when missing (below --output-dir, which mirrors the input tree).
    public let createsFolder: Bool

    public init(path: String, overwrite: Bool, createsFolder: Bool = false) {
        self.path = path
        self.overwrite = overwrite
        self.createsFolder = createsFolder
    }

    /// Temporary files carry this marker so a later run can recognise (and ignore or clean) leftovers.
    public static let temporaryMarker = TemporaryName.marker

    /// Fails with `output_is_input`, `output_exists` or `write_failed` (missing folder). A dry run creates
    /// nothing: a folder that would be created is fine.
    public func check(input: String, dryRun: Bool = false) throws(MediaError) {
        if Self.sameFile(path, input) {
            throw MediaError(.outputIsInput, path: input, operation: "check output",
                             reason: "the output \(path) is the input itself; choose another name")
        }
        let folder = (path as NSString).deletingLastPathComponent
        if createsFolder, !folder.isEmpty, !dryRun {
            _ = DiskFile.makeFolders(folder)
        }
        let exists = DiskFile.exists(folder.isEmpty ? "." : folder)
        if dryRun, createsFolder, !exists {
            return
        }
        if !exists || !DiskFile.isDirectory(folder.isEmpty ? "." : folder) {
            throw MediaError(.writeFailed, path: input, operation: "check output",
                             reason: "the output folder \(folder) does not exist")
        }
        if !dryRun { removeStaleTemporaries() }
        if !overwrite, DiskFile.exists(path) {
            throw MediaError(.outputExists, path: input, operation: "check output",
                             reason: "\(path) already exists (use --overwrite to replace it)")
        }
    }

    /// Removes temporary files of this output left by a vtrim that was killed (`TemporaryName.removeStale`).
    public func removeStaleTemporaries() { TemporaryName(output: path).removeStale() }

    /// A new temporary path beside the output (`TemporaryName`).
    public func temporaryPath() -> String { TemporaryName(output: path).makePath() }

    /// Moves the finished temporary file (or folder) into place (`TemporaryName.commit`). Without --overwrite an output
    /// that appeared meanwhile is not replaced.
    public func commit(_ temporary: String, input: String) throws(MediaError) {
        do {
            try TemporaryName(output: path).commit(temporary, replacing: overwrite)
        } catch .exists {
            throw MediaError(.outputExists, path: input, operation: "rename", reason: "\(path) already exists (use --overwrite to replace it)")
        } catch {
            throw MediaError(.writeFailed, path: input, operation: "rename", reason: "cannot move the output into place at \(path) (\(error.reason))")
        }
    }

    /// Same file by device and inode when both exist, else by resolved path (symlinks, "./x", "../d/x").
    static func sameFile(_ a: String, _ b: String) -> Bool {
        if let first = DiskFile.status(a), let second = DiskFile.status(b) {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return resolved(a) == resolved(b)
    }

    private static func resolved(_ path: String) -> String {
        DiskFile.realPath(path) ?? URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// Temporary files in flight, removed if the process is interrupted.
public final class TemporaryFiles: Sendable {
    public static let shared = TemporaryFiles()
    private let paths = Locked<Set<String>>([])

    /// Registers a temporary file before it is created; refused once an interrupt arrived, so no new
    /// file can appear after the clean-up.
    public func add(_ path: String) -> Bool {
        paths.withLock { paths in
            guard !Interrupt.requested else { return false }
            paths.insert(path)
            return true
        }
    }

    public func remove(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
    }

    /// Deletes every registered file, and folder (a storyboard's), (called on SIGINT/SIGTERM, off the handler).
    public func removeAll() {
        let current = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        for path in current where DiskFile.unlink(path) != 0 && errno == EISDIR { DiskFile.removeTree(path) }
    }
}

/// Writes an output — a file, or a folder the closure makes — through a temporary name (`TemporaryName`); the closure
/// writes to the path it is given. Interrupted or failed, nothing is left.
public func writeAtomically(_ target: OutputTarget, input: String, _ write: (String) throws(MediaError) -> Void) throws(MediaError) {
    let temporary = target.temporaryPath()
    guard TemporaryFiles.shared.add(temporary) else { throw Interrupt.error(input) }
    defer { TemporaryFiles.shared.remove(temporary) }
    do throws(MediaError) {
        try write(temporary)
        if Interrupt.requested { throw Interrupt.error(input) }
    } catch {
        if DiskFile.unlink(temporary) != 0, errno == EISDIR { DiskFile.removeTree(temporary) }
        // A write the interrupt stopped is the interrupt's.
        throw Interrupt.requested ? Interrupt.error(input) : error
    }
    try target.commit(temporary, input: input)
}

extension Interrupt {
    static func error(_ path: String) -> MediaError {
        MediaError(.interrupted, path: path, operation: "signal", reason: "interrupted; nothing written")
    }
}
