import MediaEngine
import WorkerProtocol

/// A cut's report: JSON fields and human lines, for a dry run (the plan) and a real one (the plan and
/// what was measured in the written file).
struct CutReport {
    let path: String
    let output: String
    let plan: CutPlan
    let range: CutRange

    /// Plan-time notes: the range's and the plan's.
    private var planNotes: [MediaWarning] { range.notes + plan.notes.map(\.asWarning) }

    var dryRunFields: [(String, JSON)] {
        [("dry_run", .bool(true))] + common + [("notes", notesJSON(planNotes))]
    }

    func fields(run: CutRun, measured: MeasuredRange) -> [(String, JSON)] {
        let span = actual(measured, run)
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return common + [
            ("actual", .object([
                ("start", .optional(span?.start)),
                ("end", .optional(span?.end)),
                ("duration", .optional(span.map { microseconds($0.end - $0.start) })),
                ("audio_start", .optional(measured.audioStartSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
                ("audio_end", .optional(measured.audioEndSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
            ])),
            ("notes", notesJSON(notes)),
        ]
    }

    /// Keys shared by the dry run and the real run: what was asked, what the plan decided.
    private var common: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("output", .string(output)),
            ("mode", .string(plan.mode.rawValue)),
            ("requested", range.requestedJSON),
            ("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))])),
            ("planned", .object([
                ("start", .number(microseconds(plan.presentedStartSeconds))),
                ("end", .number(microseconds(plan.presentedEndSeconds))),
                ("duration", .number(microseconds(plan.presentedEndSeconds - plan.presentedStartSeconds))),
                ("keyframe", .optional(plan.keyframeSeconds.map(microseconds))),
                ("pre_roll", .number(microseconds(plan.preRollSeconds))),
            ])),
            ("keyframe", .optional(plan.keyframeSeconds.map(microseconds))),
            ("pre_roll", .number(microseconds(plan.preRollSeconds))),
            ("streams", .array(plan.streams.map { stream in
                .object([("index", .int(Int64(stream.index))), ("kind", .string(stream.kind.rawValue)), ("codec", .string(stream.codec))])
            })),
        ]
        if let encoder = plan.encoder { fields.append(("encoder", .string(encoder))) }
        // H.264/HEVC in MP4/MOV: {type, parameter_sets: "out_of_band" | "in_band", record}; null otherwise.
        // `record`: out of band, the sets vtrim writes into it, [{type, id, profile, level}]; null in band.
        fields.append(("sample_entry", plan.sampleEntry.map { entry in
            let record: JSON = entry.recordSummary.map { sets in
                .array(sets.map { set in
                    .object([("type", .string(set.kind.rawValue)), ("id", .int(Int64(set.id))),
                             ("profile", .optional(set.profile.map { Int64($0) })),
                             ("level", .optional(set.level.map { Int64($0) }))])
                })
            } ?? .null
            return .object([("type", .string(entry.type)), ("parameter_sets", .string(entry.placement.rawValue)), ("record", record)])
        } ?? .null))
        // Phone/camera metadata copied into the MP4/MOV output's moov (QuickTime keys, "udta/FIRM"…); [] when none.
        fields.append(("metadata_kept", .array((plan.movieMetadata?.names ?? []).map { .string($0) })))
        // The output's chapters on its own timeline: [{start, end, title}] seconds; [] when none.
        fields.append(("chapters", .array(plan.chapters.map { chapter in
            .object([("start", .number(Double(chapter.startMicro) / 1e6)), ("end", .number(Double(chapter.endMicro) / 1e6)),
                     ("title", .string(chapter.title))])
        })))
        // The output's start timecode (the source's at its first kept frame), or null.
        fields.append(("timecode", .optional(plan.timecode)))
        if plan.requestedMode == .smart { fields.append(("smart", smartJSON)) }
        return fields
    }

    /// `{head, copied, tail, sample_entry, fallback}`: `[from, to]` seconds or null; `fallback` is the
    /// reason code when the cut is made exactly instead.
    private var smartJSON: JSON {
        func span(_ range: ClosedRange<Double>?) -> JSON {
            range.map { .array([.number(microseconds($0.lowerBound)), .number(microseconds($0.upperBound))]) } ?? .null
        }
        let summary = plan.smartSummary
        return .object([
            ("head", span(summary?.headSeconds)),
            ("copied", span(summary?.copiedSeconds)),
            ("tail", span(summary?.tailSeconds)),
            ("sample_entry", .optional(summary?.sampleEntry)),
            ("fallback", .optional(plan.smartFallback?.code)),
        ])
    }

    private func notesJSON(_ notes: [MediaWarning]) -> JSON {
        .array(notes.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
    }

    /// The measured span on the source's timeline. Files that store only decode times (AVI) show the
    /// first frame at its decode slot, 0: it maps to where the plan shows the first frame — its own time
    /// in a copy, `start` in an exact cut (which shows the frame at `start` from `start`).
    private func actual(_ measured: MeasuredRange, _ run: CutRun) -> (start: Double, end: Double)? {
        guard let start = measured.startSeconds, let end = measured.endSeconds else { return nil }
        let firstShown = plan.mode == .exact ? plan.sourceOffsetSeconds : plan.presentedStartSeconds
        let offset = measured.videoTimesAreDecodeTimes ? firstShown - start : outputToSource(run, measured)
        return (microseconds(offset + start), microseconds(offset + end))
    }

    /// An output time plus this is the source time: the plan's shift, less what the container added — the
    /// muxer's shift of negative times to 0 (MPEG-TS), and the rounding of Matroska's millisecond
    /// timestamps (the first frame written at 0.0667 s is stored at 0.067 s).
    private func outputToSource(_ run: CutRun, _ measured: MeasuredRange) -> Double {
        var offset = plan.sourceOffsetSeconds - run.muxerShiftSeconds
        if plan.container.formatName == "matroska" || plan.container.formatName == "webm",
           let written = run.writtenVideoStartSeconds, let stored = measured.videoStartSeconds {
            let rounding = stored - (written + run.muxerShiftSeconds)
            if abs(rounding) <= 0.0005 + 1e-9 { offset -= rounding }
        }
        return offset
    }

    /// Sums of microsecond times, back on the microsecond grid (no 3.0333330000000003).
    private func microseconds(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }

    func lines(run: CutRun, measured: MeasuredRange) -> [String] {
        var text = "\(path) → \(output) (\(plan.mode.rawValue))"
        if let span = actual(measured, run) {
            text += ": \(Human.seconds(span.start)) to \(Human.seconds(span.end)), \(Human.seconds(span.end - span.start))"
        }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return [text] + notes.map { "  note: \($0.message)" }
    }

    var dryRunLines: [String] {
        var lines = ["\(path) → \(output) (\(plan.mode.rawValue), dry run: nothing written)"]
        if let keyframe = plan.keyframeSeconds {
            lines.append("  keyframe  \(Human.seconds(keyframe)), pre-roll \(Human.seconds(plan.preRollSeconds))")
        }
        if let smart = plan.smartSummary {
            let head = smart.headSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            let tail = smart.tailSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            lines.append("  smart     re-encode \(head) and \(tail); copy \(Human.seconds(smart.copiedSeconds.lowerBound))–\(Human.seconds(smart.copiedSeconds.upperBound)) (\(smart.sampleEntry))")
        }
        if let entry = plan.sampleEntry {
            let sets = entry.recordSummary.map { sets in
                " (" + sets.map { set in
                    "\(set.kind.rawValue.uppercased()) \(set.id)" + (set.profile.map { profile in " profile \(profile)" + (set.level.map { " level \($0)" } ?? "") } ?? "")
                }.joined(separator: ", ") + ")"
            } ?? ""
            lines.append("  entry     \(entry.type): parameter sets \(entry.placement == .outOfBand ? "in the sample entry" : "in the samples")\(sets)")
        }
        let start = plan.presentedStartSeconds, end = plan.presentedEndSeconds
        lines.append("  shows     \(Human.seconds(start)) to \(Human.seconds(end)), \(Human.seconds(end - start))")
        return lines + planNotes.map { "  note: \($0.message)" }
    }
}
