import Foundation
import MediaEngine
import TimelineCore

public typealias CutMode = CutPlan.Mode

/// One segment to cut: from the command line (`--start/--end|--length`) or a row of a cut list.
public struct CutSegment: Sendable, Equatable {
    public var start: TimeSpec
    public var end: TimeSpec?
    public var lengthSeconds: Double?
    public var label: String?

    public init(start: TimeSpec, end: TimeSpec?, lengthSeconds: Double?, label: String? = nil) {
        self.start = start
        self.end = end
        self.lengthSeconds = lengthSeconds
        self.label = label
    }
}

/// `vtrim cut` options: the same segments on every input.
public struct CutRequest: Sendable {
    public var segments: [CutSegment]
    /// The segments come from `--list` (one output each, named per row).
    public var fromList: Bool
    public var mode: CutMode
    public var crf: Int
    public var preset: String
    public var minDurationSeconds: Double?
    public var maxDurationSeconds: Double?
    public var clamp: Bool
    public var output: OutputNamer
    public var overwrite: Bool
    public var skipExisting: Bool
    public var dryRun: Bool
    public var strict: Bool
    /// Encoder threads for exact cuts (0: the encoder chooses).
    public var encoderThreads: Int

    public init(segments: [CutSegment], fromList: Bool = false, mode: CutMode, crf: Int, preset: String,
                minDurationSeconds: Double?, maxDurationSeconds: Double?, clamp: Bool, output: OutputNamer,
                overwrite: Bool, skipExisting: Bool = false, dryRun: Bool, strict: Bool, encoderThreads: Int = 0) {
        self.segments = segments
        self.fromList = fromList
        self.mode = mode
        self.crf = crf
        self.preset = preset
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.clamp = clamp
        self.output = output
        self.overwrite = overwrite
        self.skipExisting = skipExisting
        self.dryRun = dryRun
        self.strict = strict
        self.encoderThreads = encoderThreads
    }

    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// The default output name: `<stem>.cut.<ext>` with the input's extension (mp4 without one);
    /// for a cut list `<stem>.<row>.cut.<ext>`, or the row's label in place of the number.
    public static func suffix(for input: String) -> String {
        ".cut." + outputExtension(for: input)
    }

    static func outputExtension(for input: String) -> String {
        let ext = OutputChoice.fileExtension(input)
        return ext.isEmpty ? "mp4" : ext
    }

    /// The output of segment `segment` of the `index`-th input.
    public func outputPath(for item: InputItem, index: Int, segment: Int) -> String {
        let row = segments[segment]
        let number = String(segment + 1)
        let padded = String(repeating: "0", count: max(0, String(segments.count).count - number.count)) + number
        let defaultName = fromList ? (row.label != nil ? "{stem}.{label}.cut.{ext}" : "{stem}.{index}.cut.{ext}") : "{stem}.cut.{ext}"
        return output.path(for: item, defaultName: defaultName, fields: [
            "ext": Self.outputExtension(for: item.path),
            "index": fromList ? padded : String(index + 1),
            "label": row.label.map(OutputNamer.sanitize) ?? padded,
            "start": TimeSpecText.describe(row.start),
            "end": row.end.map(TimeSpecText.describe) ?? (row.lengthSeconds.map { "+" + JSON.format($0) } ?? "end"),
        ])
    }
}

