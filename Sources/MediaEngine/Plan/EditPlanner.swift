/// Puts ranges planned one by one (`CutPlanner`) into one output — one range or many, the same way: pure, so
/// tests build the range plans by hand. Each range keeps its own plan, moved to where it begins on the output's
/// timeline, so its frames follow the range before it without a gap or an overlap; decode times stay in order
/// across each seam. What the whole output holds is decided here once (`OutputPlan`).
enum EditPlanner {
    enum Decision {
        case plan(EditPlan)
        /// Smart was asked but the ranges cannot all be joined smartly: plan every range exactly.
        case replanExact(SmartFallback)
    }

    static func plan(_ plans: [CutPlan], labels: [String?], chapterPolicy: ChapterPolicy, audioSeams: AudioSeams = .nearest,
                     path: String) throws(MediaError) -> Decision {
        var plans = plans
        guard let first = plans.first else {
            throw MediaError(.invalidRange, path: path, operation: "ranges", reason: "no range to keep")
        }
        let requested = first.requestedMode
        if requested == .smart, plans.count > 1, plans.contains(where: { $0.mode == .smart }) {
            if let fallback = plans.lazy.compactMap(\.smartFallback).first { return .replanExact(fallback) }
            if let why = smartMismatch(plans) { return .replanExact(.rangesDiffer(why)) }
            // Ranges re-encoded whole share the copied ranges' sample entry and encoding (its parameter set ids).
            guard let copying = plans.first(where: { $0.smart?.reencodesWhole == false }) else { return .replanExact(.nothingToCopy) }
            for index in plans.indices where plans[index].smart?.reencodesWhole == true {
                plans[index].sampleEntry = copying.sampleEntry
                plans[index].streamConfiguration = copying.streamConfiguration
                plans[index].edgeHeader = copying.edgeHeader
                plans[index].video?.reencoding = copying.video?.reencoding
            }
        }
        let mode = first.mode
        // Copies into MP4/MOV: each range's packets follow the ones before in the media, and an edit per range shows
        // only its own frames.
        let editsPerRange = plans.count > 1 && first.video != nil && first.container.editLists && (mode == .copy || mode == .keyframe)
        if editsPerRange, let entry = first.sampleEntry, plans.contains(where: { $0.sampleEntry != entry }) {
            throw MediaError(.unsupportedContainer, path: path, operation: "join",
                             reason: "the ranges' parameter sets differ, so their copies cannot share one track in \(first.container.formatName)",
                             remedy: .joinSmartOrOtherContainer)
        }

        // Each range's own output timeline shows from `own.start` for `own.length` (in `own.unit` ticks);
        // the join puts it where the one before ends.
        var ranges: [RangePlan] = []
        var nextStart: OutputTicks?
        var nextStartMicro: Int64 = 0
        var edits: [MediaEdit] = []
        var mediaEnd: OutputTicks?
        // Copies into a container without edit lists: where the range before's last packet decodes on the output.
        let copiesWithoutEdits = !first.container.editLists && (mode == .copy || mode == .keyframe)
        var lastDecode: OutputTicks?
        var seamGaps: [CutNotice] = []
        for (index, original) in plans.enumerated() {
            var plan = original
            let own = rangeSpan(plan)
            var begins = nextStart ?? own.start
            if copiesWithoutEdits, let video = plan.video, let previous = lastDecode {
                // Decode times rise across the seam: a keyframe decoding (its reorder delay early) at or before the
                // range before's last packet moves the range later, leaving a gap the plan reports.
                let firstDecode = video.output(video.keyframeDecodeTime).plus(begins.minus(own.start))
                if firstDecode <= previous {
                    let late = previous.minus(firstDecode).plus(1)
                    let lateMicro = Rescale.ticks(late, from: own.unit, to: Rational(1, 1_000_000))
                    begins = begins.plus(late)
                    nextStartMicro = nextStartMicro.plus(lateMicro)
                    seamGaps.append(.joinSeamGap(range: index + 1, seconds: Micro.seconds(lateMicro)))
                }
            }
            let moved = begins.minus(own.start)
            if copiesWithoutEdits, let video = plan.video {
                lastDecode = video.output(video.lastNeeded.dts).plus(moved)
            }
            let movedMicro = Rescale.ticks(moved, from: own.unit, to: Rational(1, 1_000_000))
            if plan.video?.exact != nil {
                plan.video?.exact?.outputStart = OutputTicks.zero.plus(moved)
            } else if editsPerRange, let video = plan.video {
                // In the media, the range's keyframe decodes where the frames written before it end (so decode and
                // presentation times both stay in order); its edit shows from its first frame for its length.
                let placed = mediaEnd.map { $0.minus(video.output(video.keyframe.dts)) } ?? 0
                plan.video?.outputStart = OutputTicks.zero.plus(placed)
                mediaEnd = video.output(video.writtenEnd ?? video.presentedEnd).plus(placed)
                edits.append(MediaEdit(mediaStart: video.output(video.firstShown).plus(placed).value, duration: own.length))
            } else {
                plan.video?.outputStart = OutputTicks.zero.plus(moved)
            }
            plan.companionsZeroOutputMicro = movedMicro
            plan.chapters = plan.chapters.map { chapter in
                var chapter = chapter
                if chapterPolicy == .ranges { chapter.title = labels[safe: index].flatMap { $0 } ?? "Part \(index + 1)" }
                chapter.startMicro = chapter.startMicro.plus(movedMicro)
                chapter.endMicro = chapter.endMicro.plus(movedMicro)
                return chapter
            }
            let startMicro = Rescale.ticks(begins.value, from: own.unit, to: Rational(1, 1_000_000))
            let lengthMicro = Rescale.ticks(own.length, from: own.unit, to: Rational(1, 1_000_000))
            if index == 0 { nextStartMicro = startMicro }
            ranges.append(RangePlan(cut: plan, label: labels[safe: index].flatMap { $0 }, outputStartMicro: nextStartMicro,
                                         durationMicro: lengthMicro))
            nextStart = begins.plus(own.length)
            nextStartMicro = nextStartMicro.plus(lengthMicro)
        }

        // A smart join's re-encoded parts: decode times that rise across every seam (`SeamDecodeTimes`).
        if mode == .smart, ranges.count > 1 {
            guard let delays = SeamDecodeTimes.delays(ranges.map(\.cut)) else {
                return .replanExact(.rangesDiffer(SeamDecodeTimes.problem))
            }
            for (index, delay) in delays.enumerated() {
                ranges[index].cut.video?.headDecodeDelay = delay.head
                ranges[index].cut.video?.tailDecodeDelay = delay.tail
            }
        }

        // The output's own facts (container, kept streams, sample entry, encoder, faststart, metadata) are alike in
        // every range's plan: CutPlanner decides them from the input and the output's name. The timecode is the first
        // range's: where the output starts.
        let facts = ranges[0].cut
        var notices = joinedNotices(ranges.map(\.cut)) + seamGaps
        if copiesWithoutEdits, plans.count > 1 {
            let spans = extraFootage(ranges.map(\.cut))
            if !spans.isEmpty { notices.append(.joinExtraFootage(spans: spans, container: facts.container.formatName)) }
        }
        var video = facts.video.map { video in
            // A smart range's length rides in its `editDuration`; only MP4/MOV write it as an edit.
            OutputVideo(streamIndex: video.streamIndex, codec: video.codec, editTimeBase: video.editTimeBase,
                        editDuration: facts.container.editLists ? video.editDuration : nil, edits: nil)
        }
        if video?.editDuration != nil, let total = nextStart, let firstStart = ranges.first.map({ rangeSpan($0.cut).start }) {
            video?.editDuration = total.minus(firstStart)
        }
        var streams = facts.streams
        if ranges.count > 1, mode == .exact || audioSeams == .exact {
            exactAudio(&streams, notices: &notices, container: facts.container)
        }
        if editsPerRange {
            video?.edits = edits
            notices.append(.multipleEdits(ranges: edits.count, container: facts.container.formatName))
        }
        let output = OutputPlan(requestedMode: requested, mode: mode, smartFallback: first.smartFallback, container: facts.container,
                                streams: streams, sampleEntry: facts.sampleEntry, encoder: facts.encoder, faststart: facts.faststart,
                                chapters: merged(ranges.flatMap(\.cut.chapters)), timecode: facts.timecode, movieMetadata: facts.movieMetadata,
                                video: video, sharesEncoder: mode == .exact && facts.video != nil, notices: notices)
        return .plan(EditPlan(output: output, ranges: ranges))
    }

