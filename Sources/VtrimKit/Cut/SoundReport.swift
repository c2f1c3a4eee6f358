import MediaEngine
import WorkerProtocol

/// A cut of sound's report: what was asked, the ranges in samples, how the sound was written (copied with the
/// container's signalling, or encoded again), what FFmpeg 5.1 will decode from it (planned, and counted in the written
/// file), and the notes. A dry run has no `actual`.
struct SoundReport {
    let path: String
    let output: String
    let plan: SoundPlan
    let ranges: [CutRange]
    let shape: EditShape
    let listRow: PlannedEdit.ListRow?

    /// What ran: copied, only the seams encoded again (smart), or everything decoded and encoded again (exact).
    private var mode: String {
        switch plan.method {
        case .copy: "copy"
        case .seams: "smart"
        case .reencode: "exact"
        }
    }

    private var rate: Double { Double(max(1, plan.sampleRate)) }
    private func seconds(_ samples: Int64) -> Double { (Double(samples) / rate * 1e6).rounded() / 1e6 }
    /// A source sample as the container's seconds (the origin of `--start`).
    private func sourceSeconds(_ sample: Int64) -> Double { seconds(sample.subtractingReportingOverflow(plan.originSample).partialValue) }

    private var notes: [MediaWarning] {
        ranges.flatMap(\.notes) + plan.notices.filter { !$0.isWarning }.map { MediaWarning(code: $0.code, message: $0.message) }
    }

    func fields(readBack: SoundReadBack?) -> [(String, JSON)] {
        var fields: [(String, JSON)] = readBack == nil ? [("dry_run", .bool(true))] : []
        fields.append(("output", .string(output)))
        fields.append(("mode", .string(mode)))
        if shape == .cut, let range = ranges.first {
            fields.append(("requested", range.requestedJSON))
            fields.append(("effective", .object([("start", .number(range.effectiveStart)), ("end", .number(range.effectiveEnd))])))
        } else {
            fields.append(("segments", .array(segments)))
        }
        let first = plan.ranges.first?.start ?? 0, last = plan.ranges.last?.end ?? 0
        fields.append(("planned", .object([
            ("start", .number(sourceSeconds(first))), ("end", .number(sourceSeconds(last))),
            ("duration", .number(seconds(plan.plannedSamples))), ("samples", .int(plan.plannedSamples)),
        ])))
        fields.append(("sound", soundJSON))
        fields.append(("chapters", .array(plan.chapters.map { chapter in
            .object([("start", .number(Double(chapter.startMicro) / 1e6)), ("end", .number(Double(chapter.endMicro) / 1e6)), ("title", .string(chapter.title))])
        })))
        if let readBack {
            // What FFmpeg decodes from the written file: its first sample is the range's (or `ffmpeg.start_error_samples` off).
            // A join's span is the output's own timeline.
            let start = shape == .join ? seconds(plan.decodedStartErrorSamples)
                : sourceSeconds(first.addingReportingOverflow(plan.decodedStartErrorSamples).partialValue)
            fields.append(("actual", .object([
                ("start", .number(start)), ("end", .number(((start + seconds(readBack.decodedSamples)) * 1e6).rounded() / 1e6)),
                ("duration", .number(seconds(readBack.decodedSamples))), ("samples", .int(readBack.decodedSamples)),
            ])))
        }
        fields.append(("notes", .array(notes.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })))
        return fields + (listRow?.fields ?? [])
    }

    /// `{codec, sample_rate, container, method, signal, encoder, preroll_samples, padding_samples, ffmpeg: {start_error_samples, samples}}`.
    private var soundJSON: JSON {
        var fields: [(String, JSON)] = [("codec", .string(plan.codec)), ("sample_rate", .int(Int64(plan.sampleRate))),
                                        ("container", .string(plan.container.rawValue))]
        switch plan.method {
        case let .copy(copy):
            fields += [("method", .string("copy")), ("signal", .string(copy.signal.rawValue)), ("encoder", .null),
                       ("preroll_samples", .int(copy.skipStart)), ("padding_samples", .int(copy.skipEnd))]
        case let .seams(seams):
            fields += [("method", .string("seams")), ("signal", .string("edit_list")), ("encoder", .string(seams.encoder)),
                       ("preroll_samples", .int(seams.prerollSamples)), ("padding_samples", .int(seams.paddingSamples)),
                       ("seams", .array(seamsJSON(seams)))]
        case let .reencode(reencode):
            fields += [("method", .string("reencode")), ("signal", .null), ("encoder", .string(reencode.encoder)), ("why", .string(reencode.why.rawValue))]
        }
        fields.append(("ffmpeg", .object([("start_error_samples", .int(plan.decodedStartErrorSamples)), ("samples", .int(plan.decodedSamples))])))
        return .object(fields)
    }

    /// Each seam of a seam-only join: where it is on the output, how far it moved, and the window encoded again (seconds).
    private func seamsJSON(_ seams: SoundSeams) -> [JSON] {
        seams.pieces.compactMap { piece -> JSON? in
            guard case let .encode(window) = piece else { return nil }
            let shift = seams.shifts[safe: window.seam - 1] ?? 0
            return .object([("output", .number(seconds(seams.outputStarts[window.seam]))), ("shift_samples", .int(shift)),
                            ("window", .array([.number(seconds(window.outputStart)), .number(seconds(window.affectedEnd(frame: seams.frame)))]))])
        }
    }

    /// A join's ranges: each on the source's timeline and where it begins in the output.
    private var segments: [JSON] {
        var at: Int64 = 0
        let moved: [Int64]? = if case let .seams(seams) = plan.method { seams.outputStarts } else { nil }
        return plan.ranges.enumerated().map { index, range in
            defer { at = at.addingReportingOverflow(range.count).partialValue }
            return .object([("index", .int(Int64(index + 1))), ("start", .number(sourceSeconds(range.start))), ("end", .number(sourceSeconds(range.end))),
                            ("output_start", .number(seconds(moved?[safe: index] ?? at))), ("samples", .int(range.count))])
        }
    }

    func lines(readBack: SoundReadBack?) -> [String] {
        let how = mode
        var head = "\(path) → \(output) (\(how)\(readBack == nil ? ", dry run: nothing written" : "")"
        if shape == .join {
            head += ", \(plan.ranges.count) ranges joined): \(Human.seconds(seconds(plan.plannedSamples)))"
        } else {
            head += "): \(Human.seconds(sourceSeconds(plan.ranges.first?.start ?? 0))) to \(Human.seconds(sourceSeconds(plan.ranges.last?.end ?? 0)))"
        }
        head += ", \(plan.plannedSamples) samples at \(plan.sampleRate) Hz"
        if let readBack { head += "; FFmpeg decodes \(readBack.decodedSamples)" }
        return [head] + notes.map { "  note: \($0.message)" }
    }
}
