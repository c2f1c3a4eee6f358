import CFileSystem
import DiskNames
import Foundation
import Glibc

/// The one way vtrim writes a file or a folder: into a temporary name beside it (same folder, so the rename is
/// atomic), renamed into place only when complete. The name is hidden, marked with the host, the pid and a random
/// number (unique across the machines sharing a folder), and ends in the output's extension so FFmpeg recognises the
/// file when it reads it back: `.clip.cut.vtrim-tmp-HOST+PID+RANDOM.mp4`. Leftovers of a vtrim that was killed are
/// recognised by that mark and removed only when written on this host by a process that is gone. Every writer uses
/// it: the command line's outputs, storyboard folders, cut lists, the server's tiles and previews.
///
/// Under a scheduler that retries tasks on other machines (Ray) a pid says nothing about life: there `VTRIM_ATTEMPT`
/// (`TASK:ATTEMPT`) names the task and its attempt, the mark is `@TASK@ATTEMPT+PID+RANDOM`, and an attempt removes
/// the temporaries of its task's other attempts (a task is retried only once its attempt is dead).
public struct TemporaryName: Sendable {
    /// Temporary files carry this marker so a later run can recognise (and ignore or clean) leftovers.
    public static let marker = ".vtrim-tmp-"

    /// The final output's path.
    public let output: String

    public init(output: String) { self.output = output }

    /// Why a finished temporary could not be put in place (it is removed either way).
    public enum CommitError: Error, Equatable {
        /// The output exists and is not to be replaced.
        case exists
        /// A rename or link failed: the call and its errno.
        case failed(operation: String, code: Int32)

        public var reason: String {
            switch self {
            case .exists: "it already exists"
            case let .failed(operation, code): "\(operation): \(String(cString: strerror(code)))"
            }
        }
    }

    /// A new temporary path for the output (a file or a folder, as the caller makes it).
    public func makePath() -> String {
        let (folder, prefix, suffix) = parts
        let owner = Self.attempt.map { "@\($0.task)@\($0.attempt)" } ?? Self.hostName
        let name = prefix + "\(owner)+\(getpid())+\(UInt32.random(in: 0...UInt32.max))" + suffix
        return (folder as NSString).appendingPathComponent(name)
    }

    /// Puts the finished `temporary` (a file or a folder) at the output's path. `replacing`: an existing output is
    /// replaced atomically — a file by rename(2); a folder by swapping the two (`renameat2(RENAME_EXCHANGE)`) and
    /// removing the old one, or where the file system cannot swap, by moving the old one aside first — so a reader
    /// never sees half of each. Otherwise an output that appeared meanwhile (another run) stays, and `exists` is thrown.
    public func commit(_ temporary: String, replacing: Bool) throws(CommitError) {
        do throws(CommitError) {
            if DiskFile.isDirectory(temporary) {
                try commitFolder(temporary, replacing: replacing)
            } else {
                try commitFile(temporary, replacing: replacing)
            }
        } catch {
            Self.remove(temporary)
            throw error
        }
    }

    private func commitFile(_ temporary: String, replacing: Bool) throws(CommitError) {
        if replacing {
            guard DiskFile.rename(temporary, output) == 0 else { throw .failed(operation: "rename", code: errno) }
            return
        }
        // link(2) refuses an existing name atomically.
        if DiskName.withCString(temporary, { source in DiskName.withCString(output) { link(source, $0) } }) == 0 {
            DiskFile.unlink(temporary)
            return
        }
        let code = errno
        if code == EEXIST { throw .exists }
        // File systems without hard links.
        try renameNoReplace(temporary)
    }

    private func commitFolder(_ temporary: String, replacing: Bool) throws(CommitError) {
        guard replacing, DiskFile.exists(output) else {
            try renameNoReplace(temporary)
            return
        }
        if DiskName.withCString(temporary, { source in DiskName.withCString(output) { vtrim_rename_exchange(source, $0) } }) == 0 {
            Self.remove(temporary)  // The old folder, now under the temporary name.
            return
        }
        guard errno == EINVAL || errno == ENOSYS || errno == EXDEV else { throw .failed(operation: "renameat2", code: errno) }
        // No exchange here: the old folder moves aside, the new one into place (or the old one back), the old one goes.
        let aside = makePath()
        guard DiskFile.rename(output, aside) == 0 else { throw .failed(operation: "rename", code: errno) }
        guard DiskFile.rename(temporary, output) == 0 else {
            let code = errno
            _ = DiskFile.rename(aside, output)
            throw .failed(operation: "rename", code: code)
        }
        Self.remove(aside)
    }

