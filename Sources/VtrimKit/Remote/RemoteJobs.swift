import Foundation
import LibraryFiles
import MediaEngine
import WorkerProtocol

/// The jobs for URL inputs: the stream opened, the segments the command needs fetched into a spool, the ordinary
/// job run on it under the URL's redacted name, the spool removed; each report says what was fetched (`source`).
enum RemoteJobs {
    /// `vtrim probe URL`: a stream's playlist and first segment; a file's header (an MP4's `moov`) by range requests.
    static func probe(_ text: String, request: RemoteRequest) -> Outcome {
        single(text, request, stream: probe, file: { ProbeJob.run(path: $0.path) })
    }

    private static func probe(_ view: inout RemoteView) -> Outcome {
        do throws(MediaError) {
            try view.fetch(span: nil)
            var info = try Probe.probe(path: view.name)
            // What the spool measures of its streams is its segment's, not the stream's: not reported as the stream's.
            info.video?.durationSeconds = nil
            info.video?.frameCount = nil
            info.sizeBytes = 0
            info.bitRate = nil
            info.startTimeSeconds = view.originSeconds ?? info.startTimeSeconds
            for index in info.audio.indices { info.audio[index].durationSeconds = nil }
            var outcome = ProbeJob.outcome(info)
            // A stream's size in bytes is not known without fetching every segment.
            outcome.fields = outcome.fields.map { $0.0 == "size" ? ("size", .null) : $0 }
            return view.annotated(outcome: &outcome)
        } catch {
            var outcome = Outcome.failure(error)
            return view.annotated(outcome: &outcome)
        }
    }

    /// `vtrim thumbs URL`: a file read by ranges (fast thumbnails read their keyframes); a stream's segments holding the
    /// sheet's times (planned from the playlist's duration after its first segment is read).
    static func thumbs(item: InputItem, index: Int, request: ThumbsRequest) -> Outcome {
        single(item.path, request.remote, stream: { view in
            do throws(MediaError) {
                try view.fetch(span: nil)
                let local = InputItem(path: view.name, relativePath: RemoteView.fileName(view.name))
                let info = try Probe.probe(path: view.name)
                guard let video = info.video else { throw MediaError(.noVideo, path: view.name, operation: "thumbs", reason: "has no video stream") }
                let target = ThumbsJob.outputPath(for: local, index: index, request: request)
                let plan = try ThumbsPlan.make(info: info, video: video, request: request, format: try ThumbsRequest.format(of: target, input: view.name),
                                               path: view.name)
                try view.fetch(times: plan.cells.map(\.timeSeconds))
                var outcome = ThumbsJob.run(item: local, index: index, request: request)
                return view.annotated(outcome: &outcome)
            } catch {
                var outcome = Outcome.failure(error)
                return view.annotated(outcome: &outcome)
            }
        }, file: { ThumbsJob.run(item: $0, index: index, request: request) })
    }

    /// `vtrim propose URL`: proposals read the whole of what they judge — a stream's every segment, a file by ranges.
    static func propose(item: InputItem, request: ProposeRequest, progress: (@Sendable (Double) -> Void)?) -> Outcome {
        single(item.path, request.remote, stream: { view in
            do throws(MediaError) { try view.fetch(span: 0...view.durationSeconds) } catch {
                var outcome = Outcome.failure(error)
                return view.annotated(outcome: &outcome)
            }
            var outcome = ProposeJob.run(item: InputItem(path: view.name, relativePath: RemoteView.fileName(view.name)), request: request, progress: progress)
            return view.annotated(outcome: &outcome)
        }, file: { ProposeJob.run(item: $0, request: request, progress: progress) })
    }

    /// `vtrim cut URL`: a stream's segments every output's ranges overlap (their hull) fetched, or a file read by
    /// ranges; then the ordinary edit.
    static func cut(item: InputItem, index: Int, request: CutRequest, progress: (@Sendable (Double) -> Void)?) -> [Outcome] {
        run(item.path, request.remote, stream: { view in
            if case let .file(output) = request.output.choice, output.lowercased().hasSuffix(".m3u8") {
                return ManifestCut.run(&view, item: item, index: index, request: request)
            }
            return cut(&view, index: index, request: request, progress: progress)
        }, file: { EditJob.run(item: $0, index: index, request: request, progress: progress) })
    }

