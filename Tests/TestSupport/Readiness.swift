import Foundation
import Glibc

/// Waiting for a process to be under way, instead of sleeping a fixed time: on a loaded machine a fixed
/// sleep may end before the work starts (and the test checks nothing) or long after.
public enum Readiness {
    /// CPU seconds a process has used (user + system, from /proc); 0 once it is gone.
    public static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state, ppid, …; utime and stime are fields 14 and 15 of the line (12, 13 here).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The size of the first file in `folder` whose name contains `marker` (a temporary output), or nil.
    public static func growingFile(in folder: String, containing marker: String = "vtrim-tmp") -> Int64? {
        let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        guard let name = names.first(where: { $0.contains(marker) }) else { return nil }
        let attributes = try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name))
        return (attributes?[.size] as? NSNumber)?.int64Value
    }

    /// Polls `condition` (every 20 ms) until it holds, the child ends, or `timeout` passes; whether it held.
    @discardableResult
    public static func wait(for child: Child, timeout: Double = 120, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, child.isRunning {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
