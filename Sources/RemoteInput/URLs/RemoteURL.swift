import Foundation

/// An input named by a URL: only `http` and `https`, with a host. What is printed of it is `redacted`: no user
/// name or password, and no query (where signed URLs keep their tokens) — so no secret reaches a report or a log.
public struct RemoteURL: Sendable, Hashable, CustomStringConvertible {
    public let url: URL

    /// Nil when `text` is not an http(s) URL with a host.
    public init?(_ text: String) {
        guard text.count <= Self.maximumLength, let url = URL(string: text), Self.allowedSchemes.contains(url.scheme?.lowercased() ?? ""),
              let host = url.host, !host.isEmpty else { return nil }
        self.url = url
    }

    init?(url: URL) { self.init(url.absoluteString) }

    /// Whether a command-line input names a URL (any scheme: one vtrim does not read is refused by name, not taken for a file).
    public static func looksLikeURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return false }
        let scheme = text[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } && scheme.first?.isLetter == true
    }

    static let allowedSchemes: Set<String> = ["http", "https"]
    /// Longer URLs are refused where they enter (a manifest line, a Location header).
    static let maximumLength = 4000

    public var isSecure: Bool { url.scheme?.lowercased() == "https" }
    public var host: String { url.host?.lowercased() ?? "" }
    /// The origin (scheme, host, port): headers given for one origin are not sent to another.
    public var origin: String { "\(url.scheme?.lowercased() ?? "")://\(host):\(url.port ?? (isSecure ? 443 : 80))" }
    public var hasQuery: Bool { !(url.query ?? "").isEmpty }

    /// scheme://host[:port]/path, `?…` where there was a query.
    public var redacted: String {
        var text = "\(url.scheme?.lowercased() ?? "")://\(host)"
        if let port = url.port { text += ":\(port)" }
        text += url.path.isEmpty ? "/" : url.path
        if hasQuery { text += "?…" }
        return text
    }

    public var description: String { redacted }

    /// The last path component, without its query: what output names are made from.
    public var fileName: String {
        let name = url.lastPathComponent
        return name.isEmpty || name == "/" ? host : name
    }

    /// A reference from a manifest (relative or absolute) resolved against this URL; nil for anything but
    /// http(s) — a playlist cannot send vtrim to `file:///etc/passwd`.
    public func resolving(_ reference: String) -> RemoteURL? {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: url)?.absoluteURL else { return nil }
        return RemoteURL(url: resolved)
    }
}
