/// The ranges a proposal keeps, decided from what the analysis found (pure: a value, nothing read or written).
///
/// Silences and black spans are gaps (two of them with less than `minContent` between — a click — are one): what lies
/// outside every gap is content and is always kept, with `pad` more on each side where the gap allows (none before
/// the first content when a gap opens the file, none after the last when one ends it). Snapping moves each seam inside
/// its gap's slack onto the video's clean starts, by at most `snapWithin`: the range before ends where a clean start
/// begins to be shown and the range after begins at one — with two clean starts in reach, a smart join copies both
/// sides of the seam; with one, one side. Scenes split the kept ranges at their cuts (ranges back to back). A range
/// whose video would show no frame the range before did not (a still or slow picture: no frame starts between them)
/// is merged into it, so the join never holds an empty range. Every time is µs on vtrim's timeline.
public enum ProposalPlanner {
    public struct Settings: Sendable, Equatable {
        public var padMicro: Int64
        public var snapsToCleanStarts: Bool
        /// A scene cut closer than this to a kept range's start or end does not split it (a sliver of the scene before a
        /// gap's pad is no scene of its own).
        public var minSceneMicro: Int64
        /// How far a seam may move from where the pads put it to reach a clean start: the silence (or black) it keeps.
        public var snapWithinMicro: Int64
        /// Content shorter than this between two gaps (a click, a flash) does not split them.
        public var minContentMicro: Int64

        public init(padMicro: Int64, snapsToCleanStarts: Bool, minSceneMicro: Int64 = 0, snapWithinMicro: Int64 = 1_000_000,
                    minContentMicro: Int64 = 100_000) {
            self.padMicro = padMicro
            self.snapsToCleanStarts = snapsToCleanStarts
            self.minSceneMicro = minSceneMicro
            self.snapWithinMicro = snapWithinMicro
            self.minContentMicro = minContentMicro
        }
    }

    public struct Span: Sendable, Equatable {
        public var startMicro: Int64
        public var endMicro: Int64

        public init(_ startMicro: Int64, _ endMicro: Int64) {
            self.startMicro = startMicro
            self.endMicro = endMicro
        }

        var length: Int64 { endMicro.minus(startMicro) }
    }

    public struct Proposal: Sendable, Equatable {
        public var keep: [Span]
        /// The rest of [0, duration): what a join of `keep` leaves out.
        public var remove: [Span]
        /// Joins between consecutive kept ranges.
        public var seams: Int
        /// Seams where the range before ends where a clean start is first shown and the range after begins at one:
        /// a smart join re-encodes nothing there.
        public var copyOnlySeams: Int
        /// Seams moved onto clean starts inside a gap's slack (one or both sides).
        public var snappedSeams: Int
        /// Gaps kept because the ranges around them would show the same frame (a still picture), and their length.
        public var stillGapsKept = 0
        public var stillGapsKeptMicro: Int64 = 0

        public var seamsNeedingEdges: Int { seams - copyOnlySeams }
    }

