import ArgumentParser
import VtrimKit

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Report duration, streams, codecs and orientation of each input."
    )

    @OptionGroup var common: CommonOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup(title: "URL inputs") var remote: RemoteOptions

    @Argument(help: "Media files, folders with -r, or URLs (files, HLS playlists, DASH manifests).")
    var inputs: [String]

    func validate() throws {
        try BatchRun(common: common, batch: batch).validateInputs(inputs)
    }

    func run() throws {
        let runner = BatchRun(common: common, batch: batch)
        let strict = common.strict, remote = remote.request
        try runner.run(try runner.items(inputs)) { _, item, _ in
            let outcome = ProbeJob.run(path: item.path, remote: remote)
            return [strict ? outcome.applyingStrict() : outcome]
        }
    }
}
