/// Why a URL could not be read, in vtrim's words; `url` is already redacted. VtrimKit maps it to the command's
/// error codes (`fetch_failed`, `refused_url`, `truncated_segment`, `not_found`, `not_media`).
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The server answered 404/410.
        case notFound
        /// The server or the network failed after the retries (5xx, resets, timeouts), or answered what a request cannot use.
        case fetchFailed
        /// A URL vtrim will not read: another scheme, a redirect from https to http, too many redirects.
        case refused
        /// A segment or file ended before the length its server announced.
        case truncated
        /// A manifest vtrim cannot read (its line is named), or one using what vtrim does not read (encryption).
        case badManifest
        /// More bytes than any sane answer to the request (a 10 GB segment of a 6 s playlist).
        case tooLarge
    }

    public let kind: Kind
    public let url: String
    public let reason: String

    public init(_ kind: Kind, url: String, reason: String) {
        self.kind = kind
        self.url = url
        self.reason = reason
    }

    public var description: String { "\(url): \(reason)" }
}
