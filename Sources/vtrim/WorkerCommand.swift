import ArgumentParser
import VtrimKit

/// `vtrim _worker`: the engine process `vtrim serve` starts (hidden; not for users). See `EngineWorker`.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_worker",
        abstract: "The engine process vtrim serve starts (internal).",
        shouldDisplay: false
    )

    @Flag(help: "Show FFmpeg's own log on stderr.")
    var verbose = false

    @Option(help: "The server's process id: a worker whose parent is not it ends at once.")
    var parent: Int32?

    func run() throws {
        let status = EngineWorker.run(verbose: verbose, parent: parent)
        if status != 0 { throw ExitCode(status) }
    }
}
