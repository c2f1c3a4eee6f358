import ArgumentParser
import DiskNames
import VtrimKit

@main
struct Vtrim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vtrim",
        abstract: "Probe, filmstrip and trim videos.",
        discussion: """
        Times are seconds (12.5), m:ss(.fff), h:mm:ss(.fff), or end / end-5 (5 s before the end).

        Exit status: 0 all inputs succeeded, 1 at least one failed, 64 usage error.
        """,
        version: VersionText.full,
        subcommands: subcommands
    )

    /// `propose --silence` without a value is rewritten first (`ProposeArguments`).
    static func main() {
        main(ProposeArguments.normalized(commandLine))
    }

    /// Kept for the process's life: ArgumentParser exits from inside `main`, and what only its frames held would read
    /// as lost to valgrind.
    static let commandLine = arguments()

    /// The command line's arguments after the program name, each read as bytes (`DiskName`): a file name that is not
    /// UTF-8 names its file (Swift's `CommandLine.arguments` replaces such bytes with U+FFFD).
    static func arguments() -> [String] {
        (1..<Int(max(1, CommandLine.argc))).map { index in CommandLine.unsafeArgv[index].map { DiskName.string(cString: $0) } ?? "" }
    }

    #if Serve
    static let subcommands: [any ParsableCommand.Type] = [ProbeCommand.self, ThumbsCommand.self, CutCommand.self, ProposeCommand.self, TimelineCommand.self,
                                                          ServeCommand.self, WorkerCommand.self]
    #else
    static let subcommands: [any ParsableCommand.Type] = [ProbeCommand.self, ThumbsCommand.self, CutCommand.self, ProposeCommand.self, TimelineCommand.self]
    #endif
}
