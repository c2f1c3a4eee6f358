import MediaEngine
import WorkerProtocol

/// An edit's report — JSON fields and human lines, for a dry run (the plan) and a real one (the plan and what was
/// measured in the written file) — in its shape: a cut's keys (`requested`, `effective`, `planned`, `actual`, …)
/// or a join's (`segments`, each range on the source's timeline and where it begins in the output; the output's
/// own `planned`/`actual` span; each seam's audio offset).
struct EditReport {
    let path: String
    let output: String
    let plan: EditPlan
    let ranges: [CutRange]
    let shape: EditShape
    let listRow: PlannedEdit.ListRow?

    /// What the written file is read back for: its span, and for a join each frame's time.
    struct Measured {
        var range: MeasuredRange
        var frames: [Double]
    }

    /// A cut's one range, and what it shows of the source.
    private var cut: RangePlan { plan.ranges[0] }
    private var times: RangeTimes { plan.times(of: cut) }
    private var range: CutRange { ranges[0] }

    /// Plan-time notes: the ranges' and the plan's.
    private var planNotes: [MediaWarning] { ranges.flatMap(\.notes) + plan.notes.map(\.asWarning) }

    var dryRunFields: [(String, JSON)] { shape == .cut ? cutDryRunFields : joinDryRunFields }
    var dryRunLines: [String] { shape == .cut ? cutDryRunLines : joinDryRunLines }

    func fields(run: CutRun, measured: Measured) -> [(String, JSON)] {
        shape == .cut ? cutFields(run: run, measured: measured.range) : joinFields(run: run, measured: measured.range, frames: measured.frames)
    }

    func lines(run: CutRun, measured: Measured) -> [String] {
        shape == .cut ? cutLines(run: run, measured: measured.range) : joinLines(run: run, measured: measured.range)
    }

    /// Reads the written file back (at `temporary`, to be named `output`): a join's frames too.
    static func measure(_ shape: EditShape, temporary: String, output: String, input: String) throws(MediaError) -> Measured {
        let range = try CutVerifier.measure(path: temporary, outputName: output, input: input)
        let frames = shape == .join ? try CutVerifier.videoFrameTimes(path: temporary, outputName: output, input: input) : []
        return Measured(range: range, frames: frames)
    }

    // MARK: - A cut's keys

    private var cutDryRunFields: [(String, JSON)] {
        [("dry_run", .bool(true))] + cutCommon + [("notes", notesJSON(planNotes))] + (listRow?.fields ?? [])
    }

