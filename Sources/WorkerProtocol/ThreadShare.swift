import Foundation

/// A worker's share of the machine: `cores` shared by `jobs` jobs at once (the engine divides them between each
/// job's encoder and decoder).
public struct ThreadShare: Sendable, Codable, Equatable {
    public var cores: Int
    public var jobs: Int

    public init(cores: Int, jobs: Int) {
        self.cores = cores
        self.jobs = jobs
    }
}
