/// Threads a re-encoding part may use, so that jobs × (decoder + encoder threads) stays near the cores.
public struct ThreadBudget: Sendable, Equatable, Codable {
    public var decoder: Int
    public var encoder: Int

    /// The share of `cores` for one of `jobs` jobs: the encoder takes it, the decoder half of it (the
    /// encoder is the slower of the two, and a decoder with one thread runs in the caller's thread).
    public static func share(cores: Int, jobs: Int) -> ThreadBudget {
        let each = max(1, cores / max(1, jobs))
        return ThreadBudget(decoder: max(1, each / 2), encoder: each)
    }

    public init(decoder: Int, encoder: Int) {
        self.decoder = decoder
        self.encoder = encoder
    }
}
