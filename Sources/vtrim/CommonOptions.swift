import ArgumentParser
import DiskNames
import Foundation
import LibraryFiles
import VtrimKit
import WorkerProtocol

/// Options every command takes.
struct CommonOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object per input on stdout (JSON Lines).")
    var json = false

    @Flag(name: [.short, .long], help: "Process the media files in folders given as inputs.")
    var recursive = false

    @Flag(name: .long, help: "Fail an input on any warning (exit 1, no output kept).")
    var strict = false

    @Flag(name: .long, help: "Show FFmpeg's own log on stderr.")
    var verbose = false

    @Flag(name: [.short, .long], help: "No progress line, no summary, no skip notes on stderr.")
    var quiet = false
}

/// Options for running over many inputs.
struct BatchOptions: ParsableArguments {
    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")], help: "Inputs processed at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: ArgumentHelp("In folders, take only files matching this glob (repeatable; replaces the media-extension filter).", valueName: "glob"))
    var include: [String] = []

    @Option(help: ArgumentHelp("In folders, leave out files matching this glob (repeatable).", valueName: "glob"))
    var exclude: [String] = []

    @Flag(name: .customLong("include-outputs"), help: "In folders, take vtrim's own outputs too (*.cut.*, *.thumbs.*; left out by default, even under --include).")
    var includeOutputs = false

    @Flag(name: .customLong("fail-fast"), help: "Start no new input after the first failure.")
    var failFast = false

    @Option(help: ArgumentHelp("Process only the K-th of N equal slices of the sorted input list (1-based); auto[/N]: the slice a Slurm array task, a Kubernetes Indexed Job or GNU parallel names (N where it does not say the count).", valueName: "K/N"))
    var shard: String?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let problem = BatchRunner.coresGranted(ProcessInfo.processInfo.environment["VTRIM_CORES"]).problem { throw ValidationError(problem) }
        _ = try shardTaken()
    }

    /// The slice of the inputs this run takes: `--shard K/N`, or the scheduler's with `auto`.
    func shardTaken() throws -> Shard? {
        guard let shard else { return nil }
        guard let choice = ShardChoice(shard) else { throw ValidationError(ShardChoice.usage) }
        switch choice.resolve(environment: ProcessInfo.processInfo.environment) {
        case let .success(taken): return taken
        case let .failure(problem): throw ValidationError(problem.message)
        }
    }

    var jobCount: Int { jobs ?? BatchRunner.cores }
}

/// Where outputs go, for the commands that write.
struct OutputOptions: ParsableArguments {
    @Option(name: [.short, .customLong("output")], help: "Output file (one input only).")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "Folder for the outputs (created if missing); folders given as inputs are mirrored below it.")
    var outputDir: String?

    @Option(help: ArgumentHelp("Output file name: {stem} {ext} {name} {index} {start} {end} {label}.", valueName: "template"))
    var name: String?

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Flag(name: .customLong("skip-existing"), help: "Skip inputs whose output exists (resumable runs).")
    var skipExisting = false

    func validate(inputs: [String], recursive: Bool) throws {
        if output != nil, outputDir != nil { throw ValidationError("-o and --output-dir exclude each other") }
        if output != nil, name != nil { throw ValidationError("-o names the output; --name is for several") }
        if output != nil, inputs.count != 1 || recursive {
            throw ValidationError("-o names one output, so it takes exactly one input file; use --output-dir for several")
        }
        if overwrite, skipExisting { throw ValidationError("--overwrite and --skip-existing exclude each other") }
        // A scheduler's attempt marks the temporaries, so a retry removes a dead attempt's (TemporaryName).
        if let attempt = ProcessInfo.processInfo.environment["VTRIM_ATTEMPT"], TemporaryName.Attempt(attempt) == nil {
            throw ValidationError("VTRIM_ATTEMPT=\(attempt) is not TASK:ATTEMPT (letters, digits, '-', '_' and '.', up to 32 each)")
        }
        if let name {
            let unknown = OutputNamer.unknownPlaceholders(in: name)
            if !unknown.isEmpty {
                throw ValidationError("unknown placeholder \(unknown.map { "{\($0)}" }.joined(separator: ", ")) in --name; use \(OutputNamer.placeholders.map { "{\($0)}" }.joined(separator: " "))")
            }
            if name.contains("/") { throw ValidationError("--name is a file name; use --output-dir for folders") }
        }
    }

    /// The namer, creating `--output-dir` (and `extra` folders such as --frames-dir) when missing — unless
    /// `creating` is false (a dry run writes nothing).
    func namer(extra: String? = nil, creating: Bool = true) throws -> OutputNamer {
        for path in [outputDir, extra].compactMap({ $0 }) where creating {
            guard DiskFile.makeFolders(path) else {
                FileHandle.standardError.write(Data("vtrim: error: cannot create the folder \(DiskName.display(path)): \(String(cString: strerror(errno)))\n".utf8))
                throw ExitCode.failure
            }
        }
        let choice: OutputChoice = output.map(OutputChoice.file) ?? outputDir.map(OutputChoice.folder) ?? .besideInput
        return OutputNamer(choice: choice, template: name)
    }
}

