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
}
