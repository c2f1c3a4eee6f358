import Foundation
import LibraryFiles
import MediaEngine
import TimelineCore

/// The ranges `vtrim cut` keeps and joins into one file (`--keep`, `--remove`, `--list … --join`).
public struct JoinRanges: Sendable {
    public var ranges: [CutSegment]
    /// The ranges are what to remove: the join keeps the rest.
    public var removes: Bool
    /// Said with the first range (where the ranges came from: a proposal, and what its analysis warned of).
    public var notes: [MediaWarning] = []
    public var warnings: [MediaWarning] = []

    public init(ranges: [CutSegment], removes: Bool) {
        self.ranges = ranges
        self.removes = removes
    }

    /// The ranges a proposal keeps, with a note of where they came from and what their seams will need.
    public init(proposal made: MadeProposal, request: ProposeRequest) {
        ranges = made.proposal.keep.enumerated().map { index, span in
            var segment = CutSegment(start: .seconds(Double(span.startMicro) / 1e6), end: .seconds(Double(span.endMicro) / 1e6), lengthSeconds: nil)
            segment.source = "proposed range \(index + 1)"
            return segment
        }
        removes = false
        let proposal = made.proposal
        notes = [MediaWarning(code: "proposed", message: "\(proposal.keep.count) range\(proposal.keep.count == 1 ? "" : "s") proposed from \(request.kindsText); "
            + "\(proposal.seams) seam\(proposal.seams == 1 ? "" : "s"): \(proposal.copyOnlySeams) copy-only (\(proposal.snappedSeams) snapped onto keyframes), "
            + "\(proposal.seamsNeedingEdges) need an edge encode")] + made.notes.map { MediaWarning(code: "proposed", message: $0) }
        // The probe's own warnings come with the cut's source; the analysis's (damaged frames) are the proposal's.
        warnings = made.analysis.warnings.filter { !made.info.warnings.contains($0) }
    }

    /// `A..B`, any time syntax on either side (`1:02..end-5`).
    public static func parse(_ text: String) -> CutSegment? {
        guard let separator = text.range(of: "..") else { return nil }
        let startText = String(text[..<separator.lowerBound]), endText = String(text[separator.upperBound...])
        guard let start = try? TimeSpec(parsing: startText.isEmpty ? "0" : startText),
              let end = try? TimeSpec(parsing: endText.isEmpty ? "end" : endText) else { return nil }
        return CutSegment(start: start, end: end, lengthSeconds: nil)
    }

    /// Why `text` is not a range `parse` reads: no `..`, or which side is not a time and why (the syntax shown).
    public static func whyNot(_ text: String) -> String {
        guard let separator = text.range(of: "..") else { return "expected A..B, a range of two times (e.g. 1:02..end-5)" }
        for (side, part, empty) in [("start", String(text[..<separator.lowerBound]), "0"), ("end", String(text[separator.upperBound...]), "end")] {
            do { _ = try TimeSpec(parsing: part.isEmpty ? empty : part) } catch { return "its \(side): \(error.description)" }
        }
        return "expected A..B, a range of two times (e.g. 1:02..end-5)"
    }

    /// Why ranges given in absolute times are not in time order or overlap (nil when they are fine); checked
    /// while parsing, before any file is opened.
    public static func orderProblem(_ ranges: [CutSegment]) -> String? {
        var spans: [(Double, Double)] = []
        for range in ranges {
            guard case let .seconds(start) = range.start, case let .seconds(end)? = range.end else { continue }
            guard end > start else { return "the range \(TimeSpecText.describe(range.start))..\(TimeSpecText.describe(range.end ?? range.start)) is empty" }
            spans.append((start, end))
        }
        return orderProblem(spans: spans)
    }

    public static func orderProblem(spans: [(Double, Double)]) -> String? {
        RangeOrder.problem(spans: spans.map { (start: $0.0, end: $0.1) })
    }

    /// The ranges to keep in a file of `duration` seconds: those given, or what removing them leaves.
    func resolve(request: CutRequest, durationSeconds duration: Double, path: String) throws(MediaError) -> [CutRange] {
        func invalid(_ reason: String) -> MediaError { MediaError(.invalidRange, path: path, operation: "ranges", reason: reason) }
        var resolved: [CutRange] = []
        for range in ranges { resolved.append(try CutRange.resolve(range, request: request, durationSeconds: duration, path: path)) }
        if let problem = Self.orderProblem(spans: resolved.map { ($0.effectiveStart, $0.effectiveEnd) }) { throw invalid(problem) }
        guard !resolved.isEmpty || removes else { throw invalid("no range is kept (a proposal that finds nothing but gaps keeps nothing)") }
        if !resolved.isEmpty {
            resolved[0].notes += notes
            resolved[0].warnings += warnings
        }
        guard removes else { return resolved }
        var kept: [CutRange] = []
        var from = 0.0
        for removed in resolved + [CutRange(requestedStart: duration, requestedEnd: duration, effectiveStart: duration, effectiveEnd: duration)] {
            if removed.effectiveStart - from >= 1e-6 {
                kept.append(CutRange(requestedStart: from, requestedEnd: removed.effectiveStart, effectiveStart: from, effectiveEnd: removed.effectiveStart))
            }
            from = max(from, removed.effectiveEnd)
        }
        guard !kept.isEmpty else { throw invalid("removing these ranges leaves nothing of the \(Human.seconds(duration)) file") }
        kept[0].warnings = resolved.flatMap(\.warnings)
        return kept
    }
}
