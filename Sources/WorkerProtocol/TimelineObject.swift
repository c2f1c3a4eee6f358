import TimelineCore

/// `vtrim timeline` options: the control's geometry and an optional preset selection.
public struct TimelineRequest: Sendable {
    public var stripWidthPoints: Double
    public var thumbWidthPoints: Double
    public var thumbHeightPoints: Double
    public var minDurationSeconds: Double?
    public var maxDurationSeconds: Double?
    public var start: TimeSpec?
    public var end: TimeSpec?
    /// Operations replayed on the state after the preset selection (slider drags, scrolls), as a UI did them.
    public var operations: [TimelineOperation]
    /// More cells than this is refused (`too_large`) before they are listed (`vtrim serve`'s bound).
    public var maximumCells: Int?

    public init(stripWidthPoints: Double, thumbWidthPoints: Double, thumbHeightPoints: Double,
                minDurationSeconds: Double?, maxDurationSeconds: Double?, start: TimeSpec?, end: TimeSpec?,
                operations: [TimelineOperation] = []) {
        self.operations = operations
        self.stripWidthPoints = stripWidthPoints
        self.thumbWidthPoints = thumbWidthPoints
        self.thumbHeightPoints = thumbHeightPoints
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.start = start
        self.end = end
    }
}

/// The timeline object (`vtrim timeline --json`, `GET /api/clips/{id}/timeline`): the numbers a two-slider
/// trimming control shows for a duration. Pure TimelineCore arithmetic, so the server works it out itself.
public enum TimelineObject {
    /// The object's fields, its human lines and the selection's clamping notes (`selection_clamped` warnings).
    public struct Made: Sendable {
        public var fields: [(String, JSON)]
        public var lines: [String]
        public var warnings: [(code: String, message: String)]
    }

    /// Why there is no timeline: `invalid_range` (a geometry or time TimelineCore refuses) or `too_large`.
    public struct Failure: Error, Sendable {
        public var code: String
        public var operation: String
        public var reason: String
    }

