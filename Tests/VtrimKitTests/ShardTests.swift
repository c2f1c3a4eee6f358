import LibraryFiles
import PropertyBased
import PropertySupport
import Testing

/// `--shard auto[/N]`: the shard each scheduler's environment names, and a usage error wherever it names none or two.
struct ShardTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let shard: String
        let environment: [String: String]
        /// "K/N", or a fragment of the usage error.
        let expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "fixed K/N", shard: "2/4", environment: [:], expected: "2/4"),
        Case(name: "fixed K/N ignores the environment", shard: "1/2", environment: ["PARALLEL_SEQ": "7"], expected: "1/2"),
        Case(name: "Slurm 1-8, task 1", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "8"], expected: "1/8"),
        Case(name: "Slurm 0-3, task 3", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4"], expected: "4/4"),
        Case(name: "Slurm 10-20:5, task 15", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "15", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "20", "SLURM_ARRAY_TASK_STEP": "5", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "2/3"),
        Case(name: "Slurm without a step, one task", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "1"], expected: "1/1"),
        Case(name: "Slurm with /N agreeing", shard: "auto/3",
             environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "2/3"),
        Case(name: "Slurm with /N disagreeing", shard: "auto/4",
             environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "has 3 tasks"),
        Case(name: "Slurm index list 1,5,7 (step 1)", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "no constant step"),
        Case(name: "Slurm index list 1,5,7 (no step)", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "no constant step"),
        Case(name: "Slurm index between steps", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "5", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "no constant step"),
        Case(name: "Slurm index past the count", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"], expected: "past the array"),
        Case(name: "Slurm without its count", shard: "auto", environment: ["SLURM_ARRAY_TASK_ID": "1"], expected: "SLURM_ARRAY_TASK_COUNT is not"),
        Case(name: "Slurm garbage", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"], expected: "SLURM_ARRAY_TASK_ID=x is not a whole number"),
        Case(name: "Slurm huge step", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "1", "SLURM_ARRAY_TASK_STEP": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "3"], expected: "no constant step"),
        Case(name: "Kubernetes index 0 of 8", shard: "auto/8", environment: ["JOB_COMPLETION_INDEX": "0"], expected: "1/8"),
        Case(name: "Kubernetes index 7 of 8", shard: "auto/8", environment: ["JOB_COMPLETION_INDEX": "7"], expected: "8/8"),
        Case(name: "Kubernetes index 8 of 8", shard: "auto/8", environment: ["JOB_COMPLETION_INDEX": "8"], expected: "the count is too small"),
        Case(name: "Kubernetes without /N", shard: "auto", environment: ["JOB_COMPLETION_INDEX": "3"], expected: "give --shard auto/N"),
        Case(name: "Kubernetes negative", shard: "auto/8", environment: ["JOB_COMPLETION_INDEX": "-1"], expected: "is not a whole number ≥ 0"),
        Case(name: "GNU parallel 1 of 4", shard: "auto/4", environment: ["PARALLEL_SEQ": "1"], expected: "1/4"),
        Case(name: "GNU parallel 4 of 4", shard: "auto/4", environment: ["PARALLEL_SEQ": "4"], expected: "4/4"),
        Case(name: "GNU parallel 0", shard: "auto/4", environment: ["PARALLEL_SEQ": "0"], expected: "≥ 1"),
        Case(name: "GNU parallel past /N", shard: "auto/4", environment: ["PARALLEL_SEQ": "5"], expected: "the count is too small"),
        Case(name: "GNU parallel without /N", shard: "auto", environment: ["PARALLEL_SEQ": "2"], expected: "give --shard auto/N"),
        Case(name: "Kubernetes and parallel agreeing", shard: "auto/4", environment: ["JOB_COMPLETION_INDEX": "1", "PARALLEL_SEQ": "2"], expected: "2/4"),
        Case(name: "Kubernetes and parallel disagreeing", shard: "auto/4", environment: ["JOB_COMPLETION_INDEX": "1", "PARALLEL_SEQ": "3"], expected: "says shard 2/4 but PARALLEL_SEQ says 3/4"),
        Case(name: "Slurm and parallel disagreeing", shard: "auto",
             environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "2", "PARALLEL_SEQ": "2"], expected: "give --shard auto/N"),
        Case(name: "nothing set", shard: "auto", environment: ["HOME": "/root"], expected: "no scheduler names this task's index"),
        Case(name: "nothing set, with /N", shard: "auto/3", environment: [:], expected: "no scheduler names this task's index"),
    ]

    @Test(arguments: cases) func schedulersNameTheShard(_ example: Case) throws {
        let choice = try #require(ShardChoice(example.shard))
        switch choice.resolve(environment: example.environment) {
        case let .success(shard): #expect(shard.description == example.expected)
        case let .failure(problem): #expect(problem.message.contains(example.expected), "\(problem.message)")
        }
    }

    @Test(arguments: ["", "auto/", "auto/0", "auto/-2", "auto/x", "0/4", "5/4", "1/0", "auto4", "AUTO", "1/2/3"])
    func malformedShardsAreRefused(_ text: String) {
        #expect(ShardChoice(text) == nil)
    }

    /// Any values in the schedulers' variables give a shard with 1 ≤ K ≤ N, or a usage error — never a trap.
    @Test func anyEnvironmentGivesAShardOrAProblem() async {
        let names = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT",
                     "JOB_COMPLETION_INDEX", "PARALLEL_SEQ"]
        let value = zip(Gen.bool, Wild.int, Wild.text).map { numeric, number, text in numeric ? String(number) : text }
        let environment = zip(value.array(of: names.count), Gen.int(in: 0...127)).map { values, mask in
            Dictionary(uniqueKeysWithValues: zip(names, values).enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
        }
        let count = zip(Gen.bool, Wild.int).map { given, number in given ? number : nil }
        await propertyCheck(count: 2000, input: environment, count) { environment, count in
            let choice: ShardChoice = .auto(count: count)
            if case let .success(shard) = choice.resolve(environment: environment) {
                #expect(shard.index >= 1 && shard.index <= shard.count, "\(environment) → \(shard)")
            }
        }
    }
}
