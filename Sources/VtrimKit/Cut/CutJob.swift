import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore

/// `vtrim cut` for one input: resolve the range, plan (a value), judge the plan (`--strict` refuses on a
/// plan-time warning before anything is written; `--dry-run` stops here), write through a temporary file
/// by executing the plan, read the output back, and judge what the writer found (run-time warnings).
public enum CutJob {
    /// One outcome per segment.
    public static func run(item: InputItem, index: Int, request: CutRequest,
                           progress: (@Sendable (Double) -> Void)? = nil) -> [Outcome] {
        if let export = request.export {
            do throws(MediaError) { try export.write(for: request, input: item.path) } catch {
                var outcome = Outcome.failure(error)
                outcome.path = item.path
                return [outcome]
            }
        }
        if request.join != nil { return [JoinJob.run(item: item, index: index, request: request, progress: progress)] }
        return request.segments.indices.map { segment in
            run(item: item, index: index, segment: segment, request: request, progress: { fraction in
                progress?((Double(segment) + fraction) / Double(request.segments.count))
            })
        }
    }

    /// One segment of one file; `shouldStop` is polled as packets go by (the CLI's is the interrupt).
    public static func run(path: String, request: CutRequest, segment: Int = 0,
                           shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                           progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        run(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, segment: segment,
            request: request, shouldStop: shouldStop, progress: progress)
    }

    static func run(item: InputItem, index: Int, segment: Int, request: CutRequest,
                    shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                    progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        switch plan(item: item, index: index, segment: segment, request: request) {
        case let .finished(outcome):
            return outcome
        case let .planned(planned):
            return request.dryRun ? planned.dryRunOutcome : execute(planned, shouldStop: shouldStop, progress: progress)
        }
    }

    /// Planning's result: a cut to write, or the input's outcome already (skipped, failed, refused by `--strict`).
    public enum Planning: Sendable {
        case planned(PlannedCut)
        case finished(Outcome)
    }

    /// Resolves the range and plans (a value; nothing is written). A strict request refuses a plan-time
    /// warning here, before anything is decoded or written.
    public static func plan(path: String, request: CutRequest, segment: Int = 0) -> Planning {
        plan(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, segment: segment, request: request)
    }

    static func plan(item: InputItem, index: Int, segment: Int, request: CutRequest) -> Planning {
        let path = item.path
        var warnings: [MediaWarning] = segment == 0 ? request.listWarningItems : []
        let listRow = request.fromList ? PlannedCut.ListRow(index: segment, label: request.segments[segment].label) : nil
        let extra = listRow.map { PlannedCut.ListRow.fields($0) } ?? []
        do throws(MediaError) {
            let target = OutputTarget(path: request.outputPath(for: item, index: index, segment: segment), overwrite: request.overwrite,
                                      createsFolder: request.output.createsFolders)
            if request.skipExisting, !request.overwrite, !request.dryRun, FileManager.default.fileExists(atPath: target.path) {
                return .finished(Outcome(path: path, status: .skipped(reason: "\(target.path) exists (--skip-existing)"),
                                         fields: [("output", .string(target.path))] + extra))
            }
            try target.check(input: path)
            let version = FileVersion.of(path)
            let source = try CutSource(path: path)
            // The plan says whether a truncated input or a wrong duration matters to this range.
            warnings += source.info.warnings.filter { !["truncated", "duration_suspect"].contains($0.code) }
            let range = try CutRange.resolve(request.segments[segment], request: request, durationSeconds: source.info.durationSeconds,
                                             path: path)
            warnings += range.warnings
            let spec = CutSpec(startSeconds: range.effectiveStart, endSeconds: range.effectiveEnd, settings: request.settings)
            var plan = try source.plan(spec, outputName: target.path)
            // A cut list's later rows do not repeat what the first said about the input's streams.
            if segment > 0 { plan.notices.removeAll(where: \.isAboutTheInput) }
            warnings += plan.warnings.map(\.asWarning)
            if request.strict, let first = warnings.first {
                throw strictError(path: path, first)
            }
            guard let version else {
                throw MediaError(.unreadable, path: path, operation: "stat", reason: "cannot read the file's size and time")
            }
            return .planned(PlannedCut(path: path, output: target.path, overwrite: request.overwrite, createsFolder: target.createsFolder,
                                       strict: request.strict, plan: plan, range: range, warnings: warnings, source: version,
                                       listRow: listRow))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return .finished(outcome)
        }
    }

    /// Writes a planned cut: through a temporary file, executing the plan (nothing is decided again), then
    /// reads the output back and judges what the writer found (run-time warnings). Fails with `plan_stale`
    /// when the source is no longer the file that was planned. `shouldStop` is polled as packets go by.
    public static func execute(_ planned: PlannedCut, shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                               progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        let path = planned.path
        var warnings = planned.warnings
        do throws(MediaError) {
            let written = try WrittenCut.write(path: path, source: planned.source, output: planned.output, overwrite: planned.overwrite,
                                               createsFolder: planned.createsFolder, strict: planned.strict, write: { temporary throws(MediaError) in
                try Cutter.write(planned.plan, path: path, temporaryPath: temporary, outputName: planned.output, shouldStop: shouldStop, progress: progress)
            }, measure: { temporary throws(MediaError) in
                try CutVerifier.measure(path: temporary, outputName: planned.output, input: path)
            })
            warnings += written.warnings
            let report = planned.report
            return Outcome(path: path, status: .succeeded, warnings: warnings,
                           fields: report.fields(run: written.run, measured: written.measured) + planned.extraFields,
                           lines: report.lines(run: written.run, measured: written.measured))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return outcome
        }
    }

    static func strictError(path: String, _ warning: MediaWarning) -> MediaError {
        MediaError(.strictWarning, path: path, operation: "strict", reason: "warning treated as an error (--strict): \(warning.message)")
    }
}

/// Writing a planned cut or join: `plan_stale` when the source is no longer the file that was planned, the
/// output's checks, a temporary file the writer fills and the verifier reads back, run-time warnings judged
/// (`--strict` fails after writing and the output is removed), the file renamed into place.
enum WrittenCut {
    static func write<Measured>(path: String, source: FileVersion, output: String, overwrite: Bool, createsFolder: Bool, strict: Bool,
                                write: (String) throws(MediaError) -> CutRun,
                                measure: (String) throws(MediaError) -> Measured) throws(MediaError) -> (run: CutRun, measured: Measured, warnings: [MediaWarning]) {
        guard let now = FileVersion.of(path), now == source else {
            throw MediaError(.planStale, path: path, operation: "plan",
                             reason: "the file changed since the cut was planned (size or modification time); plan it again")
        }
        let target = OutputTarget(path: output, overwrite: overwrite, createsFolder: createsFolder)
        try target.check(input: path)
        var result: (run: CutRun, measured: Measured, warnings: [MediaWarning])?
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            let done = try write(temporary)
            let found = done.notices.filter(\.isWarning).map(\.asWarning)
            let measured = try measure(temporary)
            if strict, let first = found.first { throw CutJob.strictError(path: path, first) }
            result = (done, measured, found)
        }
        guard let result else {
            throw MediaError(.verifyFailed, path: path, operation: "verify", reason: "nothing was written to \(output)")
        }
        return result
    }
}
