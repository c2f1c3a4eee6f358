import DiskNames
import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore
import WorkerProtocol

/// `vtrim cut` for one input — one range, a join, or a cut list's rows each to an output of its own (the same
/// pipeline, one plan per output): resolve the ranges, plan (a value), judge the plan (`--strict` refuses on a
/// plan-time warning before anything is written; `--dry-run` stops here), write through a temporary file by
/// executing the plan, read the output back, and judge what the writer found (run-time warnings).
public enum EditJob {
    /// One outcome per output.
    public static func run(item: InputItem, index: Int, request given: CutRequest,
                           progress: (@Sendable (Double) -> Void)? = nil) -> [Outcome] {
        // A URL is fetched into a spool first, then cut here under its redacted name.
        if RemoteNames.isURL(item.path), InputSources.window(for: item.path) == nil, InputSources.byteSource(for: item.path) == nil {
            return RemoteJobs.cut(item: item, index: index, request: given, progress: progress)
        }
        var request = given
        // A scene pass keeps the pictures the smart heads at its cuts will encode, so they are not decoded twice. Nothing is
        // encoded in a dry run.
        let edgeFrames = request.propose?.query.scenes != nil && !request.dryRun ? EdgeFrames() : nil
        if let propose = request.propose {
            // `--propose`: the input's own ranges, found before anything is planned (a dry run prints them).
            do throws(MediaError) {
                let made = try ProposeJob.propose(path: item.path, request: propose, keeping: edgeFrames) { progress?(0.5 * $0) }
                let ranges = JoinRanges(proposal: made, request: propose)
                if request.proposalJoins {
                    request.join = ranges
                } else {
                    guard !ranges.ranges.isEmpty else {
                        throw MediaError(.invalidRange, path: item.path, operation: "ranges", reason: "the proposal keeps no range, so there is no clip to write")
                    }
                    var clips = ranges
                    clips.notes = [MediaWarning(code: "proposed", message: "\(ranges.ranges.count) range\(ranges.ranges.count == 1 ? "" : "s") proposed from \(propose.kindsText), one clip each")]
                        + made.notes.map { MediaWarning(code: "proposed", message: $0) }
                    request.split(by: clips, sceneScores: made.sceneScores)
                }
            } catch {
                return [failure(error, path: item.path)]
            }
        }
        let planning = request
        let analysed = request.propose == nil ? 0.0 : 0.5
        let report: @Sendable (Double) -> Void = { fraction in progress?(analysed + (1 - analysed) * fraction) }
        var export: PreparedListExport?
        do throws(MediaError) { export = try request.export?.prepare(for: request, input: item.path) } catch {
            return [failure(error, path: item.path)]
        }
        let outputs = request.outputCount
        // Several outputs of one input (a cut list's rows, a split proposal's ranges) plan from one opened and probed
        // source; where it cannot be opened, each output's plan says why.
        let shared = outputs > 1 ? try? CutSource(path: item.path) : nil
        var outcomes = (0..<outputs).map { number in
            run(item: item, index: index, output: number, request: planning, source: shared, edgeFrames: edgeFrames, progress: { fraction in
                report((Double(number) + fraction) / Double(outputs))
            })
        }
        // `--export-list`: what the outputs hold, so written once none of them failed.
        if let export, !request.dryRun, !outcomes.contains(where: \.failed) {
            do throws(MediaError) { try export.write(input: item.path) } catch { outcomes.append(failure(error, path: item.path)) }
        }
        return outcomes
    }

    private static func failure(_ error: MediaError, path: String) -> Outcome {
        var outcome = Outcome.failure(error)
        outcome.path = path
        return outcome
    }

    static func run(item: InputItem, index: Int, output: Int, request: CutRequest, source: CutSource? = nil, edgeFrames: EdgeFrames? = nil,
                    shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                    progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        switch plan(item: item, index: index, output: output, request: request, source: source) {
        case let .finished(outcome):
            return outcome
        case let .planned(planned):
            return request.dryRun ? planned.dryRunOutcome : execute(planned, edgeFrames: edgeFrames, shouldStop: shouldStop, progress: progress)
        }
    }

    /// Planning's result: an edit to write, or the input's outcome already (skipped, failed, refused by `--strict`).
    public enum Planning: Sendable {
        case planned(PlannedEdit)
        case finished(Outcome)
    }

    /// Resolves the ranges of output `output` (a join's one output, or a cut list's row) and plans (a value; nothing
    /// is written). A strict request refuses a plan-time warning here, before anything is decoded or written.
    public static func plan(path: String, request: CutRequest, output: Int = 0) -> Planning {
        plan(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, output: output, request: request)
    }

