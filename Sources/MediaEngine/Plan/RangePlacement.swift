/// Each range moved to where the one before it ends on the output's timeline. Pure.
enum RangePlacement {
    struct Placed {
        var ranges: [RangePlan]
        /// A copy join into MP4/MOV: one edit per range.
        var edits: [MediaEdit] = []
        /// Copies without edit lists: ranges moved later so decode times rise across their seam.
        var seamGaps: [CutNotice] = []
        /// How long the ranges show together (ticks of the video's edit grid), from the first range's own start.
        var totalTicks: Int64?
    }

    /// `editsPerRange`: a copy join into MP4/MOV, where each range's packets follow the ones before in the media and
    /// an edit per range shows only its own frames.
    static func place(_ ranges: [RangePlan], stream: OutputVideo?, mode: CutMode, container: ContainerFacts, editsPerRange: Bool,
                      labels: [String?]) -> Placed {
        var placed = Placed(ranges: [])
        var nextStart: OutputTicks?
        var nextStartMicro: Int64 = 0
        var mediaEnd: OutputTicks?
        // Copies into a container without edit lists: where the range before's last packet decodes on the output.
        let copiesWithoutEdits = !container.editLists && (mode == .copy || mode == .keyframe)
        var lastDecode: OutputTicks?
        for (index, original) in ranges.enumerated() {
            var range = original
            range.label = labels[safe: index].flatMap { $0 }
            let own = span(range, stream: stream, mode: mode)
            var begins = nextStart ?? own.start
            if copiesWithoutEdits, let video = range.video, let previous = lastDecode {
                // Decode times rise across the seam: a keyframe decoding (its reorder delay early) at or before the
                // range before's last packet moves the range later, leaving a gap the plan reports.
                let firstDecode = video.output(video.keyframeDecodeTime(decodeDelayFrames: stream?.decodeDelayFrames ?? 0))
                    .plus(begins.minus(own.start))
                if firstDecode <= previous {
                    let late = previous.minus(firstDecode).plus(1)
                    let lateMicro = Rescale.ticks(late, from: own.unit, to: Rational(1, 1_000_000))
                    begins = begins.plus(late)
                    nextStartMicro = nextStartMicro.plus(lateMicro)
                    placed.seamGaps.append(.joinSeamGap(range: index + 1, seconds: Micro.seconds(lateMicro)))
                }
            }
            let moved = begins.minus(own.start)
            if copiesWithoutEdits, let video = range.video {
                lastDecode = video.output(video.lastNeeded.dts).plus(moved)
            }
            if range.video?.exact != nil {
                range.video?.exact?.outputStart = OutputTicks.zero.plus(moved)
            } else if editsPerRange, let video = range.video {
                // In the media, the range's keyframe decodes where the frames written before it end (so decode and
                // presentation times both stay in order); its edit shows from its first frame for its length.
                let shifted = mediaEnd.map { $0.minus(video.output(video.keyframe.dts)) } ?? 0
                range.video?.outputStart = OutputTicks.zero.plus(shifted)
                mediaEnd = video.output(video.writtenEnd ?? video.presentedEnd).plus(shifted)
                placed.edits.append(MediaEdit(mediaStart: video.output(video.firstShown).plus(shifted).value, duration: own.length))
            } else {
                range.video?.outputStart = OutputTicks.zero.plus(moved)
            }
            range.companions.zeroOutputMicro = Rescale.ticks(moved, from: own.unit, to: Rational(1, 1_000_000))
            let lengthMicro = Rescale.ticks(own.length, from: own.unit, to: Rational(1, 1_000_000))
            if index == 0 { nextStartMicro = Rescale.ticks(begins.value, from: own.unit, to: Rational(1, 1_000_000)) }
            range.outputStartMicro = nextStartMicro
            range.durationMicro = lengthMicro
            placed.ranges.append(range)
            nextStart = begins.plus(own.length)
            nextStartMicro = nextStartMicro.plus(lengthMicro)
        }
        if let total = nextStart, let first = ranges.first { placed.totalTicks = total.minus(span(first, stream: stream, mode: mode).start) }
        return placed
    }

    /// Where a range's own output timeline shows its first frame, and for how long, in `unit` ticks: exact
    /// cuts on their encoder's grid, the rest on the video stream's, audio alone in µs.
    static func span(_ range: RangePlan, stream: OutputVideo?, mode: CutMode) -> (start: OutputTicks, length: Int64, unit: Rational) {
        guard let video = range.video, let stream else {
            return (.zero, range.companions.endMicro.minus(range.companions.zeroSourceMicro), Rational(1, 1_000_000))
        }
        if let exact = video.exact { return (.zero, exact.end.minus(exact.zero), stream.exactTimeBase ?? stream.timeBase) }
        if mode == .smart, let edit = video.editDuration { return (.zero, edit, stream.timeBase) }
        if let edit = video.editDuration { return (video.output(video.firstShown), edit, stream.timeBase) }
        return (video.output(video.firstShown), video.presentedEnd.minus(video.firstShown), stream.timeBase)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
