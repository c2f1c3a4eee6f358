import RemoteInput

/// How a command reads URL inputs: `--http-header`, `--insecure`, `--timeout`, `--fetch-jobs`, `--variant`.
public struct RemoteRequest: Sendable, Equatable {
    public var fetch = FetchOptions()
    public var variant = VariantChoice.highest

    public init() {}

    /// From the command line's values; nil when `variant` is not `highest`, `lowest`, `HEIGHTp` or a bandwidth.
    public init?(headers: [String], insecure: Bool, timeoutSeconds: Int, parallelFetches: Int, variant: String) {
        guard let choice = VariantChoice(variant) else { return nil }
        fetch.headers = headers
        fetch.insecure = insecure
        fetch.timeoutSeconds = timeoutSeconds
        fetch.parallelFetches = parallelFetches
        self.variant = choice
    }
}
