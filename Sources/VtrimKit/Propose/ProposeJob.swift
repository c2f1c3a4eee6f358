import DiskNames
import Foundation
import LibraryFiles
import MediaEngine
import WorkerProtocol

/// What `vtrim propose` (and `vtrim cut --propose`, and the page's Propose menu) asks of each input.
public struct ProposeRequest: Sendable {
    public var query: ContentQuery
    public var settings: ProposalPlanner.Settings
    /// `--ranges remove`: the result lists what a join would leave out instead of what it keeps.
    public var listsRemoved = false
    /// How URL inputs are read.
    public var remote = RemoteRequest()
    /// Where each input's list goes (`-o`, `--output-dir`, `--name`); nil: none is written.
    public var output: OutputNamer?
    public var format: CutListFormat = .csv
    public var timing = ListTiming()
    public var overwrite = false
    public var skipExisting = false
    public var dryRun = false
    public var strict = false
    public var threads = 1

    public init(query: ContentQuery, settings: ProposalPlanner.Settings) {
        self.query = query
        self.settings = settings
    }

    /// The default list name: `{stem}.proposed.csv` (or the format's extension).
    public var defaultName: String { "{stem}.proposed.\(format.fileExtension)" }

    public func listPath(for item: InputItem) -> String? {
        output?.path(for: item, defaultName: defaultName, fields: ["index": "1", "start": "proposed", "end": "proposed", "label": "proposed"])
    }

    /// What was asked for, in words: "silence (-30 dB, ≥ 0.5 s), scenes (27, ≥ 0.6 s)".
    public var kindsText: String {
        var parts: [String] = []
        if let silence = query.silence { parts.append("silence (\(JSON.format(silence.thresholdDB)) dB, ≥ \(JSON.format(silence.minSeconds)) s)") }
        if let black = query.black { parts.append("black (≥ \(JSON.format(black.minSeconds)) s)") }
        if let scenes = query.scenes { parts.append("scenes (\(JSON.format(scenes.threshold)), ≥ \(JSON.format(scenes.minSeconds)) s)") }
        return parts.joined(separator: ", ")
    }
}

/// A proposal made for one file: what was found and the ranges decided from it.
public struct MadeProposal: Sendable {
    public var info: MediaInfo
    public var analysis: ContentAnalysis
    public var proposal: ProposalPlanner.Proposal
    public var notes: [String]

    /// For each kept range, the score of the scene cut that opens it (nil where none does).
    public var sceneScores: [Double?] {
        let cuts = analysis.detections.filter { $0.kind == .scene }
        return proposal.keep.map { range in cuts.first { $0.startMicro == range.startMicro }?.measure ?? nil }
    }

    /// The ranges the result lists (kept, or with `--ranges remove` removed), seconds on vtrim's timeline.
    public func listed(_ request: ProposeRequest) -> [ListRange] {
        (request.listsRemoved ? proposal.remove : proposal.keep).map {
            ListRange(startSeconds: Double($0.startMicro) / 1e6, endSeconds: Double($0.endMicro) / 1e6)
        }
    }
}

/// `vtrim propose` for one input: analyse (one pass, only what the detectors need decoded), plan the ranges (a
/// value), then report them and write the list — through a temporary file, never over the input or an existing file
/// without `--overwrite`; a dry run writes nothing.
public enum ProposeJob {
    /// `keeping`: where the scene pass holds pictures for the smart heads of a cut that follows (`EdgeFrames`).
    public static func propose(path: String, request: ProposeRequest, keeping edgeFrames: EdgeFrames? = nil,
                               progress: ((Double) -> Void)? = nil) throws(MediaError) -> MadeProposal {
        let info = try Probe.probe(path: path)
        let analysis = try ContentAnalyzer.analyse(path: path, info: info, query: request.query, threads: request.threads, keeping: edgeFrames,
                                                   progress: progress)
        let proposal = ProposalPlanner.plan(analysis, settings: request.settings)
        var notes: [String] = []
        if analysis.detections.isEmpty {
            notes.append("nothing found (\(request.kindsText)): the proposal keeps the whole file")
        }
        if proposal.stillGapsKept > 0 {
            notes.append("\(proposal.stillGapsKept) gap\(proposal.stillGapsKept == 1 ? "" : "s") (\(Human.seconds(Double(proposal.stillGapsKeptMicro) / 1e6))) kept: "
                + "the picture does not change across \(proposal.stillGapsKept == 1 ? "it" : "them"), so the ranges around would show the same frame")
        }
        if proposal.keep.isEmpty {
            notes.append("the whole file is a gap (\(request.kindsText)): nothing is kept")
        }
        if request.settings.snapsToCleanStarts, analysis.cleanStarts.isEmpty, proposal.seams > 0 {
            notes.append("no clean starts were found in the video (or it has none vtrim can copy from): seams stay where the pads put them")
        }
        return MadeProposal(info: info, analysis: analysis, proposal: proposal, notes: notes)
    }

