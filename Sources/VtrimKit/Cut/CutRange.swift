import Foundation
import MediaEngine
import TimelineCore
import WorkerProtocol

/// The requested range resolved against one file: `end` past the file clamped (with a warning),
/// then the optional length limits checked, or applied with `--clamp`.
struct CutRange: Sendable, Codable {
    var requestedStart: Double
    var requestedEnd: Double
    var effectiveStart: Double
    var effectiveEnd: Double
    /// `{code, message}` notes (`range_clamped` from `--clamp`).
    var notes: [MediaWarning] = []
    var warnings: [MediaWarning] = []

    var requestedJSON: JSON { .object([("start", .number(requestedStart)), ("end", .number(requestedEnd))]) }

    // In a plan, empty notes and warnings are left out: a 400-range plan carries 400 of each.
    private enum CodingKeys: String, CodingKey { case requestedStart, requestedEnd, effectiveStart, effectiveEnd, notes, warnings }

    init(requestedStart: Double, requestedEnd: Double, effectiveStart: Double, effectiveEnd: Double) {
        self.requestedStart = requestedStart
        self.requestedEnd = requestedEnd
        self.effectiveStart = effectiveStart
        self.effectiveEnd = effectiveEnd
    }

    init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestedStart = try container.decode(Double.self, forKey: .requestedStart)
        requestedEnd = try container.decode(Double.self, forKey: .requestedEnd)
        effectiveStart = try container.decode(Double.self, forKey: .effectiveStart)
        effectiveEnd = try container.decode(Double.self, forKey: .effectiveEnd)
        notes = try container.decodeIfPresent([MediaWarning].self, forKey: .notes) ?? []
        warnings = try container.decodeIfPresent([MediaWarning].self, forKey: .warnings) ?? []
    }

    func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestedStart, forKey: .requestedStart)
        try container.encode(requestedEnd, forKey: .requestedEnd)
        try container.encode(effectiveStart, forKey: .effectiveStart)
        try container.encode(effectiveEnd, forKey: .effectiveEnd)
        if !notes.isEmpty { try container.encode(notes, forKey: .notes) }
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
    }

    static func resolve(_ segment: CutSegment, request: CutRequest, durationSeconds duration: Double, path: String) throws(MediaError) -> CutRange {
        // Messages name the range as the user gave it: `--keep 2..3.5: …`, or the `--start`/`--end` flags.
        let named = segment.source.map { $0 + ": " } ?? ""
        func invalid(_ reason: String) -> MediaError { MediaError(.invalidRange, path: path, operation: "range", reason: named + reason) }
        guard duration > 0 else { throw invalid("the file has no duration to cut") }
        let start: TimeResolution
        do { start = try segment.start.resolution(durationSeconds: duration) } catch { throw invalid(error.description) }
        var end: Double
        if let spec = segment.end {
            do { end = try spec.resolve(durationSeconds: duration) } catch { throw invalid(error.description) }
        } else {
            end = start.seconds + (segment.lengthSeconds ?? 0)
        }
        guard start.seconds.isFinite, end.isFinite else { throw invalid("its times are not finite") }
        var range = CutRange(requestedStart: start.seconds, requestedEnd: end, effectiveStart: start.seconds, effectiveEnd: end)
        if start.wasClampedToStart {
            let what = segment.source == nil ? "--start is before" : "starts before"
            range.warnings.append(MediaWarning(code: "start_clamped", message: named + "\(what) the beginning of the \(Human.seconds(duration)) file; cutting from 0"))
        }
        guard start.seconds < duration else {
            throw invalid(segment.source == nil ? "--start \(Human.seconds(start.seconds)) is at or past the end of the file (\(Human.seconds(duration)))"
                                                : "starts at or past the end of the file (\(Human.seconds(duration)))")
        }
        guard end > start.seconds else {
            throw invalid("the range \(Human.seconds(start.seconds))–\(Human.seconds(end)) is empty" + (segment.source == nil ? "; --end must be after --start" : ""))
        }
        if end > duration {
            let what = segment.source == nil ? "--end \(Human.seconds(end)) is past" : "ends at \(Human.seconds(end)), past"
            range.warnings.append(MediaWarning(code: "end_clamped", message: named + "\(what) the end of the file; cutting to its end, \(Human.seconds(duration))"))
            end = duration
            range.effectiveEnd = duration
        }
        let minimum = request.minDurationSeconds, maximum = request.maxDurationSeconds
        guard minimum != nil || maximum != nil else { return range }
        do {
            let violations = try CutRangeClamp.violations(startSeconds: start.seconds, endSeconds: end, durationSeconds: duration,
                                                          minLengthSeconds: minimum, maxLengthSeconds: maximum)
            guard !violations.isEmpty else { return range }
            guard request.clamp else { throw invalid(violations.map(\.description).joined(separator: "; ") + " (use --clamp to adjust the range)") }
            let clamped = try CutRangeClamp.clamp(startSeconds: start.seconds, endSeconds: end, durationSeconds: duration,
                                                  minLengthSeconds: minimum, maxLengthSeconds: maximum)
            range.effectiveStart = clamped.startSeconds
            range.effectiveEnd = clamped.endSeconds
            range.notes += clamped.notes.map { MediaWarning(code: "range_clamped", message: "--clamp: \($0.description)") }
            return range
        } catch let error as MediaError {
            throw error
        } catch {
            throw invalid("\(error)")
        }
    }
}