    static func plan(item: InputItem, index: Int, output number: Int, request: CutRequest, source shared: CutSource? = nil) -> Planning {
        let path = item.path
        var warnings: [MediaWarning] = number == 0 ? request.listWarningItems : []
        let listRow = request.fromList && request.join == nil
            ? PlannedEdit.ListRow(index: number, label: request.segments[safe: number]?.label,
                                  sceneScore: request.splitSceneScores[safe: number] ?? nil) : nil
        do throws(MediaError) {
            let target = OutputTarget(path: request.outputPath(for: item, index: index, segment: number), overwrite: request.overwrite,
                                      createsFolder: request.output.createsFolders)
            if request.skipExisting, !request.overwrite, !request.dryRun, DiskFile.exists(target.path) {
                return .finished(Outcome(path: path, status: .skipped(reason: "\(target.path) exists (--skip-existing)"),
                                         fields: [("output", .string(target.path))] + (listRow?.fields ?? [])
                                             + skippedClipFields(shared, request: request, output: number, path: path, existing: target.path)))
            }
            try target.check(input: path)
            let version = RemoteFileView.version(of: path)
            let source: CutSource
            if let shared { source = shared } else { source = try CutSource(path: path) }
            // The plan says whether a truncated input or a wrong duration matters to its ranges, and whether Dolby Vision's
            // own colours are shown without its metadata (`dolby_vision_dropped`).
            warnings += source.info.warnings.filter { !["truncated", "duration_suspect", "dolby_vision_colours"].contains($0.code) }
            let edit = try request.edit(output: number, durationSeconds: source.info.durationSeconds, path: path)
            warnings += edit.ranges.flatMap(\.warnings)
            // The mode asked for, or the edit's default — the one rule the API and the page follow too. A stream's cut
            // (a URL's spool) is smart like a join: frame-exact without re-encoding more than its edges.
            // A split proposal's clips too: each is frame-exact at both ends (a scene's first and last frames).
            let smartByDefault = edit.shape == .join || request.splitsProposal
                || InputSources.window(for: path) != nil || InputSources.byteSource(for: path) != nil
            let (mode, smartUnavailable) = request.mode.map { ($0, nil) }
                ?? EditDefaults.mode(joins: smartByDefault, videoCodec: source.info.video?.codec, outputName: target.path)
            let settings = request.settings(mode: mode)
            let work: PlannedWork
            if SoundContainer(fileName: target.path) != nil {
                let plan = try source.planSound(edit.ranges.map { ($0.effectiveStart, $0.effectiveEnd) }, outputName: target.path)
                warnings += plan.warnings.map { MediaWarning(code: $0.code, message: $0.message) }
                work = .sound(plan)
            } else {
                let specs = edit.ranges.map { CutSpec(startSeconds: $0.effectiveStart, endSeconds: $0.effectiveEnd, settings: settings) }
                var plan = try source.plan(specs, labels: edit.labels, outputName: target.path)
                if let smartUnavailable { plan.output.notices.append(.smartUnavailable(smartUnavailable)) }
                // A cut list's later rows do not repeat what the first said about the input's streams.
                if number > 0, edit.shape == .cut { plan.output.notices.removeAll(where: \.isAboutTheInput) }
                warnings += plan.warnings.map(\.asWarning)
                work = .edit(plan)
            }
            if request.strict, let first = warnings.first {
                throw strictError(path: path, first)
            }
            guard let version else {
                throw MediaError(.unreadable, path: path, operation: "stat", reason: "cannot read the file's size and time")
            }
            return .planned(PlannedEdit(path: path, output: target.path, overwrite: request.overwrite, createsFolder: target.createsFolder,
                                        strict: request.strict, work: work, ranges: edit.ranges, shape: edit.shape, warnings: warnings,
                                        source: version, listRow: listRow))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return .finished(outcome)
        }
    }