    public static func plan(_ analysis: ContentAnalysis, settings: Settings) -> Proposal {
        let pad = max(0, settings.padMicro), reach = max(0, settings.snapWithinMicro)
        let detectionsEnd = analysis.detections.map(\.endMicro).max() ?? 0
        let duration = max(0, analysis.durationMicro, detectionsEnd)
        let clean = settings.snapsToCleanStarts ? analysis.cleanStarts.filter { $0.micro >= 0 && $0.micro <= duration } : []
        var removals: [Span] = []
        var snapped = 0
        for gap in gaps(analysis.detections, duration: duration, minContentMicro: settings.minContentMicro) {
            // Less than a click of content before the first gap or after the last (audio that starts a little late) is none.
            let edge = max(0, settings.minContentMicro)
            let opensFile = gap.startMicro <= edge, endsFile = gap.endMicro >= duration.minus(edge)
            // The slack: from the content before plus its pad to the content after minus its pad.
            let low = opensFile ? 0 : gap.startMicro.plus(pad)
            let high = endsFile ? duration : gap.endMicro.minus(pad)
            guard high > low else { continue }
            var removal = Span(low, high)
            if !clean.isEmpty {
                // A range after the gap begins at the last clean start in reach; one before it ends where the first one
                // in reach is first shown. Choices that remove nothing are no choice.
                let starts = clean.filter { $0.micro > low && $0.micro <= high && high.minus($0.micro) <= reach }.map(\.micro)
                let ends = clean.filter { $0.shownFromMicro >= low && $0.shownFromMicro < high && $0.shownFromMicro.minus(low) <= reach }
                    .map(\.shownFromMicro)
                var choices: [Span] = []
                if opensFile {
                    choices = starts.last.map { [Span(0, $0)] } ?? []
                } else if endsFile {
                    choices = ends.first.map { [Span($0, duration)] } ?? []
                } else if let end = ends.first, let start = starts.last, end < start {
                    choices = [Span(end, start)]
                } else {
                    // One clean start in reach: the side that removes more keeps it.
                    choices = (starts.last.map { [Span(low, $0)] } ?? []) + (ends.first.map { [Span($0, high)] } ?? [])
                    choices.sort { $0.length > $1.length }
                }
                if let chosen = choices.first {
                    removal = chosen
                    if !opensFile, !endsFile { snapped += 1 }
                }
            }
            if removal.endMicro > removal.startMicro { removals.append(removal) }
        }
        var keep = complement(removals, duration: duration)
        let cuts = analysis.detections.filter { $0.kind == .scene && $0.measure != nil }.map(\.startMicro).sorted()
        keep = keep.flatMap { range -> [Span] in
            let shortest = max(1, settings.minSceneMicro)
            let inside = cuts.filter { $0.minus(range.startMicro) >= shortest && range.endMicro.minus($0) >= shortest }
            let bounds = [range.startMicro] + inside + [range.endMicro]
            return zip(bounds, bounds.dropFirst()).map { Span($0, $1) }
        }
        let still = mergingStillRanges(keep, frameStarts: analysis.frameStartsMicro)
        keep = still.ranges
        let starts = Set(analysis.cleanStarts.map(\.micro)), ends = Set(analysis.cleanStarts.map(\.shownFromMicro))
        let copyOnly = zip(keep, keep.dropFirst()).filter { ends.contains($0.0.endMicro) && starts.contains($0.1.startMicro) }.count
        return Proposal(keep: keep, remove: complement(keep, duration: duration), seams: max(0, keep.count - 1),
                        copyOnlySeams: copyOnly, snappedSeams: min(snapped, max(0, keep.count - 1)),
                        stillGapsKept: still.merged, stillGapsKeptMicro: still.keptMicro)
    }

    /// A join shows each range from the first frame the range before did not show: a range in which no frame starts
    /// after the range before ends would be empty, so it joins the range before (what lies between is kept).
    static func mergingStillRanges(_ keep: [Span], frameStarts: [Int64]) -> (ranges: [Span], merged: Int, keptMicro: Int64) {
        guard !frameStarts.isEmpty else { return (keep, 0, 0) }
        var ranges: [Span] = [], merged = 0, kept: Int64 = 0
        for range in keep {
            if let last = ranges.last, !hasFrameStart(frameStarts, from: last.endMicro, before: range.endMicro) {
                merged += 1
                kept = kept.plus(range.startMicro.minus(last.endMicro))
                ranges[ranges.count - 1].endMicro = range.endMicro
            } else {
                ranges.append(range)
            }
        }
        return (ranges, merged, kept)
    }

    /// Whether a time of `sorted` lies in [from, before).
    static func hasFrameStart(_ sorted: [Int64], from: Int64, before: Int64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = low + (high - low) / 2
            if sorted[middle] < from { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] < before
    }

    /// Silences and black spans clipped to [0, duration], overlapping ones (or ones less than `minContentMicro` apart)
    /// merged, in time order.
    static func gaps(_ detections: [Detection], duration: Int64, minContentMicro: Int64 = 0) -> [Span] {
        let spans = detections.filter { $0.kind != .scene }
            .map { Span(max(0, $0.startMicro), min(duration, $0.endMicro)) }
            .filter { $0.endMicro > $0.startMicro }
            .sorted { ($0.startMicro, $0.endMicro) < ($1.startMicro, $1.endMicro) }
        var merged: [Span] = []
        for span in spans {
            if let last = merged.last, span.startMicro.minus(last.endMicro) < max(1, minContentMicro) {
                merged[merged.count - 1].endMicro = max(last.endMicro, span.endMicro)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// [0, duration) less `spans` (sorted, disjoint).
    static func complement(_ spans: [Span], duration: Int64) -> [Span] {
        var result: [Span] = []
        var from: Int64 = 0
        for span in spans.sorted(by: { $0.startMicro < $1.startMicro }) {
            if span.startMicro > from { result.append(Span(from, span.startMicro)) }
            from = max(from, span.endMicro)
        }
        if duration > from { result.append(Span(from, duration)) }
        return result
    }
}
