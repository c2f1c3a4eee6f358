import Foundation

/// Probes the library's clips in the background, in path order, one at a time in the server's background worker, so
/// the list can sort and filter by duration and codec and show which clips cannot be read. Each result (or refusal)
/// goes to the library (its summary to the listing, the whole probe to the state database): a clip is probed once
/// per file version.
enum BackgroundProber {
    static func run(_ server: Server) async {
        var position = 0
        var generation = -1
        // Timed out here (or stopped by the server stopping): not written down as unreadable — a slow disk or a
        // shutdown says nothing about the file — but not tried again in this run either.
        var deferred = Set<String>()
        while !Task.isCancelled {
            let (found, next, seen) = server.library.unprobed(from: generation == server.library.current.generation ? position : 0, limit: 16)
            generation = seen
            position = next
            let batch = found.filter { !deferred.contains("\($0.path)\u{0}\($0.version)") }
            if found.isEmpty {
                position = 0
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            for clip in batch where !Task.isCancelled {
                if server.quarantine.reason(clip) != nil {
                    server.library.storeSummary(clip, ClipSummary(failure: "engine_crashed"))
                    continue
                }
                switch await server.engine(clip, .probe(path: clip.path), pool: server.background) {
                case let .result(report, reply):
                    // Whole, as `GET /api/clips/{id}` answers it: kept, so opening the clip later (after a restart too)
                    // asks the engine nothing.
                    server.library.storeProbe(clip, ClipsController.probeObject(clip, report: report, mime: reply.mime))
                case let .refused(report):
                    let code: String
                    if case let .string(text)? = report.member("error")?.member("code") { code = text } else { code = "unreadable" }
                    server.library.storeSummary(clip, ClipSummary(failure: code))
                case .failed:
                    // Crashed (now quarantined): marked, not tried again until it changes. Otherwise deferred.
                    if server.quarantine.reason(clip) != nil { server.library.storeSummary(clip, ClipSummary(failure: "engine_crashed")) }
                    else { deferred.insert("\(clip.path)\u{0}\(clip.version)") }
                case .bytes:
                    break
                }
            }
        }
    }
}