    /// `path`: the file's, or nil for a duration given on its own (the report then carries `duration`).
    public static func make(path: String?, durationSeconds: Double, request: TimelineRequest) -> Result<Made, Failure> {
        var configuration = TimelineConfiguration(durationSeconds: durationSeconds, stripWidthPoints: request.stripWidthPoints,
                                                  thumbnailWidthPoints: request.thumbWidthPoints,
                                                  thumbnailHeightPoints: request.thumbHeightPoints)
        configuration.setLimits(minimumSeconds: request.minDurationSeconds, maximumSeconds: request.maxDurationSeconds)
        let geometry: TimelineGeometry
        do {
            geometry = try TimelineGeometry(configuration: configuration)
        } catch {
            return .failure(Failure(code: "invalid_range", operation: "timeline", reason: error.description))
        }
        if let cap = request.maximumCells, geometry.thumbnailCount > cap {
            return .failure(Failure(code: "too_large", operation: "timeline",
                                    reason: "the strip would have \(geometry.thumbnailCount) cells (at most \(cap)); use a larger max or wider thumbnails"))
        }
        var state = TimelineState(geometry: geometry)
        var notes: [RangeNote] = []
        if request.start != nil || request.end != nil {
            do {
                let start = try request.start?.resolve(durationSeconds: durationSeconds)
                let end = try request.end?.resolve(durationSeconds: durationSeconds)
                let resolvedStart = start ?? ((end ?? geometry.maxEffectiveSeconds) - geometry.maxEffectiveSeconds)
                let resolvedEnd = end ?? (resolvedStart + geometry.maxEffectiveSeconds)
                notes = state.setSelection(startSeconds: resolvedStart, endSeconds: resolvedEnd)
            } catch {
                return .failure(Failure(code: "invalid_range", operation: "time", reason: error.description))
            }
        }
        for operation in request.operations { state.apply(operation) }
        let warnings = notes.map { (code: "selection_clamped", message: $0.description) }
        var fields: [(String, JSON)] = []
        if path == nil { fields.append(("duration", .number(durationSeconds))) }
        fields += [
            ("min_count", .int(Int64(geometry.minCount))),
            ("margin", .number(geometry.marginPoints)),
            ("time_spacing", .number(geometry.timeSpacingSeconds)),
            ("seconds_per_point", .number(geometry.secondsPerPoint)),
            ("thumbnail_count", .int(Int64(geometry.thumbnailCount))),
            ("content_width", .number(geometry.contentWidthPoints)),
            ("window_width", .number(geometry.windowWidthPoints)),
            ("min_duration", .number(geometry.minEffectiveSeconds)),
            ("max_duration", .number(geometry.maxEffectiveSeconds)),
            ("adjustable", .bool(geometry.isAdjustable)),
            ("cells", .array(geometry.cells.map { cell in
                .object([
                    ("index", .int(Int64(cell.index))),
                    ("time", .number(cell.timeSeconds)),
                    ("sample_time", .number(cell.sampleTimeSeconds)),
                    ("x", .number(cell.xPoints)),
                    ("width", .number(cell.widthPoints)),
                ])
            })),
            ("selection", .object([
                ("start", .number(state.startSeconds)),
                ("playhead", .number(state.playheadSeconds)),
                ("end", .number(state.endSeconds)),
                ("duration", .number(state.selectionDurationSeconds)),
                ("window_start", .number(state.windowStartSeconds)),
                ("content_offset", .number(state.contentOffsetPoints)),
                ("left_handle_x", .number(state.leftHandleXPoints)),
                ("right_handle_max_x", .number(state.rightHandleMaxXPoints)),
                ("labels", .object([
                    ("start", .string(state.labels.start)),
                    ("end", .string(state.labels.end)),
                    ("duration", .string(state.labels.duration)),
                ])),
            ])),
        ]
        let lines = [
            "\(path ?? "timeline of a clip"): \(TimeFormatting.exactSeconds(durationSeconds)) s",
            "  strip     \(number(request.stripWidthPoints)) pt: \(geometry.minCount) thumbnails of \(number(request.thumbWidthPoints))x\(number(request.thumbHeightPoints)) pt in the window, margin \(number(geometry.marginPoints)) pt",
            "  spacing   \(number(geometry.timeSpacingSeconds)) s per thumbnail, \(number(geometry.secondsPerPoint)) s per point",
            "  content   \(geometry.thumbnailCount) cells, \(number(geometry.contentWidthPoints)) pt (selection \(number(geometry.minEffectiveSeconds))–\(number(geometry.maxEffectiveSeconds)) s\(geometry.isAdjustable ? "" : ", not adjustable"))",
            "  selection \(state.labels.start)–\(state.labels.end) (\(state.labels.duration) s): \(TimeFormatting.exactSeconds(state.startSeconds)) to \(TimeFormatting.exactSeconds(state.endSeconds)) s",
        ]
        return .success(Made(fields: fields, lines: lines, warnings: warnings))
    }

    private static func number(_ value: Double) -> String { JSON.format((value * 1e6).rounded() / 1e6) }
}

/// Timeline operations as text: `drag-left:120.5` (the left handle's left edge at x points in the view),
/// `drag-right:X`, `move-left:T`, `move-right:T` (seconds), `scroll:T` (window start, seconds),
/// `scroll-content:X` (content offset, points), `playhead:T` — what `vtrim timeline --op` and the page's
/// requests give, so a UI's drags can be replayed through TimelineCore.
public enum TimelineOperationText {
    public static let names = ["drag-left", "drag-right", "move-left", "move-right", "scroll", "scroll-content", "playhead"]

    public static func parse(_ text: String) -> TimelineOperation? {
        let parts = text.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let value = Double(parts[1]), value.isFinite else { return nil }
        switch parts[0] {
        case "drag-left": return .dragLeftHandle(toViewXPoints: value)
        case "drag-right": return .dragRightHandle(toViewXPoints: value)
        case "move-left": return .moveLeftHandle(toSeconds: value)
        case "move-right": return .moveRightHandle(toSeconds: value)
        case "scroll": return .scroll(toWindowStartSeconds: value)
        case "scroll-content": return .scrollContent(toOffsetPoints: value)
        case "playhead": return .setPlayhead(seconds: value)
        default: return nil
        }
    }

    /// A comma-separated list; nil when any element is malformed.
    public static func parseList(_ text: String) -> [TimelineOperation]? {
        var operations: [TimelineOperation] = []
        for item in text.split(separator: ",") {
            guard let operation = parse(String(item)) else { return nil }
            operations.append(operation)
        }
        return operations
    }
}