    /// What each range of a copy join without edit lists shows beyond its own requested range (source seconds): its
    /// lead-in from the keyframe and the frames past its end — footage no range asked for, and footage another
    /// range asked for, which the output then shows twice (`repeated`).
    static func extraFootage(_ plans: [CutPlan]) -> [JoinExtraSpan] {
        let kept = plans.map { ($0.seconds(micro: $0.startMicro), $0.seconds(micro: $0.endMicro)) }
        var spans: [JoinExtraSpan] = []
        for (index, plan) in plans.enumerated() {
            guard let video = plan.video else { continue }
            let shownFrom = plan.seconds(micro: video.micro(video.firstShown)), shownTo = plan.presentedEndSeconds
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

    /// Where a range's own output timeline shows its first frame, and for how long, in `unit` ticks: exact
    /// cuts on their encoder's grid, the rest on the video stream's, audio alone in µs.
    static func rangeSpan(_ plan: CutPlan) -> (start: OutputTicks, length: Int64, unit: Rational) {
        guard let video = plan.video else {
            return (.zero, plan.companionsEndMicro.minus(plan.companionsZeroSourceMicro), Rational(1, 1_000_000))
        }
        if let exact = video.exact { return (.zero, exact.end.minus(exact.zero), exact.timeBase) }
        if plan.mode == .smart, let edit = video.editDuration { return (.zero, edit, video.timeBase) }
        if let edit = video.editDuration { return (video.output(video.firstShown), edit, video.timeBase) }
        return (video.output(video.firstShown), video.presentedEnd.minus(video.firstShown), video.timeBase)
    }

    /// Why smart ranges cannot share one video track: their sample entries (the record every range's samples
    /// refer to) or the decode delay of their first copied keyframes (which keeps decode times in order at
    /// each seam) differ.
    static func smartMismatch(_ plans: [CutPlan]) -> String? {
        let copying = plans.filter { $0.smart?.reencodesWhole != true }
        if let entry = copying.first?.sampleEntry, copying.contains(where: { $0.sampleEntry != entry }) {
            return "the parameter sets differ between ranges"
        }
        if Set(copying.map(\.edgeHeader)).count > 1 {
            return "the sequence headers differ between ranges"
        }
        let delays = Set(copying.compactMap { $0.smart.map { $0.firstCopied.pts.minus($0.firstCopied.dts) } })
        if delays.count > 1 { return "the keyframes' decode delays differ between ranges" }
        return nil
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

    /// Every range's notices once: what is about the input, and the timecode (the output's, from its first
    /// frame), from the first range; the rest as each range says it (identical ones once).
    static func joinedNotices(_ plans: [CutPlan]) -> [CutNotice] {
        var notices: [CutNotice] = []
        for (index, plan) in plans.enumerated() {
            for notice in plan.notices where !(index > 0 && (notice.isAboutTheInput || notice.code == "timecode_kept")) && !notices.contains(notice) {
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
        return notices
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