    public static func run(item: InputItem, request: ProposeRequest, progress: (@Sendable (Double) -> Void)? = nil) -> Outcome {
        if RemoteNames.isURL(item.path), InputSources.window(for: item.path) == nil, InputSources.byteSource(for: item.path) == nil {
            return RemoteJobs.propose(item: item, request: request, progress: progress)
        }
        let path = item.path
        let listPath = request.listPath(for: item)
        do throws(MediaError) {
            var target: OutputTarget?
            if let listPath {
                if request.skipExisting, !request.overwrite, !request.dryRun, DiskFile.exists(listPath) {
                    return Outcome(path: path, status: .skipped(reason: "\(listPath) exists (--skip-existing)"), fields: [("list", .string(listPath))])
                }
                let made = OutputTarget(path: listPath, overwrite: request.overwrite, createsFolder: request.output?.createsFolders ?? false)
                try made.check(input: path, dryRun: request.dryRun)
                target = made
            }
            let made = try propose(path: path, request: request, progress: progress)
            let ranges = made.listed(request)
            if request.strict, let first = made.analysis.warnings.first {
                throw MediaError(.strictWarning, path: path, operation: "strict", reason: "warning treated as an error (--strict): \(first.message)")
            }
            if let target, !request.dryRun {
                let text: String
                do {
                    text = try CutLists.render(ranges, format: request.format, media: ListMedia(made.info), timing: request.timing)
                } catch {
                    throw MediaError(.listUnwritable, path: path, operation: "write list", reason: "\(target.path): \(error.message)")
                }
                try writeAtomically(target, input: path) { temporary throws(MediaError) in
                    guard DiskFile.write(DiskName.bytes(text), to: temporary) else {
                        throw MediaError(.writeFailed, path: path, operation: "write", reason: "cannot write the list \(target.path)")
                    }
                }
            }
            return Outcome(path: path, status: .succeeded, warnings: made.analysis.warnings,
                           fields: fields(made, request: request, list: listPath),
                           lines: lines(made, request: request, list: listPath))
        } catch {
            var outcome = Outcome.failure(error)
            outcome.path = path
            return outcome
        }
    }

    static func seconds(_ micro: Int64) -> JSON { .number(Double(micro) / 1e6) }

    public static func detectionJSON(_ detection: Detection) -> JSON {
        var fields: [(String, JSON)] = [("kind", .string(detection.kind.rawValue)), ("start", seconds(detection.startMicro)),
                                        ("end", seconds(detection.endMicro))]
        switch detection.kind {
        case .silence: fields.append(("level_dbfs", .optional(detection.measure)))
        case .black: fields.append(("luma", .optional(detection.measure)))
        case .scene: fields.append(("score", .optional(detection.measure)))
        }
        return .object(fields)
    }

    public static func fields(_ made: MadeProposal, request: ProposeRequest, list: String?) -> [(String, JSON)] {
        let proposal = made.proposal
        let listed = request.listsRemoved ? proposal.remove : proposal.keep
        return [
            ("duration", seconds(made.analysis.durationMicro)),
            ("detections", .array(made.analysis.detections.map(detectionJSON))),
            ("ranges_listed", .string(request.listsRemoved ? "remove" : "keep")),
            ("ranges", .array(listed.map { .object([("start", seconds($0.startMicro)), ("end", seconds($0.endMicro))]) })),
            ("kept_duration", seconds(proposal.keep.reduce(0) { $0 + ($1.endMicro - $1.startMicro) })),
            ("seams", .object([("count", .int(Int64(proposal.seams))), ("snapped", .int(Int64(proposal.snappedSeams))),
                               ("copy_only", .int(Int64(proposal.copyOnlySeams))), ("need_edges", .int(Int64(proposal.seamsNeedingEdges)))])),
            ("list", list.map { .string($0) } ?? .null),
            ("dry_run", .bool(request.dryRun)),
            ("notes", .array(made.notes.map { .string($0) })),
        ]
    }

    static func lines(_ made: MadeProposal, request: ProposeRequest, list: String?) -> [String] {
        let proposal = made.proposal, detections = made.analysis.detections
        let counts = Detection.Kind.allCases.compactMap { kind -> String? in
            let count = detections.filter { $0.kind == kind }.count
            guard count > 0 else { return nil }
            switch kind {
            case .silence: return "\(count) silence\(count == 1 ? "" : "s")"
            case .black: return "\(count) black span\(count == 1 ? "" : "s")"
            case .scene: return "\(count) scene\(count == 1 ? "" : "s")"
            }
        }
        let kept = proposal.keep.reduce(Int64(0)) { $0 + ($1.endMicro - $1.startMicro) }
        var lines = ["\(made.info.path): \(counts.isEmpty ? "nothing found" : counts.joined(separator: ", ")) → keep \(proposal.keep.count) range\(proposal.keep.count == 1 ? "" : "s"), "
            + "\(Human.seconds(Double(kept) / 1e6)) of \(Human.seconds(Double(made.analysis.durationMicro) / 1e6))"]
        if proposal.seams > 0 {
            lines.append("  seams: \(proposal.seams), \(proposal.copyOnlySeams) copy-only (\(proposal.snappedSeams) snapped onto keyframes), \(proposal.seamsNeedingEdges) need an edge encode")
        }
        for range in request.listsRemoved ? proposal.remove : proposal.keep {
            lines.append("  \(request.listsRemoved ? "remove" : "keep") \(Human.seconds(Double(range.startMicro) / 1e6))–\(Human.seconds(Double(range.endMicro) / 1e6))")
        }
        if let list { lines.append(request.dryRun ? "  would write \(list) (dry run: nothing written)" : "  → \(list)") }
        return lines + made.notes.map { "  note: \($0)" }
    }
}