    /// Takes the input's name for this job, opens what its URL names, runs `stream` on a stream or `file` on a plain
    /// file (its reports annotated), and gives both back. A URL that cannot be opened is its one outcome.
    private static func run(_ text: String, _ request: RemoteRequest, stream: (inout RemoteView) -> [Outcome],
                            file: (InputItem) -> [Outcome]) -> [Outcome] {
        guard let claimed = claim(text) else { return [busy(text)] }
        defer { InputSources.release(claimed) }
        let opened: RemoteView.Opened
        do { opened = try RemoteView.open(text, request: request) } catch { return [.failure(error)] }
        switch opened {
        case var .stream(view):
            defer { view.finish() }
            return stream(&view)
        case let .file(view):
            defer { view.finish() }
            return file(InputItem(path: view.name, relativePath: RemoteView.fileName(view.name))).map { given in
                var outcome = given
                return view.annotated(outcome: &outcome)
            }
        }
    }

    /// `run` for the commands that report one outcome per input.
    private static func single(_ text: String, _ request: RemoteRequest, stream: (inout RemoteView) -> Outcome, file: (InputItem) -> Outcome) -> Outcome {
        run(text, request, stream: { [stream(&$0)] }, file: { [file($0)] }).first
            ?? .failure(MediaError(.unreadable, path: RemoteNames.redacted(text), operation: "open URL", reason: "nothing was read"))
    }

    private static func cut(_ view: inout RemoteView, index: Int, request: CutRequest, progress: (@Sendable (Double) -> Void)?) -> [Outcome] {
        do throws(MediaError) {
            try view.fetch(span: try span(of: request, view: view))
        } catch {
            var outcome = Outcome.failure(error)
            return [view.annotated(outcome: &outcome)]
        }
        let local = InputItem(path: view.name, relativePath: RemoteView.fileName(view.name))
        let annotating = view
        return EditJob.run(item: local, index: index, request: request, progress: progress).map { given in
            var outcome = given
            return annotating.annotated(outcome: &outcome)
        }
    }

    /// What a cut reads of a stream: the hull of every output's ranges; all of it for `--propose`, which judges the whole.
    private static func span(of request: CutRequest, view: RemoteView) throws(MediaError) -> ClosedRange<Double> {
        if request.propose != nil { return 0...view.durationSeconds }
        var low = Double.infinity, high = -Double.infinity
        for output in 0..<request.outputCount {
            let edit = try request.edit(output: output, durationSeconds: view.durationSeconds, path: view.name)
            for range in edit.ranges {
                low = min(low, range.effectiveStart)
                high = max(high, range.effectiveEnd)
            }
        }
        guard low <= high else { throw MediaError(.invalidRange, path: view.name, operation: "ranges", reason: "no range to keep") }
        return low...high
    }
}

extension RemoteJobs {
    /// The input's redacted name, taken for this job; nil when another job of this run reads a URL of that name.
    static func claim(_ text: String) -> String? {
        let name = RemoteNames.redacted(text)
        return InputSources.claim(name) ? name : nil
    }

    static func busy(_ text: String) -> Outcome {
        .failure(MediaError(.unreadable, path: RemoteNames.redacted(text), operation: "open URL",
                            reason: "another input of this run reads a URL of the same name (they differ in their query only): give them one at a time"))
    }
}

/// A URL input as an outcome names it: a stream (`RemoteView`) or a plain file (`RemoteFileView`).
protocol RemoteReport {
    var name: String { get }
    var warnings: [MediaWarning] { get }
    var fields: [(String, JSON)] { get }
}

extension RemoteReport {
    /// The outcome with the input's warnings first and its `source` fields.
    func annotated(outcome: inout Outcome) -> Outcome {
        outcome.path = name
        outcome.warnings = warnings + outcome.warnings
        outcome.fields += fields
        return outcome
    }
}

extension RemoteView: RemoteReport {
    /// The file name outputs are named from: the URL's last path component, or the folder above a generic one
    /// (`…/lecture-12/index.m3u8` → `lecture-12.m3u8`).
    static func fileName(_ name: String) -> String { OutputNamer.inputFileName(name) }
}

extension RemoteFileView: RemoteReport {}