    /// A skipped row or clip (a resumed split or list): its range and what the existing file
    /// shows, so a manifest built from a resumed run's reports is as complete as the first run's. Empty where they
    /// cannot be read (the skip stands; the file is the user's).
    private static func skippedClipFields(_ shared: CutSource?, request: CutRequest, output: Int, path: String, existing: String) -> [(String, JSON)] {
        // A row's or clip's only: a plain cut's skip stays the cheap check it is (a resumed batch opens nothing).
        guard request.fromList, request.join == nil, let source = shared ?? (try? CutSource(path: path)),
              let edit = try? request.edit(output: output, durationSeconds: source.info.durationSeconds, path: source.info.path),
              let range = edit.ranges.first else { return [] }
        var fields: [(String, JSON)] = [("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))]))]
        if let measured = try? CutVerifier.measure(path: existing, outputName: existing, input: source.info.path) {
            fields.append(("actual", .object([("frames", .optional(measured.shownFrames.map { Int64($0) }))])))
        }
        return fields
    }

    /// Writes a planned edit: `plan_stale` when the source is no longer the file that was planned, the output's
    /// checks, a temporary file the writer fills executing the plan (nothing is decided again) and the report reads
    /// back, run-time warnings judged (`--strict` fails after writing and the output is removed), the file renamed
    /// into place. `shouldStop` is polled as packets go by. `edgeFrames`: pictures a scene pass kept for the smart heads.
    public static func execute(_ planned: PlannedEdit, edgeFrames: EdgeFrames? = nil, shouldStop: @escaping @Sendable () -> Bool = { Interrupt.requested },
                               progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        let path = planned.path
        let warnings = planned.warnings
        do throws(MediaError) {
            guard let now = RemoteFileView.version(of: path), now == planned.source else {
                throw MediaError(.planStale, path: path, operation: "plan",
                                 reason: "the file changed since the cut was planned (its size, modification or change time, or inode); plan it again")
            }
            let target = OutputTarget(path: planned.output, overwrite: planned.overwrite, createsFolder: planned.createsFolder)
            try target.check(input: path)
            switch planned.work {
            case let .edit(plan):
                return try write(plan, planned, target: target, warnings: warnings, edgeFrames: edgeFrames, shouldStop: shouldStop, progress: progress)
            case let .sound(plan):
                return try write(plan, planned, target: target, warnings: warnings, shouldStop: shouldStop, progress: progress)
            }
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return outcome
        }
    }

    private static func write(_ plan: EditPlan, _ planned: PlannedEdit, target: OutputTarget, warnings given: [MediaWarning], edgeFrames: EdgeFrames?,
                              shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) throws(MediaError) -> Outcome {
        let path = planned.path
        var warnings = given
        var written: (run: CutRun, measured: EditReport.Measured)?
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            let run = try EditOutput.write(plan, path: path, temporaryPath: temporary, outputName: planned.output, edgeFrames: edgeFrames,
                                           shouldStop: shouldStop, progress: progress)
            let found = run.notices.filter(\.isWarning).map(\.asWarning)
            let measured = try EditReport.measure(planned.shape, temporary: temporary, output: planned.output, input: path)
            if planned.strict, let first = found.first { throw strictError(path: path, first) }
            warnings += found
            written = (run, measured)
        }
        guard let written else {
            throw MediaError(.verifyFailed, path: path, operation: "verify", reason: "nothing was written to \(planned.output)")
        }
        let report = EditReport(path: path, output: planned.output, plan: plan, ranges: planned.ranges, shape: planned.shape, listRow: planned.listRow)
        return Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.fields(run: written.run, measured: written.measured),
                       lines: report.lines(run: written.run, measured: written.measured))
    }

    /// A cut of sound: written, read back (the samples FFmpeg decodes from it), and judged like any edit.
    private static func write(_ plan: SoundPlan, _ planned: PlannedEdit, target: OutputTarget, warnings given: [MediaWarning],
                              shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) throws(MediaError) -> Outcome {
        let path = planned.path
        var warnings = given
        var readBack: SoundReadBack?
        try writeAtomically(target, input: path) { temporary throws(MediaError) in
            let run = try SoundOutput.write(plan, path: path, temporaryPath: temporary, outputName: planned.output, shouldStop: shouldStop, progress: progress)
            var found: [MediaWarning] = []
            if run.decodeErrors > 0 {
                found.append(CutNotice.decodeErrors(count: run.decodeErrors).asWarning)
            }
            let measured = try SoundReadBack.measure(path: temporary, outputName: planned.output, input: path)
            if measured.decodedSamples != plan.decodedSamples {
                found.append(MediaWarning(code: "sound_length", message: "the written \(planned.output) decodes to \(measured.decodedSamples) samples, not the \(plan.decodedSamples) planned"))
            }
            if planned.strict, let first = found.first { throw strictError(path: path, first) }
            warnings += found
            readBack = measured
        }
        let report = SoundReport(path: path, output: planned.output, plan: plan, ranges: planned.ranges, shape: planned.shape, listRow: planned.listRow)
        return Outcome(path: path, status: .succeeded, warnings: warnings, fields: report.fields(readBack: readBack), lines: report.lines(readBack: readBack))
    }

    static func strictError(path: String, _ warning: MediaWarning) -> MediaError {
        MediaError(.strictWarning, path: path, operation: "strict", reason: "warning treated as an error (--strict): \(warning.message)")
    }
}
