import Foundation
import LibraryFiles
import TimelineCore
import WorkerProtocol

/// The worker's side of `POST /api/lists/parse` and `/render`: the command line's list readers and writers, so
/// a list that trips them costs one request, never the server.
enum ListRequests {
    /// `{ranges: [{start, end, label}], notes, warnings}`, the ranges in seconds on the clip's timeline.
    static func parse(_ request: ListRequest) -> Result<JSON, CutListError> {
        guard let format = CutListFormat(rawValue: request.format), let text = request.text else {
            return .failure(CutListError(message: "no list to read"))
        }
        let timing: ListTiming
        switch self.timing(request) {
        case let .success(value): timing = value
        case let .failure(error): return .failure(error)
        }
        let duration = request.clip.durationSeconds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? .greatestFiniteMagnitude
        let reading: ListReading
        do {
            reading = try CutLists.read(text, format: format, media: media(request.clip), timing: timing)
        } catch {
            return .failure(CutListError(message: error.description))
        }
        var ranges: [JSON] = []
        for (index, segment) in reading.segments.enumerated() {
            guard let start = try? segment.start.resolve(durationSeconds: duration),
                  let end = try? (segment.end ?? .beforeEnd(0)).resolve(durationSeconds: duration), end > start, start < duration else {
                return .failure(CutListError(message: "range \(index + 1) of the list is empty or past the clip's end"))
            }
            ranges.append(.object([("start", .number(start)), ("end", .number(min(end, duration))), ("label", .optional(segment.label))]))
        }
        return .success(.object([("ranges", .array(ranges)), ("notes", .array(reading.notes.map(JSON.string))),
                                 ("warnings", .array(reading.warnings.map { .object([("code", .string("list_origin")), ("message", .string($0))]) }))]))
    }

    /// `{text, file_name}`: the list, and the name a browser saves it under.
    static func render(_ request: ListRequest) -> Result<JSON, CutListError> {
        guard let format = CutListFormat(rawValue: request.format), let ranges = request.ranges else {
            return .failure(CutListError(message: "no ranges to write"))
        }
        let timing: ListTiming
        switch self.timing(request) {
        case let .success(value): timing = value
        case let .failure(error): return .failure(error)
        }
        do {
            let text = try CutLists.render(ranges.map { ListRange(startSeconds: $0.start, endSeconds: $0.end, label: $0.label) }, format: format,
                                           media: media(request.clip), timing: timing)
            let ext = format == .chapters ? "chapters.txt" : format.rawValue
            return .success(.object([("text", .string(text)), ("file_name", .string(OutputChoice.stemPath(request.clip.name) + ".cuts." + ext))]))
        } catch {
            return .failure(error)
        }
    }

    private static func media(_ clip: ListClip) -> ListMedia {
        ListMedia(path: clip.name, framesPerSecond: clip.framesPerSecond, durationSeconds: clip.durationSeconds, startTimecode: clip.startTimecode)
    }

    private static func timing(_ request: ListRequest) -> Result<ListTiming, CutListError> {
        var timing = ListTiming()
        if let text = request.listRate {
            guard let rate = SMPTERate(text: text) else {
                return .failure(CutListError(message: "list_rate \(text) is not a SMPTE timecode rate (\(SMPTERate.listed))"))
            }
            timing.rate = rate
        }
        if let text = request.listOrigin {
            guard let origin = ListOrigin(rawValue: text) else { return .failure(CutListError(message: "list_origin is auto, timecode or zero")) }
            timing.origin = origin
        }
        return .success(timing)
    }
}