/// LosslessCut's cut list: CSV rows `start,end,label` (times in seconds or the time syntax; an empty end
/// is the end of the file; the label may be quoted).
public enum CutList {
    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> [CutSegment] {
        var segments: [CutSegment] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = fieldsOf(line)
            guard fields.count >= 2 else { throw ParseError(line: offset + 1, message: "expected start,end[,label]") }
            let startText = fields[0].trimmingCharacters(in: .whitespaces)
            let endText = fields[1].trimmingCharacters(in: .whitespaces)
            guard let start = try? TimeSpec(parsing: startText.isEmpty ? "0" : startText) else {
                throw ParseError(line: offset + 1, message: "start '\(startText)' is not a time")
            }
            var end: TimeSpec? = .beforeEnd(0)
            if !endText.isEmpty {
                guard let parsed = try? TimeSpec(parsing: endText) else {
                    throw ParseError(line: offset + 1, message: "end '\(endText)' is not a time")
                }
                end = parsed
            }
            let label = fields.count > 2 ? fields[2...].joined(separator: ",").trimmingCharacters(in: .whitespaces) : ""
            segments.append(CutSegment(start: start, end: end, lengthSeconds: nil, label: label.isEmpty ? nil : label))
        }
        return segments
    }

    /// Splits one CSV line (double quotes around fields, "" inside them).
    private static func fieldsOf(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = Array(line).makeIterator()
        var previousWasQuote = false
        while let character = iterator.next() {
            if character == "\"" {
                if quoted, previousWasQuote { current.append("\""); previousWasQuote = false; continue }
                quoted.toggle()
                previousWasQuote = !quoted
                continue
            }
            previousWasQuote = false
            if character == ",", !quoted {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

/// `vtrim cut` for one input: resolve the range, plan, write through a temporary file, read it back.
public enum CutJob {
    /// One outcome per segment.
    public static func run(item: InputItem, index: Int, request: CutRequest,
                           progress: (@Sendable (Double) -> Void)? = nil) -> [Outcome] {
        request.segments.indices.map { segment in
            run(item: item, index: index, segment: segment, request: request) { fraction in
                progress?((Double(segment) + fraction) / Double(request.segments.count))
            }
        }
    }

    public static func run(path: String, request: CutRequest) -> Outcome {
        run(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), index: 0, segment: 0, request: request)
    }

    static func run(item: InputItem, index: Int, segment: Int, request: CutRequest,
                    progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        let path = item.path
        var warnings: [MediaWarning] = []
        var extra: [(String, JSON)] = []
        if request.fromList {
            extra.append(("segment", .object([
                ("index", .int(Int64(segment + 1))),
                ("label", .optional(request.segments[segment].label)),
            ])))
        }
        do throws(MediaError) {
            let target = OutputTarget(path: request.outputPath(for: item, index: index, segment: segment), overwrite: request.overwrite,
                                      createsFolder: request.output.createsFolders)
            if request.skipExisting, !request.overwrite, !request.dryRun, FileManager.default.fileExists(atPath: target.path) {
                return Outcome(path: path, status: .skipped(reason: "\(target.path) exists (--skip-existing)"),
                               fields: [("output", .string(target.path))] + extra)
            }
            try target.check(input: path)
            let source = try CutSource(path: path)
            let info = source.info
            warnings += info.warnings
            let range = try CutRange.resolve(request.segments[segment], request: request, durationSeconds: info.durationSeconds, path: path)
            warnings += range.warnings
            let spec = CutSpec(startSeconds: range.effectiveStart, endSeconds: range.effectiveEnd, mode: request.mode,
                               crf: request.crf, preset: request.preset, encoderThreads: request.encoderThreads,
                               shouldStop: { Interrupt.requested }, progress: progress)
            if request.dryRun {
                let plan = try source.plan(spec, finalName: target.path)
                warnings += plan.warnings
                return Outcome(path: path, status: .succeeded, warnings: warnings,
                               fields: dryRunFields(target: target.path, plan: plan, range: range) + extra,
                               lines: dryRunLines(path: path, target: target.path, plan: plan))
            }
            var report: CutReport?
            var measured: MeasuredRange?
            try writeAtomically(target, input: path) { temporary throws(MediaError) in
                let done = try source.cut(spec, temporaryPath: temporary, finalName: target.path)
                warnings += done.warnings
                let range = try CutVerifier.measure(path: temporary)
                if request.strict, !warnings.isEmpty {
                    throw MediaError(.strictWarning, path: path, operation: "strict",
                                     reason: "warning treated as an error (--strict): \(warnings[0].message)")
                }
                report = done
                measured = range
            }
            guard let report, let measured else {
                throw MediaError(.verifyFailed, path: path, operation: "verify", reason: "nothing was written")
            }
            return Outcome(path: path, status: .succeeded, warnings: warnings,
                           fields: fields(target: target.path, report: report, measured: measured, range: range) + extra,
                           lines: lines(path: path, target: target.path, report: report, measured: measured))
        } catch {
            var outcome = Outcome.failure(error, warnings: warnings)
            outcome.path = path
            return outcome
        }
    }

    private static func actual(_ report: CutReport, _ measured: MeasuredRange) -> (start: Double, end: Double)? {
        guard let start = measured.startSeconds, let end = measured.endSeconds else { return nil }
        return (microseconds(report.shiftSeconds + start), microseconds(report.shiftSeconds + end))
    }

    /// Sums of microsecond times, back on the microsecond grid (no 3.0333330000000003).
    private static func microseconds(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }

    private static func fields(target: String, report: CutReport, measured: MeasuredRange, range: CutRange) -> [(String, JSON)] {
        let span = actual(report, measured)
        var fields: [(String, JSON)] = [
            ("output", .string(target)),
            ("mode", .string(report.mode.rawValue)),
            ("requested", range.requestedJSON),
            ("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))])),
            ("actual", .object([
                ("start", .optional(span?.start)),
                ("end", .optional(span?.end)),
                ("duration", .optional(span.map { microseconds($0.end - $0.start) })),
                ("audio_start", .optional(measured.audioStartSeconds.map { microseconds(report.shiftSeconds + $0) })),
                ("audio_end", .optional(measured.audioEndSeconds.map { microseconds(report.shiftSeconds + $0) })),
            ])),
            ("keyframe", .optional(report.keyframeSeconds)),
            ("pre_roll", .number(report.preRollSeconds)),
        ]
        if let encoder = report.encoder { fields.append(("encoder", .string(encoder))) }
        if let smart = report.smart { fields.append(("smart", smartJSON(smart))) }
        fields.append(("notes", .array((range.notes + report.notes).map(JSON.string))))
        return fields
    }

    /// `{head, copied, tail}` as [start, end] seconds (head/tail null when nothing is re-encoded there).
    private static func smartJSON(_ smart: SmartCutSummary) -> JSON {
        func span(_ range: ClosedRange<Double>?) -> JSON {
            range.map { .array([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null
        }
        return .object([
            ("head", span(smart.headSeconds)),
            ("copied", span(smart.copiedSeconds)),
            ("tail", span(smart.tailSeconds)),
            ("sample_entry", .string(smart.sampleEntry)),
        ])
    }

    private static func dryRunFields(target: String, plan: CutReport, range: CutRange) -> [(String, JSON)] {
        let end = plan.presentedEndSeconds ?? range.effectiveEnd
        return [
            ("dry_run", .bool(true)),
            ("output", .string(target)),
            ("mode", .string(plan.mode.rawValue)),
            ("requested", range.requestedJSON),
            ("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))])),
            ("planned", .object([
                ("start", .number(plan.presentedStartSeconds)),
                ("end", .number(end)),
                ("duration", .number(end - plan.presentedStartSeconds)),
                ("keyframe", .optional(plan.keyframeSeconds)),
                ("pre_roll", .number(plan.preRollSeconds)),
            ])),
            ("streams", .array(plan.streamsKept.map { .int(Int64($0)) })),
            ("smart", plan.smart.map(smartJSON) ?? .null),
            ("notes", .array((range.notes + plan.notes).map(JSON.string))),
        ]
    }

    private static func lines(path: String, target: String, report: CutReport, measured: MeasuredRange) -> [String] {
        var text = "\(path) → \(target) (\(report.mode.rawValue))"
        if let span = actual(report, measured) {
            text += ": \(Human.seconds(span.start)) to \(Human.seconds(span.end)), \(Human.seconds(span.end - span.start))"
        }
        return [text] + report.notes.map { "  note: \($0)" }
    }

    private static func dryRunLines(path: String, target: String, plan: CutReport) -> [String] {
        let end = plan.presentedEndSeconds ?? plan.presentedStartSeconds
        var lines = ["\(path) → \(target) (\(plan.mode.rawValue), dry run: nothing written)"]
        if let keyframe = plan.keyframeSeconds {
            lines.append("  keyframe  \(Human.seconds(keyframe)), pre-roll \(Human.seconds(plan.preRollSeconds))")
        }
        if let smart = plan.smart {
            let head = smart.headSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            let tail = smart.tailSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            lines.append("  smart     re-encode \(head) and \(tail); copy \(Human.seconds(smart.copiedSeconds.lowerBound))–\(Human.seconds(smart.copiedSeconds.upperBound)) (\(smart.sampleEntry))")
        }
        lines.append("  shows     \(Human.seconds(plan.presentedStartSeconds)) to \(Human.seconds(end)), \(Human.seconds(end - plan.presentedStartSeconds))")
        return lines + plan.notes.map { "  note: \($0)" }
    }
}

/// The requested range resolved against one file: `end` past the file clamped (with a warning),
/// then the optional length limits checked, or applied with `--clamp`.
struct CutRange {
    var requestedStart: Double
    var requestedEnd: Double
    var effectiveStart: Double
    var effectiveEnd: Double
    var notes: [String] = []
    var warnings: [MediaWarning] = []

    var requestedJSON: JSON { .object([("start", .number(requestedStart)), ("end", .number(requestedEnd))]) }

    static func resolve(_ segment: CutSegment, request: CutRequest, durationSeconds duration: Double, path: String) throws(MediaError) -> CutRange {
        func invalid(_ reason: String) -> MediaError { MediaError(.invalidRange, path: path, operation: "range", reason: reason) }
        guard duration > 0 else { throw invalid("has no duration to cut") }
        let start: TimeResolution
        do { start = try segment.start.resolution(durationSeconds: duration) } catch { throw invalid(error.description) }
        var end: Double
        if let spec = segment.end {
            do { end = try spec.resolve(durationSeconds: duration) } catch { throw invalid(error.description) }
        } else {
            end = start.seconds + (segment.lengthSeconds ?? 0)
        }
        var range = CutRange(requestedStart: start.seconds, requestedEnd: end, effectiveStart: start.seconds, effectiveEnd: end)
        if start.wasClampedToStart {
            range.warnings.append(MediaWarning(code: "start_clamped", message: "--start is before the beginning of the \(JSON.format(duration)) s file; cutting from 0"))
        }
        guard start.seconds < duration else {
            throw invalid("--start \(JSON.format(start.seconds)) s is at or past the end of the file (\(JSON.format(duration)) s)")
        }
        guard end > start.seconds else {
            throw invalid("the range \(JSON.format(start.seconds))–\(JSON.format(end)) s is empty; --end must be after --start")
        }
        if end > duration {
            range.warnings.append(MediaWarning(code: "end_clamped", message: "--end \(JSON.format(end)) s is past the end of the file; cutting to its end, \(JSON.format(duration)) s"))
            end = duration
            range.effectiveEnd = duration
        }
        let minimum = request.minDurationSeconds, maximum = request.maxDurationSeconds
        guard minimum != nil || maximum != nil else { return range }
        do {
            let violations = try CutRangeClamp.violations(startSeconds: start.seconds, endSeconds: end, durationSeconds: duration,
                                                          minLengthSeconds: minimum, maxLengthSeconds: maximum)
            guard !violations.isEmpty else { return range }
            guard request.clamp else { throw invalid(violations.map(\.description).joined(separator: "; ") + " (use --clamp to adjust the range)") }
            let clamped = try CutRangeClamp.clamp(startSeconds: start.seconds, endSeconds: end, durationSeconds: duration,
                                                  minLengthSeconds: minimum, maxLengthSeconds: maximum)
            range.effectiveStart = clamped.startSeconds
            range.effectiveEnd = clamped.endSeconds
            range.notes += clamped.notes.map { "--clamp: \($0.description)" }
            return range
        } catch let error as MediaError {
            throw error
        } catch {
            throw invalid("\(error)")
        }
    }
}

/// Whether an output name has a muxer (for the command line's checks).
public func canWrite(fileName: String) -> Bool { Cutter.canWrite(fileName: fileName) }
