/// What the whole output holds, decided once from the source and the placed ranges: the video stream, the kept
/// streams and their audio handling, the encoder and its settings, chapters, timecode, metadata and every notice.
/// Pure.
enum OutputPlanner {
    static func output(_ placed: RangePlacement.Placed, drafts: [RangeDraft], edit: EditPlanner.Edit, mode: CutMode,
                       sampleEntry: SampleEntryPlan?, smartHeader: StreamHeader?, stream: OutputVideo?,
                       editsPerRange: Bool) -> OutputPlan {
        let source = edit.source, container = source.container
        var video = stream
        if mode == .smart {
            video?.streamConfiguration = smartHeader?.configuration
            video?.edgeHeader = smartHeader?.units
        }
        // A smart range's length rides in its `editDuration`; only MP4/MOV write it as an edit.
        if container.editLists, placed.ranges.first?.video?.editDuration != nil { video?.editDuration = placed.totalTicks }
        var notices = joinedNotices(drafts.map(\.notices), streams: edit.streamNotices) + placed.seamGaps
        var streams = edit.streams
        if placed.ranges.count > 1, mode == .exact || edit.audioSeams == .exact {
            exactAudio(&streams, notices: &notices, container: container)
        }
        if editsPerRange {
            video?.edits = placed.edits
            notices.append(.multipleEdits(ranges: placed.edits.count, container: container.formatName))
        }
        let (chapters, chapterNotice) = chapters(placed.ranges, source: source, labels: edit.labels)
        var output = OutputPlan(requestedMode: edit.replannedBecause == nil ? source.requestedMode : .smart, mode: mode,
                                smartFallback: edit.replannedBecause ?? drafts.first?.smartFallback, container: container,
                                originMicro: source.originMicro, streams: streams, video: video, sampleEntry: sampleEntry,
                                encoder: source.video.flatMap { ReencodingChoice.encoder($0, mode: mode) },
                                reencoding: source.video.flatMap { ReencodingChoice.make($0, mode: mode, smart: placed.ranges.compactMap(\.smart),
                                                                                           sampleEntry: sampleEntry, facts: source) },
                                threads: source.threads, faststart: source.faststart, chapters: chapters, timecode: nil,
                                movieMetadata: container.editLists ? source.movieMetadata : nil,
                                sharesEncoder: mode == .exact && stream != nil, notices: [])
        if let chapterNotice { notices.append(chapterNotice) }
        let plan = EditPlan(output: output, ranges: placed.ranges)
        if let first = placed.ranges.first, let timecode = timecode(source, startSeconds: plan.times(of: first).presentedStartSeconds) {
            output.timecode = timecode
            notices.append(.timecodeStarts(timecode))
        }
        if !container.editLists, mode == .copy || mode == .keyframe, placed.ranges.count > 1 {
            let spans = extraFootage(plan)
            if !spans.isEmpty { notices.append(.joinExtraFootage(spans: spans, container: container.formatName)) }
        }
        if let why = edit.replannedBecause {
            notices.removeAll { if case .smartFallback = $0 { true } else { false } }
            notices.insert(.smartFallback(why), at: 0)
        }
        output.notices = notices
        return output
    }

    /// The timecode of the first kept frame: the source's start timecode (at the movie's 0) counted on to it, where
    /// the container keeps one.
    static func timecode(_ source: CutFacts, startSeconds: Double) -> String? {
        guard let start = source.startTimecode, source.container.keepsTimecode else { return nil }
        return start.advanced(bySeconds: startSeconds)
    }

    /// The output's chapters: the source's clipped to what each range shows and moved onto the output's timeline
    /// (pieces of one chapter that meet at a seam made one again), one per range (`ranges`, titled by its label), or
    /// none; a container that cannot hold them gets a note instead.
    static func chapters(_ ranges: [RangePlan], source: CutFacts, labels: [String?]) -> ([Chapter], CutNotice?) {
        var chapters: [Chapter] = []
        for (index, range) in ranges.enumerated() {
            let window = range.companions
            switch source.chapterPolicy {
            case .none:
                break
            case .keep:
                chapters += Chapters.clip(source.chapters, windowStartMicro: window.zeroSourceMicro, windowEndMicro: window.endMicro,
                                          outputStartMicro: window.zeroOutputMicro)
            case .ranges where window.endMicro > window.zeroSourceMicro:
                chapters.append(Chapter(startMicro: window.zeroOutputMicro,
                                        endMicro: window.zeroOutputMicro.plus(window.endMicro.minus(window.zeroSourceMicro)),
                                        title: labels[safe: index].flatMap { $0 } ?? "Part \(index + 1)"))
            case .ranges:
                break
            }
        }
        let kept = merged(chapters)
        guard !kept.isEmpty, !source.container.holdsChapters else { return (kept, nil) }
        return ([], .chaptersLeftOut(count: kept.count, container: source.container.formatName))
    }

