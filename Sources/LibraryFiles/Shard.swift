import Foundation

/// `--shard K/N`: every N-th input starting at the K-th (1-based), so N machines split a sorted list
/// deterministically and together cover it exactly once.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    public func select<T>(_ items: [T]) -> [T] {
        items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    public var description: String { "\(index)/\(count)" }
}

/// What `--shard` was given: `K/N`, or `auto[/N]` — the shard a scheduler's environment names.
public enum ShardChoice: Sendable, Equatable {
    case fixed(Shard)
    /// The count, where given (`auto/N`): needed where the scheduler does not say it (Kubernetes, GNU parallel).
    case auto(count: Int?)

    public static let usage = "--shard takes K/N with 1 ≤ K ≤ N (e.g. 2/4), or auto[/N] (the index from Slurm's array, a Kubernetes Indexed Job or GNU parallel)"

    public init?(_ text: String) {
        if text == "auto" {
            self = .auto(count: nil)
        } else if text.hasPrefix("auto/") {
            guard let count = Int(text.dropFirst(5)), count >= 1 else { return nil }
            self = .auto(count: count)
        } else if let shard = Shard(text) {
            self = .fixed(shard)
        } else {
            return nil
        }
    }

    /// The shard this process takes, or why none can be named (a usage error). `environment`: the process's.
    public func resolve(environment: [String: String]) -> Result<Shard, ShardProblem> {
        switch self {
        case let .fixed(shard): .success(shard)
        case let .auto(count): SchedulerShard.resolve(count: count, environment: environment)
        }
    }
}

/// Why `--shard auto` cannot name this process's shard; `message` is the usage error's text.
public struct ShardProblem: Error, Equatable, Sendable {
    public let message: String
}

/// The shard a scheduler gives a task, from its environment: Slurm's job arrays ((`SLURM_ARRAY_TASK_ID` −
/// `SLURM_ARRAY_TASK_MIN`) / `SLURM_ARRAY_TASK_STEP` of `SLURM_ARRAY_TASK_COUNT`), a Kubernetes Indexed Job
/// (`JOB_COMPLETION_INDEX`, 0-based) and GNU parallel (`PARALLEL_SEQ`, 1-based); the last two do not say how many
/// tasks there are, so `auto/N` must. Every value is checked: a number in range, a constant step, and where several
/// schedulers or `/N` speak, the same answer.
enum SchedulerShard {
    static func resolve(count given: Int?, environment: [String: String]) -> Result<Shard, ShardProblem> {
        var answers: [(source: String, shard: Shard)] = []
        do throws(ShardProblem) {
            if let slurm = try slurm(environment, count: given) { answers.append(("Slurm's array (SLURM_ARRAY_TASK_*)", slurm)) }
            if let text = environment["JOB_COMPLETION_INDEX"] {
                let zeroBased = try number(text, "JOB_COMPLETION_INDEX", atLeast: 0)
                let (oneBased, overflow) = zeroBased.addingReportingOverflow(1)
                answers.append(("JOB_COMPLETION_INDEX", try counted(overflow ? Int.max : oneBased, given, "JOB_COMPLETION_INDEX=\(text) (0-based)")))
            }
            if let text = environment["PARALLEL_SEQ"] {
                let oneBased = try number(text, "PARALLEL_SEQ", atLeast: 1)
                answers.append(("PARALLEL_SEQ", try counted(oneBased, given, "PARALLEL_SEQ=\(text)")))
            }
        } catch {
            return .failure(error)
        }
        guard let first = answers.first else {
            return .failure(ShardProblem(message: "--shard auto: no scheduler names this task's index (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX and PARALLEL_SEQ are unset); give --shard K/N"))
        }
        if let other = answers.first(where: { $0.shard != first.shard }) {
            return .failure(ShardProblem(message: "--shard auto: \(first.source) says shard \(first.shard) but \(other.source) says \(other.shard); give --shard K/N"))
        }
        return .success(first.shard)
    }

    /// Slurm's shard, or nil outside an array task.
    private static func slurm(_ environment: [String: String], count given: Int?) throws(ShardProblem) -> Shard? {
        guard let idText = environment["SLURM_ARRAY_TASK_ID"] else { return nil }
        let id = try number(idText, "SLURM_ARRAY_TASK_ID", atLeast: 0)
        guard let minText = environment["SLURM_ARRAY_TASK_MIN"], let countText = environment["SLURM_ARRAY_TASK_COUNT"] else {
            throw ShardProblem(message: "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_COUNT is not; give --shard K/N")
        }
        let minimum = try number(minText, "SLURM_ARRAY_TASK_MIN", atLeast: 0)
        let count = try number(countText, "SLURM_ARRAY_TASK_COUNT", atLeast: 1)
        let step = try environment["SLURM_ARRAY_TASK_STEP"].map { text throws(ShardProblem) in try number(text, "SLURM_ARRAY_TASK_STEP", atLeast: 1) } ?? 1
        // An index list (--array=1,5,7) has no constant step: Slurm's MIN + (COUNT − 1) × STEP is then not its MAX, or an
        // index falls between the steps.
        let noStep = ShardProblem(message: "--shard auto: this Slurm array's indices (min \(minimum), step \(step), count \(count)\(environment["SLURM_ARRAY_TASK_MAX"].map { ", max \($0)" } ?? "")) have no constant step, as an index list such as --array=1,5,7; use a range (--array=1-N) or give --shard K/N")
        if let maxText = environment["SLURM_ARRAY_TASK_MAX"] {
            let maximum = try number(maxText, "SLURM_ARRAY_TASK_MAX", atLeast: 0)
            let (span, spanOverflow) = (count - 1).multipliedReportingOverflow(by: step)
            let (last, lastOverflow) = minimum.addingReportingOverflow(span)
            if spanOverflow || lastOverflow || last != maximum { throw noStep }
        }
        guard id >= minimum, (id - minimum) % step == 0 else { throw noStep }
        let offset = (id - minimum) / step
        guard offset < count else {
            throw ShardProblem(message: "--shard auto: SLURM_ARRAY_TASK_ID=\(id) lies past the array's \(count) tasks from \(minimum) by \(step); give --shard K/N")
        }
        if let given, given != count {
            throw ShardProblem(message: "--shard auto/\(given): Slurm's array has \(count) tasks (SLURM_ARRAY_TASK_COUNT); give --shard auto")
        }
        return Shard(index: offset + 1, count: count)
    }

    /// The 1-based `index` of `count` tasks, where only `/N` says how many.
    private static func counted(_ index: Int, _ given: Int?, _ what: String) throws(ShardProblem) -> Shard {
        guard let given else {
            throw ShardProblem(message: "--shard auto: \(what) does not say how many tasks there are; give --shard auto/N")
        }
        guard let shard = Shard(index: index, count: given) else {
            throw ShardProblem(message: "--shard auto/\(given): \(what) is task \(index) of 1…\(given); the count is too small")
        }
        return shard
    }

    private static func number(_ text: String, _ name: String, atLeast minimum: Int) throws(ShardProblem) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= minimum else {
            throw ShardProblem(message: "--shard auto: \(name)=\(text) is not a whole number \(minimum == 0 ? "≥ 0" : "≥ \(minimum)")")
        }
        return value
    }
}
