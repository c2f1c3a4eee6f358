import ArgumentParser
import VtrimKit

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Report duration, streams, codecs and orientation of each input."
    )

    @OptionGroup var common: CommonOptions

    @Argument(help: "Media files, or folders with -r.")
    var inputs: [String]

    func validate() throws {
        try common.validateInputs(inputs)
    }

    func run() throws {
        Session.start(verbose: common.verbose)
        let writer = common.makeWriter()
        for path in try common.expand(inputs) {
            var outcome = ProbeJob.run(path: path)
            if common.strict { outcome = outcome.applyingStrict() }
            writer.write(outcome)
        }
        try finish(writer)
    }
}
