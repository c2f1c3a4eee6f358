import ArgumentParser
import VtrimKit

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

    func validateInputs(_ inputs: [String]) throws {
        do {
            try InputWalker(recursive: recursive).checkFolders(inputs)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func expand(_ inputs: [String]) throws -> [String] {
        do {
            return try InputWalker(recursive: recursive).expand(inputs)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func makeWriter() -> ReportWriter {
        ReportWriter(style: json ? .json : .human)
    }
}

/// Exit 1 when any input failed (the others were still processed).
func finish(_ writer: ReportWriter) throws {
    if writer.failures > 0 { throw ExitCode.failure }
}