/// The defaults the command line, `cut --propose` and the page share.
public enum ProposeDefaults {
    public static let silenceDB = -30.0
    public static let minSilenceSeconds = 0.5
    public static let minBlackSeconds = 0.5
    public static let sceneThreshold = 27.0
    /// PySceneDetect's `--min-scene-len` default.
    public static let minSceneSeconds = 0.6
    public static let padSeconds = 0.15
    /// How far a seam may move to reach a clean start: at most this much more silence or black is kept.
    public static let snapWithinSeconds = 1.0

    /// `silence[=DB],black,scenes[=T]` (the kinds `cut --propose` and the page take) as a query, or why not.
    public static func query(kinds text: String, minSilenceSeconds: Double = minSilenceSeconds, minBlackSeconds: Double = minBlackSeconds,
                             minSceneSeconds: Double = minSceneSeconds) -> Result<ContentQuery, ProposeKindsError> {
        var query = ContentQuery()
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for part in parts {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            let name = pieces.first?.lowercased() ?? ""
            let value = pieces.count > 1 ? Double(pieces[1].lowercased().replacingOccurrences(of: "db", with: "")) : nil
            if pieces.count > 1, value == nil { return .failure(ProposeKindsError(message: "\(part): the value after = is not a number")) }
            switch name {
            case "silence": query.silence = .init(thresholdDB: value ?? silenceDB, minSeconds: minSilenceSeconds)
            case "black":
                guard value == nil else { return .failure(ProposeKindsError(message: "black takes no value")) }
                query.black = .init(minSeconds: minBlackSeconds)
            case "scenes", "scene": query.scenes = .init(threshold: value ?? sceneThreshold, minSeconds: minSceneSeconds)
            default: return .failure(ProposeKindsError(message: "unknown kind \"\(part)\"; use silence[=DB], black, scenes[=T], separated by commas"))
            }
        }
        if let problem = query.problem { return .failure(ProposeKindsError(message: problem)) }
        return .success(query)
    }
}

public struct ProposeKindsError: Error, Sendable {
    public var message: String
}

/// How a proposal is tuned, in the command line's units (seconds); the engine's settings are made here, so the command
/// line never names an engine type.
public struct ProposalTuning: Sendable {
    public var minSilenceSeconds = ProposeDefaults.minSilenceSeconds
    public var minBlackSeconds = ProposeDefaults.minBlackSeconds
    public var minSceneSeconds = ProposeDefaults.minSceneSeconds
    public var padSeconds = ProposeDefaults.padSeconds
    /// nil: `ProposalAsk.snapsByDefault` for the kinds asked.
    public var snapsToKeyframes: Bool?
    public var snapWithinSeconds = ProposeDefaults.snapWithinSeconds

    public init() {}

    /// Why these values cannot be used, or nil (checked before any of them becomes µs).
    public var problem: String? {
        guard padSeconds.isFinite, (0...60).contains(padSeconds) else { return "--pad must be between 0 and 60 seconds" }
        for (name, value) in [("--min-silence", minSilenceSeconds), ("--min-black", minBlackSeconds), ("--min-scene", minSceneSeconds),
                              ("--snap-within", snapWithinSeconds)] {
            guard value.isFinite, (0...3600).contains(value) else { return "\(name) must be between 0 and 3600 seconds" }
        }
        return nil
    }

    func settings(kinds: String) -> ProposalPlanner.Settings {
        .init(padMicro: Int64((padSeconds * 1e6).rounded()), snapsToCleanStarts: snapsToKeyframes ?? ProposalAsk.snapsByDefault(kinds: kinds),
              minSceneMicro: Int64((minSceneSeconds * 1e6).rounded()), snapWithinMicro: Int64((snapWithinSeconds * 1e6).rounded()))
    }
}

extension ProposeRequest {
    /// The request for `silence[=DB],black,scenes[=T]` tuned so, or why there is none.
    public static func make(kinds: String, tuning: ProposalTuning) -> Result<ProposeRequest, ProposeKindsError> {
        if let problem = tuning.problem { return .failure(ProposeKindsError(message: problem)) }
        switch ProposeDefaults.query(kinds: kinds, minSilenceSeconds: tuning.minSilenceSeconds, minBlackSeconds: tuning.minBlackSeconds,
                                     minSceneSeconds: tuning.minSceneSeconds) {
        case let .failure(error): return .failure(error)
        case let .success(query): return .success(ProposeRequest(query: query, settings: tuning.settings(kinds: kinds)))
        }
    }
}
