import Foundation
import LibraryFiles
import MediaEngine
import WorkerProtocol

/// The jobs for URL inputs: the stream opened, the segments the command needs fetched into a spool, the ordinary
/// job run on it under the URL's redacted name, the spool removed; each report says what was fetched (`source`).
enum RemoteJobs {
    /// `vtrim probe URL`: the first segment (and the playlist) only.
    static func probe(_ text: String, request: RemoteRequest) -> Outcome {
        var view: RemoteView
        do { view = try RemoteView.open(text, request: request) } catch { return .failure(error) }
        defer { view.finish() }
        do throws(MediaError) {
            try view.fetch(span: nil)
            var outcome = ProbeJob.outcome(try Probe.probe(path: view.name))
            return view.annotated(outcome: &outcome)
        } catch {
            var outcome = Outcome.failure(error, warnings: view.warnings)
            return view.annotated(outcome: &outcome)
        }
    }

    /// `vtrim cut URL`: the segments every output's ranges overlap (their hull), then the ordinary edit.
    static func cut(item: InputItem, index: Int, request: CutRequest, progress: (@Sendable (Double) -> Void)?) -> [Outcome] {
        var view: RemoteView
        do { view = try RemoteView.open(item.path, request: request.remote) } catch { return [.failure(error)] }
        defer { view.finish() }
        if request.propose != nil {
            return [Outcome.failure(MediaError(.invalidRange, path: view.name, operation: "propose",
                                               reason: "--propose reads the whole stream: download it first (vtrim cut URL --start 0 -o FILE)"))]
        }
        do throws(MediaError) {
            var low = Double.infinity, high = -Double.infinity
            for output in 0..<request.outputCount {
                let edit = try request.edit(output: output, durationSeconds: view.durationSeconds, path: view.name)
                for range in edit.ranges {
                    low = min(low, range.effectiveStart)
                    high = max(high, range.effectiveEnd)
                }
            }
            guard low <= high else { throw MediaError(.invalidRange, path: view.name, operation: "ranges", reason: "no range to keep") }
            try view.fetch(span: low...high)
        } catch {
            var outcome = Outcome.failure(error, warnings: view.warnings)
            return [view.annotated(outcome: &outcome)]
        }
        let local = InputItem(path: view.name, relativePath: RemoteView.fileName(view.name))
        return EditJob.run(item: local, index: index, request: request, progress: progress).map { given in
            var outcome = given
            return view.annotated(outcome: &outcome)
        }
    }
}

extension RemoteView {
    /// The outcome with the stream's warnings first and the `source` fields.
    func annotated(outcome: inout Outcome) -> Outcome {
        outcome.path = name
        outcome.warnings = warnings + outcome.warnings
        outcome.fields += fields
        return outcome
    }

    /// The file name outputs are named from: the URL's last path component, or the folder above a generic one
    /// (`…/lecture-12/index.m3u8` → `lecture-12.m3u8`).
    static func fileName(_ name: String) -> String { OutputNamer.inputFileName(name) }
}