    /// rename(2) that never replaces (a folder would replace an empty one): renameat2's RENAME_NOREPLACE, or where
    /// the file system has none, a check first.
    private func renameNoReplace(_ temporary: String) throws(CommitError) {
        if DiskName.withCString(temporary, { source in DiskName.withCString(output) { vtrim_rename_noreplace(source, $0) } }) == 0 { return }
        let code = errno
        if code == EEXIST || code == ENOTEMPTY { throw .exists }
        guard code == EINVAL || code == ENOSYS else { throw .failed(operation: "renameat2", code: code) }
        if DiskFile.exists(output) { throw .exists }
        guard DiskFile.rename(temporary, output) == 0 else { throw .failed(operation: "rename", code: errno) }
    }

    /// Removes temporaries of this output left by a vtrim that was killed: only those of the same final name (stem
    /// and extension), written on this host, by a process that is gone. A folder shared by several machines
    /// (`--shard` over NFS) holds other hosts' files in progress: their pids mean nothing here, so they are never
    /// touched.
    public func removeStale() {
        let (folder, prefix, suffix) = parts
        Self.removeStale(in: folder) { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
    }

    /// Removes every temporary in `folder` (not below it) left on this host by a process that is gone: a cache's.
    public static func removeStale(inFolder folder: String) {
        removeStale(in: folder) { _ in true }
    }

    private static func removeStale(in folder: String, where matches: (String) -> Bool) {
        guard let names = DiskFile.names(in: folder) else { return }
        for name in names where matches(name) && isLeftOver(name) {
            remove((folder as NSString).appendingPathComponent(name))
        }
    }

    /// Whether `name` is a temporary left by a writer that is gone: `…vtrim-tmp-HOST+PID+RANDOM…` written on this host
    /// by a process that no longer runs, or `…vtrim-tmp-@TASK@ATTEMPT+PID+RANDOM…` by another attempt of this
    /// process's task (`VTRIM_ATTEMPT`).
    static func isLeftOver(_ name: String) -> Bool { isLeftOver(name, host: hostName, attempt: attempt) }

    static func isLeftOver(_ name: String, host: String, attempt current: Attempt?) -> Bool {
        guard let mark = name.range(of: marker) else { return false }
        let fields = name[mark.upperBound...].split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let pid = Int32(fields[1]), pid > 0, fields[2].prefix(while: \.isNumber).count > 0 else { return false }
        if fields[0].hasPrefix("@") {
            guard let current, let owner = Attempt(marked: fields[0]) else { return false }
            return owner.task == current.task && owner.attempt != current.attempt
        }
        guard fields[0] == host else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// A scheduler's task and the attempt at it (`VTRIM_ATTEMPT=TASK:ATTEMPT`): letters, digits, '-', '_' and '.',
    /// up to 32 each (a temporary's name carries both, and must stay within the file system's 255 bytes).
    public struct Attempt: Sendable, Equatable {
        public let task: String
        public let attempt: String

        public init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let task = Self.field(parts[0]), let attempt = Self.field(parts[1]) else { return nil }
            self.task = task
            self.attempt = attempt
        }

        /// From a temporary's mark, `@TASK@ATTEMPT`.
        init?(marked: Substring) {
            let parts = marked.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].isEmpty, let task = Self.field(parts[1]), let attempt = Self.field(parts[2]) else { return nil }
            self.task = task
            self.attempt = attempt
        }

        private static func field(_ text: Substring) -> String? {
            guard (1...32).contains(text.count),
                  text.unicodeScalars.allSatisfy({ ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "-_.".unicodeScalars.contains($0) })
            else { return nil }
            return String(text)
        }
    }

    /// This process's attempt (`VTRIM_ATTEMPT`), if a scheduler set one; `vtrim` refuses a malformed one at start-up.
    public static let attempt: Attempt? = ProcessInfo.processInfo.environment["VTRIM_ATTEMPT"].flatMap(Attempt.init)

    /// Removes `path` if it is a temporary left on this host by a process that is gone (a cache's walk).
    public static func removeIfLeftOver(_ path: String) {
        if isLeftOver((path as NSString).lastPathComponent) { remove(path) }
    }

    /// Whether a name is one of vtrim's temporaries (whoever wrote it).
    public static func isTemporary(_ name: String) -> Bool { name.contains(marker) }

    /// A file, or a folder with what is in it.
    static func remove(_ path: String) {
        if DiskFile.unlink(path) != 0, errno == EISDIR || errno == EPERM { DiskFile.removeTree(path) }
    }

    private var parts: (folder: String, prefix: String, suffix: String) {
        let url = URL(fileURLWithPath: output)
        let ext = url.pathExtension
        let stem = ext.isEmpty ? url.lastPathComponent : String(url.lastPathComponent.dropLast(ext.count + 1))
        return (url.deletingLastPathComponent().path, "." + stem + Self.marker, ext.isEmpty ? "" : "." + ext)
    }

    /// This machine's name as it goes into temporary names (letters, digits, '-' and '.'; never '+').
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let raw = gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let cleaned = String(raw.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "." ? Character($0) : "_" })
        return cleaned.isEmpty ? "localhost" : String(cleaned.prefix(64))
    }()
}
