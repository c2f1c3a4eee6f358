import Foundation
import MediaEngine

/// What `vtrim serve` asks a worker process (`vtrim _worker`) to do: the engine work on files, so that a
/// file that crashes or hangs the engine costs one request, never the server. One request at a time, as a
/// JSON line on the worker's descriptor 3; replies are JSON lines on descriptor 4 (see `WorkerReply`).
public enum WorkerRequest: Sendable, Codable {
    /// `vtrim probe --json`'s object and the MIME type for the page.
    case probe(path: String)
    /// A filmstrip tile, returned as PNG bytes.
    case tile(path: String, request: FilmstripTile.Request)
    /// The presentation times of the video's frames.
    case frames(path: String)
    /// A cut's plan: the dry run's report and the `PlannedCut` a cut worker executes.
    case plan(path: String, output: String, startSeconds: Double, endSeconds: Double, mode: CutMode, threads: ThreadBudget)
    /// Writes a planned cut (progress lines, then `vtrim cut --json`'s object).
    case cut(PlannedCut)
    /// A join's plan (ranges in seconds, in time order): the dry run's report and the `PlannedJoin`.
    case planJoin(path: String, output: String, ranges: [ServeRange], mode: CutMode, threads: ThreadBudget)
    /// Writes a planned join (progress lines, then `vtrim cut --keep …`'s object).
    case join(PlannedJoin)
    /// A browser-playable preview written to `output` (progress lines).
    case preview(path: String, output: String, threads: Int)

    /// The media file the request is about.
    public var path: String {
        switch self {
        case let .probe(path), let .tile(path, _), let .frames(path), let .plan(path, _, _, _, _, _), let .preview(path, _, _),
             let .planJoin(path, _, _, _, _):
            return path
        case let .cut(planned):
            return planned.path
        case let .join(planned):
            return planned.path
        }
    }
}

/// A range the page keeps: seconds on the clip's timeline, and its label.
public struct ServeRange: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double
    public var label: String?

    public init(start: Double, end: Double, label: String? = nil) {
        self.start = start
        self.end = end
        self.label = label
    }
}

/// The envelope a request travels in.
public struct WorkerEnvelope: Sendable, Codable {
    public var id: Int
    public var request: WorkerRequest

    public init(id: Int, request: WorkerRequest) {
        self.id = id
        self.request = request
    }

    /// One line of compact JSON.
    public func line() throws -> Data {
        var data = try JSONEncoder().encode(self)
        data.append(0x0A)
        return data
    }
}

/// A worker's reply lines, keyed by the request's `id`:
/// - `{"id", "accepted": true}` first, once it has read the request;
/// - `{"id", "progress": fraction}` while a cut or preview runs;
/// - `{"id", "result": object}` when done (`plan` adds `"planned": text`, the `PlannedCut` as JSON text);
/// - `{"id", "failure": object}` when the engine refused (the command line's failure report);
/// - `{"id", "bytes": n}` followed by n raw bytes (a tile's PNG).
public enum WorkerReply {
    public static func accepted(id: Int) -> JSON {
        .object([("id", .int(Int64(id))), ("accepted", .bool(true))])
    }

    public static func progress(id: Int, _ fraction: Double) -> JSON {
        .object([("id", .int(Int64(id))), ("progress", .number(fraction))])
    }

    public static func result(id: Int, _ value: JSON, extra: [(String, JSON)] = []) -> JSON {
        .object([("id", .int(Int64(id))), ("result", value)] + extra)
    }

    public static func failure(id: Int, _ report: JSON) -> JSON {
        .object([("id", .int(Int64(id))), ("failure", report)])
    }

    public static func bytes(id: Int, count: Int) -> JSON {
        .object([("id", .int(Int64(id))), ("bytes", .int(Int64(count)))])
    }
}
