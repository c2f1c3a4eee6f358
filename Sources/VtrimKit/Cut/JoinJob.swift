import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore

/// The ranges `vtrim cut` keeps and joins into one file (`--keep`, `--remove`, `--list … --join`).
public struct JoinRanges: Sendable {
    public var ranges: [CutSegment]
    /// The ranges are what to remove: the join keeps the rest.
    public var removes: Bool

    public init(ranges: [CutSegment], removes: Bool) {
        self.ranges = ranges
        self.removes = removes
    }

    /// `A..B`, any time syntax on either side (`1:02..end-5`).
    public static func parse(_ text: String) -> CutSegment? {
        guard let separator = text.range(of: "..") else { return nil }
        let startText = String(text[..<separator.lowerBound]), endText = String(text[separator.upperBound...])
        guard let start = try? TimeSpec(parsing: startText.isEmpty ? "0" : startText),
              let end = try? TimeSpec(parsing: endText.isEmpty ? "end" : endText) else { return nil }
        return CutSegment(start: start, end: end, lengthSeconds: nil)
    }

    /// Why ranges given in absolute times are not in time order or overlap (nil when they are fine); checked
    /// while parsing, before any file is opened.
    public static func orderProblem(_ ranges: [CutSegment]) -> String? {
        var spans: [(Double, Double)] = []
        for range in ranges {
            guard case let .seconds(start) = range.start, case let .seconds(end)? = range.end else { continue }
            guard end > start else { return "the range \(TimeSpecText.describe(range.start))..\(TimeSpecText.describe(range.end ?? range.start)) is empty" }
            spans.append((start, end))
        }
        return orderProblem(spans: spans)
    }

    public static func orderProblem(spans: [(Double, Double)]) -> String? {
        RangeOrder.problem(spans: spans.map { (start: $0.0, end: $0.1) })
    }

    /// The ranges to keep in a file of `duration` seconds: those given, or what removing them leaves.
    func resolve(request: CutRequest, durationSeconds duration: Double, path: String) throws(MediaError) -> [CutRange] {
        func invalid(_ reason: String) -> MediaError { MediaError(.invalidRange, path: path, operation: "ranges", reason: reason) }
        var resolved: [CutRange] = []
        for range in ranges { resolved.append(try CutRange.resolve(range, request: request, durationSeconds: duration, path: path)) }
        if let problem = Self.orderProblem(spans: resolved.map { ($0.effectiveStart, $0.effectiveEnd) }) { throw invalid(problem) }
        guard removes else { return resolved }
        var kept: [CutRange] = []
        var from = 0.0
        for removed in resolved + [CutRange(requestedStart: duration, requestedEnd: duration, effectiveStart: duration, effectiveEnd: duration)] {
            if removed.effectiveStart - from >= 1e-6 {
                kept.append(CutRange(requestedStart: from, requestedEnd: removed.effectiveStart, effectiveStart: from, effectiveEnd: removed.effectiveStart))
            }
            from = max(from, removed.effectiveEnd)
        }
        guard !kept.isEmpty else { throw invalid("removing these ranges leaves nothing of the \(Human.seconds(duration)) file") }
        kept[0].warnings = resolved.flatMap(\.warnings)
        return kept
    }
}

/// A join decided and ready to write: what the writer executes and what its report needs (a value, as `PlannedCut`).
public struct PlannedJoin: Sendable, Codable {
    public var path: String
    public var output: String
    public var overwrite: Bool
    public var createsFolder: Bool
    public var strict: Bool
    public var join: JoinPlan
    var ranges: [CutRange]
    public var warnings: [MediaWarning]
    public var source: FileVersion

    var report: JoinReport { JoinReport(path: path, output: output, join: join, ranges: ranges) }

    public var dryRunOutcome: Outcome {
        Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.dryRunFields, lines: report.dryRunLines)
    }
}

/// `vtrim cut --keep/--remove/--list --join` for one input: resolve the ranges, plan the join (a value),
/// judge it (`--strict`, `--dry-run`), write it through a temporary file, read it back.
public enum JoinJob {
    public enum Planning: Sendable {
        case planned(PlannedJoin)
        case finished(Outcome)
    }

    static func run(item: InputItem, index: Int, request: CutRequest, shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                    progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        switch plan(item: item, index: index, request: request) {
        case let .finished(outcome): return outcome
        case let .planned(planned): return request.dryRun ? planned.dryRunOutcome : execute(planned, shouldStop: shouldStop, progress: progress)
        }
    }

    public static func plan(path: String, request: CutRequest) -> Planning {
        plan(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, request: request)
    }

    static func plan(item: InputItem, index: Int, request: CutRequest) -> Planning {
        let path = item.path
        var warnings = request.listWarningItems
        do throws(MediaError) {
            guard let join = request.join else { throw MediaError(.invalidRange, path: path, operation: "ranges", reason: "no ranges to join") }
            let target = OutputTarget(path: request.outputPath(for: item, index: index, segment: 0), overwrite: request.overwrite,
                                      createsFolder: request.output.createsFolders)
            if request.skipExisting, !request.overwrite, !request.dryRun, FileManager.default.fileExists(atPath: target.path) {
                return .finished(Outcome(path: path, status: .skipped(reason: "\(target.path) exists (--skip-existing)"),
                                         fields: [("output", .string(target.path))]))
            }
            try target.check(input: path)
            let version = FileVersion.of(path)
            let source = try CutSource(path: path)
            warnings += source.info.warnings.filter { !["truncated", "duration_suspect"].contains($0.code) }
            let ranges = try join.resolve(request: request, durationSeconds: source.info.durationSeconds, path: path)
            warnings += ranges.flatMap(\.warnings)
            let specs = ranges.map { CutSpec(startSeconds: $0.effectiveStart, endSeconds: $0.effectiveEnd, settings: request.settings) }
            let labels = join.removes ? ranges.map { _ in nil } : join.ranges.map(\.label)
            let plan = try source.planJoin(specs, labels: labels, outputName: target.path)
            warnings += plan.warnings.map(\.asWarning)
            if request.strict, let first = warnings.first {
                throw CutJob.strictError(path: path, first)
            }
            guard let version else {
                throw MediaError(.unreadable, path: path, operation: "stat", reason: "cannot read the file's size and time")
            }
            return .planned(PlannedJoin(path: path, output: target.path, overwrite: request.overwrite, createsFolder: target.createsFolder,
                                        strict: request.strict, join: plan, ranges: ranges, warnings: warnings, source: version))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return .finished(outcome)
        }
    }

    public static func execute(_ planned: PlannedJoin, shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                               progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        let path = planned.path
        var warnings = planned.warnings
        do throws(MediaError) {
            let written = try WrittenCut.write(path: path, source: planned.source, output: planned.output, overwrite: planned.overwrite,
                                               createsFolder: planned.createsFolder, strict: planned.strict, write: { temporary throws(MediaError) in
                try Cutter.write(join: planned.join, path: path, temporaryPath: temporary, outputName: planned.output, shouldStop: shouldStop,
                                 progress: progress)
            }, measure: { temporary throws(MediaError) in
                (try CutVerifier.measure(path: temporary, outputName: planned.output, input: path),
                 try CutVerifier.videoFrameTimes(path: temporary, outputName: planned.output, input: path))
            })
            warnings += written.warnings
            let report = planned.report
            return Outcome(path: path, status: .succeeded, warnings: warnings,
                           fields: report.fields(run: written.run, measured: written.measured.0, frames: written.measured.1),
                           lines: report.lines(run: written.run, measured: written.measured.0))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return outcome
        }
    }
}
