import MediaEngine
import WorkerProtocol

/// A join's report: `segments` (each range on the source's timeline, and where it begins in the output),
/// the output's own `planned`/`actual` span, each seam's audio offset, and the keys a cut's report shares.
struct JoinReport {
    let path: String
    let output: String
    let join: JoinPlan
    let ranges: [CutRange]

    private var planNotes: [MediaWarning] { ranges.flatMap(\.notes) + join.notes.map(\.asWarning) }

    var dryRunFields: [(String, JSON)] {
        [("dry_run", .bool(true))] + common(segments(actual: nil)) + [("notes", notesJSON(planNotes))]
    }

    func fields(run: CutRun, measured: MeasuredRange, frames: [Double]) -> [(String, JSON)] {
        let shift = run.muxerShiftSeconds
        let start = measured.startSeconds.map { round($0 - shift) }, end = measured.endSeconds.map { round($0 - shift) }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        let seams: JSON = .array(run.audioSeamOffsetsSeconds.enumerated().map { seam in
            .object([("index", .int(Int64(seam.offset + 2))), ("offset", .number(round(seam.element)))])
        })
        return common(segments(actual: (frames.map { $0 - shift }, end))) + [
            ("actual", .object([("start", .optional(start)), ("end", .optional(end)),
                                ("duration", .optional(start.flatMap { from in end.map { round($0 - from) } }))])),
            ("audio_seams", seams),
            ("notes", notesJSON(notes)),
        ]
    }

    private func common(_ segments: JSON) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("output", .string(output)),
            ("mode", .string(join.mode.rawValue)),
            ("requested_mode", .string(join.requestedMode.rawValue)),
            ("segments", segments),
            ("planned", .object([("start", .number(0)), ("duration", .number(round(seconds(join.durationMicro))))])),
            ("streams", .array(join.whole.streams.map { stream in
                .object([("index", .int(Int64(stream.index))), ("kind", .string(stream.kind.rawValue)), ("codec", .string(stream.codec))])
            })),
            ("chapters", .array(join.whole.chapters.map { chapter in
                .object([("start", .number(seconds(chapter.startMicro))), ("end", .number(seconds(chapter.endMicro))),
                         ("title", .string(chapter.title))])
            })),
        ]
        fields.append(("timecode", .optional(join.whole.timecode)))
        if let encoder = join.whole.encoder { fields.append(("encoder", .string(encoder))) }
        if join.requestedMode == .smart { fields.append(("smart", .object([("fallback", .optional(join.smartFallback?.code))]))) }
        return fields
    }

    /// Each range: what was asked, what the plan shows of the source, where it begins in the output and —
    /// after writing — what the output shows of it, mapped back to the source's timeline from the frames read.
    private func segments(actual: (frames: [Double], end: Double?)?) -> JSON {
        .array(join.ranges.enumerated().map { index, range in
            let plan = range.plan
            let outputStart = seconds(range.outputStartMicro)
            let outputEnd = outputStart + seconds(range.durationMicro)
            var fields: [(String, JSON)] = [
                ("index", .int(Int64(index + 1))),
                ("label", .optional(range.label)),
                ("requested", ranges[safe: index].map { .object([("start", .number($0.requestedStart)), ("end", .number($0.requestedEnd))]) } ?? .null),
                ("planned", .object([("start", .number(round(plan.presentedStartSeconds))), ("end", .number(round(plan.presentedEndSeconds))),
                                     ("duration", .number(round(plan.presentedEndSeconds - plan.presentedStartSeconds)))])),
                ("output_start", .number(round(outputStart))),
            ]
            if let actual {
                // Output time − where the range was moved + the source time at its own 0 = source time.
                let toSource = plan.sourceOffsetSeconds - seconds(plan.companionsOutputStartMicro)
                let shown = actual.frames.filter { $0 >= outputStart - 0.0015 && $0 < outputEnd - 0.0015 }
                let next = join.ranges.indices.contains(index + 1) ? actual.frames.first { $0 >= outputEnd - 0.0015 } : actual.end
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

    func lines(run: CutRun, measured: MeasuredRange) -> [String] {
        let duration = measured.endSeconds.flatMap { end in measured.startSeconds.map { end - $0 } }
        var lines = ["\(path) → \(output) (\(join.mode.rawValue), \(join.ranges.count == 1 ? "1 range" : "\(join.ranges.count) ranges joined"))" + (duration.map { ": \(Human.seconds($0))" } ?? "")]
        lines += rangeLines
        for (index, offset) in run.audioSeamOffsetsSeconds.enumerated() {
            lines.append("  seam \(index + 1): audio \(offset >= 0 ? "+" : "")\(Human.seconds(offset)) against the video")
        }
        let notes = planNotes + run.notices.filter { !$0.isWarning }.map(\.asWarning)
        return lines + notes.map { "  note: \($0.message)" }
    }

    var dryRunLines: [String] {
        ["\(path) → \(output) (\(join.mode.rawValue), \(join.ranges.count == 1 ? "1 range" : "\(join.ranges.count) ranges joined"), dry run: nothing written): \(Human.seconds(seconds(join.durationMicro)))"]
            + rangeLines + planNotes.map { "  note: \($0.message)" }
    }

    /// One line per range: the source span it shows, where it begins in the output, what is copied and re-encoded.
    private var rangeLines: [String] {
        join.ranges.enumerated().map { index, range in
            let plan = range.plan
            var text = "  range \(index + 1)\(range.label.map { " (\($0))" } ?? ""): \(Human.seconds(plan.presentedStartSeconds))–\(Human.seconds(plan.presentedEndSeconds)) at \(Human.seconds(seconds(range.outputStartMicro)))"
            if plan.smart?.reencodesWhole == true {
                text += "; re-encoded whole (no group of pictures to copy)"
            } else if let smart = plan.smartSummary {
                let edges = [smart.headSeconds, smart.tailSeconds].compactMap { $0 }.map { "\(Human.seconds($0.lowerBound))–\(Human.seconds($0.upperBound))" }
                text += "; copy \(Human.seconds(smart.copiedSeconds.lowerBound))–\(Human.seconds(smart.copiedSeconds.upperBound))"
                    + (edges.isEmpty ? "" : ", re-encode " + edges.joined(separator: " and "))
            } else if plan.mode == .exact {
                text += "; re-encoded"
            } else if let keyframe = plan.keyframeSeconds {
                text += "; copied from the keyframe at \(Human.seconds(keyframe))"
            }
            return text
        }
    }

    private func notesJSON(_ notes: [MediaWarning]) -> JSON {
        .array(notes.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
    }

    private func seconds(_ micro: Int64) -> Double { Double(micro) / 1e6 }
    /// Back on the microsecond grid (no 3.0333330000000003).
    private func round(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
