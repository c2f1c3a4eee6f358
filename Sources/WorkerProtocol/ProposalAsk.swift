import Foundation

/// What the page's Propose menu asks for: `silence[=DB],black,scenes[=T]` (as `vtrim cut --propose`), the pad (seconds)
/// and whether seams snap onto clean starts. The worker checks the kinds; the server only their size.
public struct ProposalAsk: Sendable, Codable, Equatable {
    public var kinds: String
    public var padSeconds: Double
    public var snap: Bool

    public init(kinds: String, padSeconds: Double, snap: Bool) {
        self.kinds = kinds
        self.padSeconds = padSeconds
        self.snap = snap
    }

    /// Whether seams snap onto clean starts when nobody said: not when silence is removed — a pause is removed down to
    /// its pads, a seam that finds no clean start inside it getting smart edges — and otherwise yes (black and scene
    /// cuts keep their copy-only seams). The one rule for the command line, `cut --propose` and the page.
    public static func snapsByDefault(kinds: String) -> Bool {
        !kinds.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("silence") }
    }
}
