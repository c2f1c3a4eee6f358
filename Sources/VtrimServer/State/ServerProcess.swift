import Foundation
import Glibc

/// Which server process a cut belongs to, so that a second server over the same state database can tell a cut the
/// first one is still writing from one whose server died: the host, the boot, the process id and its start time (a
/// pid alone is reused). Text as stored in `cuts.owner`: `host boot pid start`.
struct ServerProcess: Equatable, Sendable {
    var host: String
    var boot: String
    var pid: Int32
    /// Clock ticks after boot (`/proc/PID/stat` field 22).
    var startTicks: UInt64

    /// This process.
    static let current: ServerProcess? = {
        let pid = getpid()
        guard let start = startTicks(of: pid) else { return nil }
        return ServerProcess(host: hostName(), boot: bootID(), pid: pid, startTicks: start)
    }()

    var stored: String { "\(host) \(boot) \(pid) \(startTicks)" }

    init(host: String, boot: String, pid: Int32, startTicks: UInt64) {
        self.host = host
        self.boot = boot
        self.pid = pid
        self.startTicks = startTicks
    }

    /// From `stored`; nil for anything else (an older schema's empty owner, a damaged row).
    init?(stored: String) {
        let fields = stored.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, let pid = Int32(fields[2]), pid > 0, let start = UInt64(fields[3]) else { return nil }
        self.init(host: String(fields[0]), boot: String(fields[1]), pid: pid, startTicks: start)
    }

    /// Whether it ran on this host (the same name): then the process table can tell whether it has ended.
    var isOnThisHost: Bool { host == Self.hostName() }

    /// Whether this server process has certainly ended, as far as the process table can tell: on this host and this
    /// boot, no process with that pid and start time; on this host, another boot. A server on another host (a state
    /// folder on a shared home, another container) cannot be checked here: not known to have ended (its heartbeat can
    /// tell: `ServerHeartbeat`).
    var hasEnded: Bool {
        guard isOnThisHost else { return false }
        guard boot == Self.bootID() else { return true }
        return Self.startTicks(of: pid) != startTicks
    }

    static func startTicks(of pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's ")": state is field 3 of the line, starttime field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    private static func bootID() -> String {
        let text = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty || id.contains(" ") ? "-" : id
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "-" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty || name.contains(" ") ? "-" : name
    }
}
