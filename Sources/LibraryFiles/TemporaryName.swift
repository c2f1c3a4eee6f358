import Foundation
import Glibc

/// The temporary files an output is written through before it is renamed into place: hidden, beside the
/// output (same folder, so the rename is atomic), marked with the host, pid and a random number (unique across
/// the machines sharing a folder), and ending in the output's extension so FFmpeg recognises the file when it
/// reads it back: `.clip.cut.vtrim-tmp-HOST+PID+RANDOM.mp4`.
public struct TemporaryName: Sendable {
    /// Temporary files carry this marker so a later run can recognise (and ignore or clean) leftovers.
    public static let marker = ".vtrim-tmp-"

    /// The final output's path.
    public let output: String

    public init(output: String) { self.output = output }

    /// A new temporary path for the output.
    public func makePath() -> String {
        let (folder, prefix, suffix) = parts
        let name = prefix + "\(Self.hostName)+\(getpid())+\(UInt32.random(in: 0...UInt32.max))" + suffix
        return (folder as NSString).appendingPathComponent(name)
    }

    /// Removes temporary files of this output left by a vtrim that was killed: only those of the same
    /// final name (stem and extension), written on this host, by a process that is gone. A folder shared
    /// by several machines (`--shard` over NFS) holds other hosts' files in progress: their pids mean
    /// nothing here, so they are never touched.
    public func removeStale() {
        let (folder, prefix, suffix) = parts
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count {
            let fields = name.dropFirst(prefix.count).dropLast(suffix.count).split(separator: "+", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == Self.hostName, let pid = Int32(fields[1]), pid > 0,
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink((folder as NSString).appendingPathComponent(name))
        }
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
