/// The ranges a proposal keeps, decided from what the analysis found (pure: a value, nothing read or written).
///
/// Silences and black spans are gaps: what lies outside every gap is content and is always kept, with `pad` more
/// on each side where the gap allows (none before the first content when a gap opens the file, none after the last
/// when one ends it). Snapping moves each seam inside its gap's slack onto the video's clean starts: the range before
/// ends where a clean start begins to be shown and the range after begins at one — with two clean starts in the slack,
/// a smart join copies both sides of the seam; with one, one side. Scenes split the kept ranges at their cuts (ranges
/// back to back). Every time is µs on vtrim's timeline.
public enum ProposalPlanner {
    public struct Settings: Sendable, Equatable {
        public var padMicro: Int64
        public var snapsToCleanStarts: Bool
        /// A scene cut closer than this to a kept range's start or end does not split it (a sliver of the scene before a
        /// gap's pad is no scene of its own).
        public var minSceneMicro: Int64

        public init(padMicro: Int64, snapsToCleanStarts: Bool, minSceneMicro: Int64 = 0) {
            self.padMicro = padMicro
            self.snapsToCleanStarts = snapsToCleanStarts
            self.minSceneMicro = minSceneMicro
        }
    }

    public struct Span: Sendable, Equatable {
        public var startMicro: Int64
        public var endMicro: Int64

        public init(_ startMicro: Int64, _ endMicro: Int64) {
            self.startMicro = startMicro
            self.endMicro = endMicro
        }
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

        public var seamsNeedingEdges: Int { seams - copyOnlySeams }
    }

    public static func plan(_ analysis: ContentAnalysis, settings: Settings) -> Proposal {
        let pad = max(0, settings.padMicro)
        let detectionsEnd = analysis.detections.map(\.endMicro).max() ?? 0
        let duration = max(0, analysis.durationMicro, detectionsEnd)
        let clean = settings.snapsToCleanStarts ? analysis.cleanStarts.filter { $0.micro >= 0 && $0.micro <= duration } : []
        var removals: [Span] = []
        var snapped = 0
        for gap in gaps(analysis.detections, duration: duration) {
            let opensFile = gap.startMicro <= 0, endsFile = gap.endMicro >= duration
            // The slack: from the content before plus its pad to the content after minus its pad.
            let low = opensFile ? 0 : gap.startMicro.plus(pad)
            let high = endsFile ? duration : gap.endMicro.minus(pad)
            guard high > low else { continue }
            var removal = Span(low, high)
            if !clean.isEmpty {
                // A range after the gap begins at the last clean start in the slack; one before it ends where the first
                // one in the slack is first shown. Choices that remove nothing are no choice.
                let starts = clean.filter { $0.micro > low && $0.micro <= high }.map(\.micro)
                let ends = clean.filter { $0.shownFromMicro >= low && $0.shownFromMicro < high }.map(\.shownFromMicro)
                var choices: [Span] = []
                if opensFile {
                    choices = starts.last.map { [Span(0, $0)] } ?? []
                } else if endsFile {
                    choices = ends.first.map { [Span($0, duration)] } ?? []
                } else if let end = ends.first, let start = starts.last, end < start {
                    choices = [Span(end, start)]
                } else {
                    // One clean start in the slack: the side that removes more keeps it.
                    choices = (starts.last.map { [Span(low, $0)] } ?? []) + (ends.first.map { [Span($0, high)] } ?? [])
                    choices.sort { $0.endMicro.minus($0.startMicro) > $1.endMicro.minus($1.startMicro) }
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
        let starts = Set(analysis.cleanStarts.map(\.micro)), ends = Set(analysis.cleanStarts.map(\.shownFromMicro))
        let copyOnly = zip(keep, keep.dropFirst()).filter { ends.contains($0.0.endMicro) && starts.contains($0.1.startMicro) }.count
        return Proposal(keep: keep, remove: complement(keep, duration: duration), seams: max(0, keep.count - 1),
                        copyOnlySeams: copyOnly, snappedSeams: min(snapped, max(0, keep.count - 1)))
    }

    /// Silences and black spans clipped to [0, duration], overlapping ones merged, in time order.
    static func gaps(_ detections: [Detection], duration: Int64) -> [Span] {
        let spans = detections.filter { $0.kind != .scene }
            .map { Span(max(0, $0.startMicro), min(duration, $0.endMicro)) }
            .filter { $0.endMicro > $0.startMicro }
            .sorted { ($0.startMicro, $0.endMicro) < ($1.startMicro, $1.endMicro) }
        var merged: [Span] = []
        for span in spans {
            if let last = merged.last, span.startMicro <= last.endMicro {
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
