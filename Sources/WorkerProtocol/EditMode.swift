import Foundation

/// How a cut is made (`vtrim cut --mode`), as a request names it.
public enum EditMode: String, Sendable, Codable, CaseIterable {
    case copy, keyframe, exact, smart
}

/// How an edit's report reads: a cut's keys (`--start/--end`, a cut list's row) or a join's (`--keep`, `--remove`,
/// `--list … --join`, the page's ranges) — the join's even for one range (DESIGN.md).
public enum EditShape: String, Sendable, Codable {
    case cut, join
}
