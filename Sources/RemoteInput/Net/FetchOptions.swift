/// How URLs are fetched: `--http-header`, `--insecure`, `--timeout`, `--fetch-jobs`.
public struct FetchOptions: Sendable, Equatable {
    /// `--http-header`: "Name: value" lines, sent only to the input's own origin (dropped, and said so, where a redirect leaves it).
    public var headers: [String] = []
    /// TLS certificates not verified (named in every report of such an input).
    public var insecure = false
    /// A connection that takes longer, or a transfer slower than 1 KiB/s this long, is retried.
    public var timeoutSeconds = 20
    /// Segments fetched at once.
    public var parallelFetches = 3
    /// Tries per request (the first included) for 5xx, 408, 429, resets, stalls and short bodies.
    public var attempts = 4

    public init() {}
}
