import ArgumentParser
import Foundation
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

    /// `-o` / `--output-dir` (created, with `extra` folders such as --frames-dir, when missing).
    func outputChoice(file: String?, folder: String?, extra: String? = nil) throws -> OutputChoice {
        for path in [folder, extra].compactMap({ $0 }) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                FileHandle.standardError.write(Data("vtrim: error: cannot create the folder \(path): \(error.localizedDescription)\n".utf8))
                throw ExitCode.failure
            }
        }
        if let file { return .file(file) }
        if let folder { return .folder(folder) }
        return .besideInput
    }

    func makeWriter() -> ReportWriter {
        ReportWriter(style: json ? .json : .human)
    }
}

/// Exit 1 when any input failed (the others were still processed).
func finish(_ writer: ReportWriter) throws {
    if writer.failures > 0 { throw ExitCode.failure }
}