    private func cutFields(run: CutRun, measured: MeasuredRange) -> [(String, JSON)] {
        let span = actual(measured, run)
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return cutCommon + [
            ("actual", .object([
                ("start", .optional(span?.start)),
                ("end", .optional(span?.end)),
                ("duration", .optional(span.map { microseconds($0.end - $0.start) })),
                ("audio_start", .optional(measured.audioStartSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
                ("audio_end", .optional(measured.audioEndSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
                ("frames", .optional(measured.shownFrames.map { Int64($0) })),
                ("first_frame", .optional(measured.firstFrameSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
                ("last_frame", .optional(measured.lastFrameSeconds.map { microseconds(outputToSource(run, measured) + $0) })),
                ("constant_rate", measured.frameRateIsConstant.map { JSON.bool($0) } ?? .null),
                ("frame_rate", .optional(measured.constantFrameRate)),
                ("audio_offset", .optional(measured.audioStartSeconds.flatMap { audio in
                    measured.videoStartSeconds.map { microseconds(audio - $0) } })),
            ])),
            ("notes", notesJSON(notes)),
        ] + (listRow?.fields ?? [])
    }

    /// Keys shared by the dry run and the real run: what was asked, what the plan decided.
    private var cutCommon: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("output", .string(output)),
            ("mode", .string(plan.output.mode.rawValue)),
            ("requested", range.requestedJSON),
            ("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))])),
            ("planned", .object([
                ("start", .number(microseconds(times.presentedStartSeconds))),
                ("end", .number(microseconds(times.presentedEndSeconds))),
                ("duration", .number(microseconds(times.presentedEndSeconds - times.presentedStartSeconds))),
                ("keyframe", .optional(times.keyframeSeconds.map(microseconds))),
                ("pre_roll", .number(microseconds(times.preRollSeconds))),
            ])),
            ("keyframe", .optional(times.keyframeSeconds.map(microseconds))),
            ("pre_roll", .number(microseconds(times.preRollSeconds))),
            ("streams", .array(plan.output.streams.map { stream in
                .object([("index", .int(Int64(stream.index))), ("kind", .string(stream.kind.rawValue)), ("codec", .string(stream.codec))])
            })),
        ]
        if let encoder = plan.output.encoder { fields.append(("encoder", .string(encoder))) }
        // H.264/HEVC in MP4/MOV: {type, parameter_sets: "out_of_band" | "in_band", record}; null otherwise.
        // `record`: out of band, the sets vtrim writes into it, [{type, id, profile, level}]; null in band.
        fields.append(("sample_entry", plan.output.sampleEntry.map { entry in
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
        fields.append(("metadata_kept", .array((plan.output.movieMetadata?.names ?? []).map { .string($0) })))
        // The output's chapters on its own timeline: [{start, end, title}] seconds; [] when none.
        fields.append(("chapters", .array(plan.output.chapters.map { chapter in
            .object([("start", .number(Double(chapter.startMicro) / 1e6)), ("end", .number(Double(chapter.endMicro) / 1e6)),
                     ("title", .string(chapter.title))])
        })))
        // The output's start timecode (the source's at its first kept frame), or null.
        fields.append(("timecode", .optional(plan.output.timecode)))
        if plan.output.requestedMode == .smart { fields.append(("smart", smartJSON)) }
        return fields
    }

    /// `{head, copied, tail, sample_entry, edges, fallback}`: `[from, to]` seconds or null; `edges` the encoder
    /// of the re-encoded parts and its options; `fallback` is the reason code when the cut is made exactly instead.
    private var smartJSON: JSON {
        .object(smartFields(cut) + [("fallback", .optional(plan.output.smartFallback?.code))])
    }

    /// One range's smart parts: `head`, `copied`, `tail` (`[from, to]` seconds or null), `sample_entry`, and `edges`
    /// `{encoder, options}` (null when nothing is re-encoded smartly).
    private func smartFields(_ cut: RangePlan) -> [(String, JSON)] {
        func span(_ range: ClosedRange<Double>?) -> JSON {
            range.map { .array([.number(microseconds($0.lowerBound)), .number(microseconds($0.upperBound))]) } ?? .null
        }
        let summary = plan.times(of: cut).smart
        let edges: JSON = plan.output.mode == .smart && cut.video != nil ? plan.output.reencoding.map { encoding in
            .object([("encoder", .string(encoding.encoder)),
                     ("options", .object(encoding.options.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))])
        } ?? .null : .null
        return [
            ("head", span(summary?.headSeconds)),
            ("copied", span(summary?.copiedSeconds)),
            ("tail", span(summary?.tailSeconds)),
            ("sample_entry", .optional(summary?.sampleEntry)),
            ("edges", edges),
        ]
    }

    /// The dry run's line naming a smart range's edge encoder and its settings.
    private func edgesLine(_ cut: RangePlan) -> String? {
        guard plan.output.mode == .smart, cut.video != nil, let encoding = plan.output.reencoding else { return nil }
        let options = encoding.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "  edges     \(encoding.encoder) \(options)"
    }

    /// The measured span on the source's timeline. Files that store only decode times (AVI) show the
    /// first frame at its decode slot, 0: it maps to where the plan shows the first frame — its own time
    /// in a copy, `start` in an exact cut (which shows the frame at `start` from `start`).
    private func actual(_ measured: MeasuredRange, _ run: CutRun) -> (start: Double, end: Double)? {
        guard let start = measured.startSeconds, let end = measured.endSeconds else { return nil }
        let firstShown = plan.output.mode == .exact ? times.sourceOffsetSeconds : times.presentedStartSeconds
        let offset = measured.videoTimesAreDecodeTimes ? firstShown - start : outputToSource(run, measured)
        return (microseconds(offset + start), microseconds(offset + end))
    }

    /// An output time plus this is the source time: the plan's shift, less what the container added — the
    /// muxer's shift of negative times to 0 (MPEG-TS), and the rounding of Matroska's millisecond
    /// timestamps (the first frame written at 0.0667 s is stored at 0.067 s).
    private func outputToSource(_ run: CutRun, _ measured: MeasuredRange) -> Double {
        var offset = times.sourceOffsetSeconds - run.muxerShiftSeconds
        if plan.output.container.formatName == "matroska" || plan.output.container.formatName == "webm",
           let written = run.writtenVideoStartSeconds, let stored = measured.videoStartSeconds {
            let rounding = stored - (written + run.muxerShiftSeconds)
            if abs(rounding) <= 0.0005 + 1e-9 { offset -= rounding }
        }
        return offset
    }

    private func cutLines(run: CutRun, measured: MeasuredRange) -> [String] {
        var text = "\(path) → \(output) (\(plan.output.mode.rawValue))"
        if let span = actual(measured, run) {
            text += ": \(Human.seconds(span.start)) to \(Human.seconds(span.end)), \(Human.seconds(span.end - span.start))"
        }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return [text] + notes.map { "  note: \($0.message)" }
    }

    private var cutDryRunLines: [String] {
        var lines = ["\(path) → \(output) (\(plan.output.mode.rawValue), dry run: nothing written)"]
        if let keyframe = times.keyframeSeconds {
            lines.append("  keyframe  \(Human.seconds(keyframe)), pre-roll \(Human.seconds(times.preRollSeconds))")
        }
        if let smart = times.smart {
            let head = smart.headSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            let tail = smart.tailSeconds.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" } ?? "nothing"
            lines.append("  smart     re-encode \(head) and \(tail); copy \(Human.seconds(smart.copiedSeconds.lowerBound))–\(Human.seconds(smart.copiedSeconds.upperBound))"
                         + (smart.sampleEntry.map { " (\($0))" } ?? plan.output.video?.streamConfiguration.map { _ in " (av1C from the in-stream sequence header)" } ?? ""))
        }
        if let edges = edgesLine(cut) { lines.append(edges) }
        if let entry = plan.output.sampleEntry {
            let sets = entry.recordSummary.map { sets in
                " (" + sets.map { set in
                    "\(set.kind.rawValue.uppercased()) \(set.id)" + (set.profile.map { profile in " profile \(profile)" + (set.level.map { " level \($0)" } ?? "") } ?? "")
                }.joined(separator: ", ") + ")"
            } ?? ""
            let place = entry.placement == .inBand ? "in the samples" : entry.carriage == .codecPrivate ? "in CodecPrivate" : "in the sample entry"
            lines.append("  entry     \(entry.type): parameter sets \(place)\(sets)")
        }
        let start = times.presentedStartSeconds, end = times.presentedEndSeconds
        lines.append("  shows     \(Human.seconds(start)) to \(Human.seconds(end)), \(Human.seconds(end - start))")
        return lines + planNotes.map { "  note: \($0.message)" }
    }

    // MARK: - A join's keys

    private var joinDryRunFields: [(String, JSON)] {
        [("dry_run", .bool(true))] + joinCommon(segments(actual: nil)) + [("notes", notesJSON(planNotes))]
    }

    private func joinFields(run: CutRun, measured: MeasuredRange, frames: [Double]) -> [(String, JSON)] {
        let shift = run.muxerShiftSeconds
        let start = measured.startSeconds.map { round($0 - shift) }, end = measured.endSeconds.map { round($0 - shift) }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        let seams: JSON = .array(run.audioSeamOffsetsSeconds.enumerated().map { seam in
            .object([("index", .int(Int64(seam.offset + 2))), ("offset", .number(round(seam.element)))])
        })
        return joinCommon(segments(actual: (frames.map { $0 - shift }, end))) + [
            ("actual", .object([("start", .optional(start)), ("end", .optional(end)),
                                ("duration", .optional(start.flatMap { from in end.map { round($0 - from) } }))])),
            ("audio_seams", seams),
            ("notes", notesJSON(notes)),
        ]
    }

    private func joinCommon(_ segments: JSON) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("output", .string(output)),
            ("mode", .string(plan.output.mode.rawValue)),
            ("requested_mode", .string(plan.output.requestedMode.rawValue)),
            ("segments", segments),
            ("planned", .object([("start", .number(0)), ("duration", .number(round(seconds(plan.durationMicro))))])),
            ("streams", .array(plan.output.streams.map { stream in
                .object([("index", .int(Int64(stream.index))), ("kind", .string(stream.kind.rawValue)), ("codec", .string(stream.codec))])
            })),
            ("chapters", .array(plan.output.chapters.map { chapter in
                .object([("start", .number(seconds(chapter.startMicro))), ("end", .number(seconds(chapter.endMicro))),
                         ("title", .string(chapter.title))])
            })),
        ]
        fields.append(("timecode", .optional(plan.output.timecode)))
        if let encoder = plan.output.encoder { fields.append(("encoder", .string(encoder))) }
        if plan.output.requestedMode == .smart { fields.append(("smart", .object([("fallback", .optional(plan.output.smartFallback?.code))]))) }
        return fields
    }

    /// Each range: what was asked, what the plan shows of the source, where it begins in the output and —
    /// after writing — what the output shows of it, mapped back to the source's timeline from the frames read.
    private func segments(actual: (frames: [Double], end: Double?)?) -> JSON {
        .array(plan.ranges.enumerated().map { index, range in
            let times = plan.times(of: range)
            let outputStart = seconds(range.outputStartMicro)
            let outputEnd = outputStart + seconds(range.durationMicro)
            var fields: [(String, JSON)] = [
                ("index", .int(Int64(index + 1))),
                ("label", .optional(range.label)),
                ("requested", ranges[safe: index].map { .object([("start", .number($0.requestedStart)), ("end", .number($0.requestedEnd))]) } ?? .null),
                ("planned", .object([("start", .number(round(times.presentedStartSeconds))), ("end", .number(round(times.presentedEndSeconds))),
                                     ("duration", .number(round(times.presentedEndSeconds - times.presentedStartSeconds)))])),
                ("output_start", .number(round(outputStart))),
            ]
            if plan.output.mode == .smart { fields.append(("smart", .object(smartFields(range)))) }
            if let actual {
                // Output time − where the range was moved + the source time at its own 0 = source time.
                let toSource = times.sourceOffsetSeconds - seconds(range.companions.zeroOutputMicro)
                let shown = actual.frames.filter { $0 >= outputStart - 0.0015 && $0 < outputEnd - 0.0015 }
                let next = plan.ranges.indices.contains(index + 1) ? actual.frames.first { $0 >= outputEnd - 0.0015 } : actual.end
                if let first = shown.first, let end = next {
                    fields.append(("actual", .object([("start", .number(round(first + toSource))), ("end", .number(round(end + toSource))),
                                                      ("duration", .number(round(end - first)))])))
                } else {
                    fields.append(("actual", .null))
                }
            }
            return .object(fields)
        })
    }

    private func joinLines(run: CutRun, measured: MeasuredRange) -> [String] {
        let duration = measured.endSeconds.flatMap { end in measured.startSeconds.map { end - $0 } }
        var lines = ["\(path) → \(output) (\(plan.output.mode.rawValue), \(plan.ranges.count == 1 ? "1 range" : "\(plan.ranges.count) ranges joined"))" + (duration.map { ": \(Human.seconds($0))" } ?? "")]
        lines += rangeLines
        for (index, offset) in run.audioSeamOffsetsSeconds.enumerated() {
            lines.append("  seam \(index + 1): audio \(offset >= 0 ? "+" : "")\(Human.seconds(offset)) against the video")
        }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return lines + notes.map { "  note: \($0.message)" }
    }

    private var joinDryRunLines: [String] {
        let ranges = plan.ranges.count == 1 ? "1 range" : "\(plan.ranges.count) ranges joined"
        var lines = ["\(path) → \(output) (\(plan.output.mode.rawValue), \(ranges), dry run: nothing written): \(Human.seconds(seconds(plan.durationMicro)))"]
        for (line, range) in zip(rangeLines, plan.ranges) {
            lines.append(line)
            if let edges = edgesLine(range) { lines.append("  " + edges) }
        }
        return lines + planNotes.map { "  note: \($0.message)" }
    }

    /// One line per range: the source span it shows, where it begins in the output, what is copied and re-encoded.
    private var rangeLines: [String] {
        plan.ranges.enumerated().map { index, range in
            let times = plan.times(of: range)
            var text = "  range \(index + 1)\(range.label.map { " (\($0))" } ?? ""): \(Human.seconds(times.presentedStartSeconds))–\(Human.seconds(times.presentedEndSeconds)) at \(Human.seconds(seconds(range.outputStartMicro)))"
            if range.smart?.reencodesWhole == true {
                text += "; re-encoded whole (no group of pictures to copy)"
            } else if let smart = times.smart {
                let edges = [smart.headSeconds, smart.tailSeconds].compactMap { $0 }.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" }
                text += "; copy \(Human.seconds(smart.copiedSeconds.lowerBound))–\(Human.seconds(smart.copiedSeconds.upperBound))"
                    + (edges.isEmpty ? "" : ", re-encode " + edges.joined(separator: " and "))
            } else if plan.output.mode == .exact {
                text += "; re-encoded"
            } else if let keyframe = times.keyframeSeconds {
                text += "; copied from the keyframe at \(Human.seconds(keyframe))"
            }
            return text
        }
    }

    // MARK: - Shared

    private func notesJSON(_ notes: [MediaWarning]) -> JSON {
        .array(notes.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
    }

    private func seconds(_ micro: Int64) -> Double { Double(micro) / 1e6 }
    /// Back on the microsecond grid (no 3.0333330000000003).
    private func round(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }
    private func microseconds(_ seconds: Double) -> Double { round(seconds) }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
