import ArgumentParser
import VtrimKit

/// How URL inputs (HLS playlists) are read.
struct RemoteOptions: ParsableArguments {
    // Not `--header`: thumbs has that flag already (the sheet's header band).
    @Option(name: .customLong("http-header"), help: ArgumentHelp("A request header for URL inputs, 'Name: value' (repeatable): a token; sent only to the input's own host.", valueName: "header"))
    var headers: [String] = []

    @Flag(help: "Read https URLs without checking the server's certificate (said in every report).")
    var insecure = false

    @Option(help: ArgumentHelp("Seconds a URL's connection may take to open, or its transfer stall, before it is retried.", valueName: "seconds"))
    var timeout: Int = 20

    @Option(help: ArgumentHelp("Segments of a URL input fetched at once (of each track, where sound is listed apart).", valueName: "count"))
    var fetchJobs: Int = 3

    @Option(help: ArgumentHelp("Which variant of a master playlist: highest, lowest, a height (720p) or a bandwidth in bits per second.", valueName: "variant"))
    var variant: String = "highest"

    func validate() throws {
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex, !header.contains("\n"), !header.contains("\r") else {
                // The value is not echoed: it may be a token.
                throw ValidationError("--http-header: expected 'Name: value' (a name, a colon, a value on one line)")
            }
        }
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout \(timeout): expected 1 to 600 seconds") }
        guard (1...16).contains(fetchJobs) else { throw ValidationError("--fetch-jobs \(fetchJobs): expected 1 to 16") }
        guard RemoteRequest(headers: [], insecure: false, timeoutSeconds: timeout, parallelFetches: fetchJobs, variant: variant) != nil else {
            throw ValidationError("--variant \(variant): expected highest, lowest, a height such as 720p, or a bandwidth in bits per second")
        }
    }

    var request: RemoteRequest {
        RemoteRequest(headers: headers, insecure: insecure, timeoutSeconds: timeout, parallelFetches: fetchJobs, variant: variant) ?? RemoteRequest()
    }
}
