import Foundation
import Synchronization
import Glibc
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
    public static let temporaryMarker = ".vtrim-tmp-"

    /// Fails with `output_is_input`, `output_exists` or `write_failed` (missing folder). A dry run creates
    /// nothing: a folder that would be created is fine.
    public func check(input: String, dryRun: Bool = false) throws(MediaError) {
        if Self.sameFile(path, input) {
            throw MediaError(.outputIsInput, path: input, operation: "check output",
                             reason: "the output \(path) is the input itself; choose another name")
        }
        let folder = (path as NSString).deletingLastPathComponent
        if createsFolder, !folder.isEmpty, !dryRun {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder)
        if dryRun, createsFolder, !exists {
            return
        }
        if !exists || !isFolder.boolValue {
            throw MediaError(.writeFailed, path: input, operation: "check output",
                             reason: "the output folder \(folder) does not exist")
        }
        if !dryRun { removeStaleTemporaries() }
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw MediaError(.outputExists, path: input, operation: "check output",
                             reason: "\(path) already exists (use --overwrite to replace it)")
        }
    }

    /// Removes temporary files of this output left by a vtrim that was killed: only those of the same
    /// final name (stem and extension), written on this host, by a process that is gone. A folder shared
    /// by several machines (`--shard` over NFS) holds other hosts' files in progress: their pids mean
    /// nothing here, so they are never touched.
    public func removeStaleTemporaries() {
        let (folder, prefix, suffix) = temporaryNameParts()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count {
            let fields = name.dropFirst(prefix.count).dropLast(suffix.count).split(separator: "+", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == Self.hostName, let pid = Int32(fields[1]), pid > 0,
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }

    /// A new temporary path beside the output (same folder, so the rename is atomic): hidden, marked with
    /// the host, pid and a random number (unique across the machines sharing a folder), and ending in the
    /// output's extension so FFmpeg recognises the file when it reads it back:
    /// `.clip.cut.vtrim-tmp-HOST+PID+RANDOM.mp4`.
    public func temporaryPath() -> String {
        let (folder, prefix, suffix) = temporaryNameParts()
        let name = prefix + "\(Self.hostName)+\(getpid())+\(UInt32.random(in: 0...UInt32.max))" + suffix
        return (folder as NSString).appendingPathComponent(name)
    }

    private func temporaryNameParts() -> (folder: String, prefix: String, suffix: String) {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = ext.isEmpty ? url.lastPathComponent : String(url.lastPathComponent.dropLast(ext.count + 1))
        return (url.deletingLastPathComponent().path, "." + stem + Self.temporaryMarker, ext.isEmpty ? "" : "." + ext)
    }

    /// This machine's name as it goes into temporary names (letters, digits, '-' and '.'; never '+').
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let raw = gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let cleaned = String(raw.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "." ? Character($0) : "_" })
        return cleaned.isEmpty ? "localhost" : String(cleaned.prefix(64))
    }()

    /// Moves the finished temporary file into place. Without --overwrite an output that appeared
    /// meanwhile is not replaced (link(2) fails with EEXIST).
    public func commit(_ temporary: String, input: String) throws(MediaError) {
        if overwrite {
            if rename(temporary, path) != 0 { throw failure(errno, input: input, temporary: temporary) }
            return
        }
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let code = errno
        if code == EEXIST {
            unlink(temporary)
            throw MediaError(.outputExists, path: input, operation: "link",
                             reason: "\(path) already exists (use --overwrite to replace it)")
        }
        // File systems without hard links: check, then rename.
        if FileManager.default.fileExists(atPath: path) {
            unlink(temporary)
            throw MediaError(.outputExists, path: input, operation: "rename",
                             reason: "\(path) already exists (use --overwrite to replace it)")
        }
        if rename(temporary, path) != 0 { throw failure(errno, input: input, temporary: temporary) }
    }

    private func failure(_ code: Int32, input: String, temporary: String) -> MediaError {
        unlink(temporary)
        return MediaError(.writeFailed, path: input, operation: "rename",
                          reason: "cannot move the output into place at \(path) (\(String(cString: strerror(code))))")
    }

    /// Same file by device and inode when both exist, else by resolved path (symlinks, "./x", "../d/x").
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        if stat(a, &first) == 0, stat(b, &second) == 0 {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return resolved(a) == resolved(b)
    }

    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// Temporary files in flight, removed if the process is interrupted.
public final class TemporaryFiles: Sendable {
    public static let shared = TemporaryFiles()
    private let paths = Mutex<Set<String>>([])

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
        for path in current where unlink(path) != 0 && errno == EISDIR { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Writes an output through a temporary file; the closure writes to the path it is given.
public func writeAtomically(_ target: OutputTarget, input: String, _ write: (String) throws(MediaError) -> Void) throws(MediaError) {
    let temporary = target.temporaryPath()
    guard TemporaryFiles.shared.add(temporary) else { throw Interrupt.error(input) }
    defer { TemporaryFiles.shared.remove(temporary) }
    do throws(MediaError) {
        try write(temporary)
        if Interrupt.requested { throw Interrupt.error(input) }
    } catch {
        unlink(temporary)
        throw error
    }
    try target.commit(temporary, input: input)
}

extension Interrupt {
    static func error(_ path: String) -> MediaError {
        MediaError(.interrupted, path: path, operation: "signal", reason: "interrupted; nothing written")
    }
}
