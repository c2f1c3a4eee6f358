import Locking

/// Where a run's time goes, for the benchmarks (`VTRIM_STAGE_TIMES=1 vtrim cut …`): the stages of a cut add
/// their wall-clock seconds here (and count what they open), and the command line prints the totals on
/// stderr at the end. Nothing is kept unless `start` was called.
public enum StageTimes {
    private struct Totals {
        var seconds: [(name: String, seconds: Double)] = []
        var counts: [(name: String, count: Int)] = []
    }

    private static let recorded = Locked<Totals?>(nil)

    public static func start() {
        recorded.withLock { $0 = Totals() }
    }

    /// One line: the stages in the order first met (seconds summed over repeats), then the counts.
    public static func summary() -> String {
        recorded.withLock { totals in
            guard let totals else { return "" }
            let stages = totals.seconds.map { "\($0.name) \(Words.seconds($0.seconds))" }
            let counts = totals.counts.map { "\($0.name) \($0.count)" }
            return (stages + counts).joined(separator: ", ")
        }
    }

    static func add(_ name: String, seconds: Double) {
        recorded.withLock { totals in
            guard totals != nil else { return }
            if let index = totals?.seconds.firstIndex(where: { $0.name == name }) {
                totals?.seconds[index].seconds += seconds
            } else {
                totals?.seconds.append((name, seconds))
            }
        }
    }

    static func count(_ name: String) {
        recorded.withLock { totals in
            guard totals != nil else { return }
            if let index = totals?.counts.firstIndex(where: { $0.name == name }) {
                totals?.counts[index].count += 1
            } else {
                totals?.counts.append((name, 1))
            }
        }
    }

    /// Runs `body`, adding its wall-clock time to `name`.
    public static func measure<T, E: Error>(_ name: String, _ body: () throws(E) -> T) throws(E) -> T {
        let started = ContinuousClock.now
        defer { add(name, seconds: started.duration(to: .now).seconds) }
        return try body()
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