    /// What each range of a copy join without edit lists shows beyond its own requested range (source seconds): its
    /// lead-in from the keyframe and the frames past its end — footage no range asked for, and footage another
    /// range asked for, which the output then shows twice (`repeated`).
    static func extraFootage(_ plan: EditPlan) -> [JoinExtraSpan] {
        let seconds = plan.output.seconds(micro:)
        let kept = plan.ranges.map { (seconds($0.startMicro), seconds($0.endMicro)) }
        var spans: [JoinExtraSpan] = []
        for (index, range) in plan.ranges.enumerated() where range.video != nil {
            let times = plan.times(of: range)
            let shownFrom = times.presentedStartSeconds, shownTo = times.presentedEndSeconds
            let (start, end) = kept[index]
            for (from, to) in [(shownFrom, min(start, shownTo)), (max(end, shownFrom), shownTo)] where to - from > 0.0005 {
                // Split into what no requested range covers and what another range's request covers (shown twice).
                var pieces = [(from, to)]
                var repeated: [(Double, Double)] = []
                for (keptStart, keptEnd) in kept {
                    pieces = pieces.flatMap { piece -> [(Double, Double)] in
                        guard keptEnd > piece.0, keptStart < piece.1 else { return [piece] }
                        let covered = (max(piece.0, keptStart), min(piece.1, keptEnd))
                        if covered.1 - covered.0 > 0.0005 { repeated.append(covered) }
                        return [(piece.0, keptStart), (keptEnd, piece.1)].filter { $0.1 - $0.0 > 0.0005 }
                    }
                }
                spans += pieces.map { JoinExtraSpan(range: index + 1, fromSeconds: $0.0, toSeconds: $0.1) }
                spans += repeated.map { JoinExtraSpan(range: index + 1, fromSeconds: $0.0, toSeconds: $0.1, repeated: true) }
            }
        }
        return spans
    }

    /// Sample-exact seams: each audio stream re-encoded with its codec's encoder, where the container hides the
    /// encoder's priming (MP4/MOV's edit list) and FFmpeg has an encoder taking the decoder's samples as they are;
    /// elsewhere copied, with a warning.
    static func exactAudio(_ streams: inout [KeptStream], notices: inout [CutNotice], container: ContainerFacts) {
        for index in streams.indices where streams[index].kind == .audio {
            let stream = streams[index]
            if !container.editLists {
                notices.append(.audioSeamsNearest(index: stream.index, codec: stream.codec,
                                                  why: "\(container.formatName) would play the encoder's priming as a delay"))
            } else if let encoder = stream.exactAudioEncoder {
                streams[index].audioEncoder = encoder
                notices.append(.audioReencoded(index: stream.index, codec: stream.codec))
            } else {
                notices.append(.audioSeamsNearest(index: stream.index, codec: stream.codec, why: "no encoder takes its format as it is"))
            }
        }
    }

    /// Chapters in time order; pieces of one chapter that meet at a seam become one again.
    static func merged(_ chapters: [Chapter]) -> [Chapter] {
        var result: [Chapter] = []
        for chapter in chapters.sorted(by: { $0.startMicro < $1.startMicro }) {
            if var last = result.last, last.title == chapter.title, abs(chapter.startMicro.minus(last.endMicro)) <= 1000 {
                last.endMicro = chapter.endMicro
                result[result.count - 1] = last
            } else {
                result.append(chapter)
            }
        }
        return result
    }

    /// Every range's notices once (identical ones once), what truncation says first, then the kept streams' notes.
    static func joinedNotices(_ ranges: [[CutNotice]], streams: [CutNotice]) -> [CutNotice] {
        var notices: [CutNotice] = []
        for range in ranges {
            for notice in range where !notices.contains(notice) {
                notices.append(notice)
            }
        }
        // One message per cause: a truncated input is told once, by the range it cuts short where one does.
        let truncation = notices.last { if case .pastReadableEnd = $0 { true } else { false } } ?? notices.first { if case .truncatedAfterRange = $0 { true } else { false } }
        notices.removeAll { notice in
            switch notice {
            case .pastReadableEnd, .truncatedAfterRange: notice != truncation
            default: false
            }
        }
        return (truncation.map { [$0] } ?? []) + streams + notices.filter { $0 != truncation }
    }
}