/// The shared run: expand the inputs (folders, globs, shard), check output collisions, run the jobs in
/// parallel, report in input order, summarise, and exit 0 / 1 / 130 / 143.
struct BatchRun {
    let common: CommonOptions
    let batch: BatchOptions

    func validateInputs(_ inputs: [String]) throws {
        do {
            try InputWalker(recursive: common.recursive).checkFolders(inputs)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The inputs' files (folders walked, the shard taken), and the folders that held none.
    struct Inputs {
        var items: [InputItem]
        var emptyFolders: [String]
        var count: Int { items.count }
    }

    func items(_ inputs: [String]) throws -> Inputs {
        let walker = InputWalker(recursive: common.recursive, include: batch.include, exclude: batch.exclude,
                                 includeOutputs: batch.includeOutputs)
        var found: (items: [InputItem], emptyFolders: [String])
        do {
            found = try walker.walk(inputs)
        } catch {
            throw ValidationError(error.description)
        }
        if let shard = try batch.shardTaken() { found.items = shard.select(found.items) }
        return Inputs(items: found.items, emptyFolders: found.emptyFolders)
    }

    /// Jobs actually running at once for `count` inputs, and threads each job may use.
    func parallelism(count: Int) -> (jobs: Int, threadsEach: Int) {
        let jobs = max(1, min(batch.jobCount, count))
        return (jobs, BatchRunner.threadsPerJob(jobs: jobs))
    }

    func run(_ inputs: Inputs, outputs: ((Int, InputItem) -> [String])? = nil,
             job: @escaping @Sendable (_ index: Int, _ item: InputItem, _ writer: ReportWriter) -> [Outcome]) throws {
        Session.start(verbose: common.verbose)
        let items = inputs.items
        if let outputs {
            let claimed = items.enumerated().flatMap { index, item in outputs(index, item).map { (input: item.path, output: $0) } }
            if let collision = OutputCollision.find(claimed) {
                FileHandle.standardError.write(Data("vtrim: error: \(collision.description)\n".utf8))
                throw ExitCode.failure
            }
        }
        let writer = ReportWriter(style: common.json ? .json : .human, quiet: common.quiet)
        // A folder with nothing to process is said so (a warning; --strict fails it), never a silent exit 0.
        for folder in inputs.emptyFolders {
            writer.write(Outcome.emptyFolder(folder, strict: common.strict))
        }
        let (jobs, _) = parallelism(count: items.count)
        let interrupted = BatchRunner(jobs: jobs, failFast: batch.failFast).run(
            paths: items.map(\.path), writer: writer,
            job: { index, _ in job(index, items[index], writer) },
            report: writer.write)
        if items.count > 1 || interrupted { writer.summary(interrupted: interrupted) }
        if interrupted {
            TemporaryFiles.shared.removeAll()
            throw ExitCode(Interrupt.exitStatus)
        }
        if writer.failures > 0 { throw ExitCode.failure }
    }
}
