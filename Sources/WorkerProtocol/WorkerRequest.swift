import Foundation

/// What `vtrim serve` asks a worker process (`vtrim _worker`) to do: the engine work on files and lists, so that
/// a file or a list that crashes or hangs the engine costs one request, never the server. One request at a time,
/// as a JSON line on the worker's descriptor 3; replies are JSON lines on descriptor 4 (see `WorkerReply`). The
/// values here are the protocol's own: the server links no engine code, and the plans it hands back are opaque
/// JSON values it stores and returns as they are.
public enum WorkerRequest: Sendable, Codable {
    /// `vtrim probe --json`'s object and the MIME type for the page.
    case probe(path: String)
    /// A filmstrip tile, returned as PNG bytes.
    case tile(path: String, request: TileRequest)
    /// The presentation times of the video's frames.
    case frames(path: String)
    /// An edit's plan — one range or several joined (seconds, in time order) into `output`, its report in `shape`;
    /// `mode` nil: the edit's default, which the engine decides (`EditDefaults`) — the dry run's report (`result`) and the plan a writing worker
    /// executes (`planned`).
    case plan(path: String, output: String, ranges: [ServeRange], shape: EditShape, mode: EditMode?, threads: ThreadShare)
    /// Writes a planned edit of the file at `path` (`planned` of a `.plan` reply, as it came; progress lines, then
    /// `vtrim cut --json`'s object).
    case write(path: String, plan: String)
    /// A browser-playable preview written to `output` (progress lines).
    case preview(path: String, output: String, threads: ThreadShare)
    /// A cut list read into ranges: `{ranges: [{start, end, label}]}`, or a failure naming the line.
    case parseList(ListRequest)
    /// Ranges written as a cut list: `{text, file_name}`, or a failure saying why the format cannot hold them.
    case renderList(ListRequest)
    /// `vtrim propose --json`'s object for the clip (progress lines first): detections, the ranges to keep, seams.
    case propose(path: String, ask: ProposalAsk, threads: ThreadShare)

    /// The media file the request is about (a list's clip name for list requests).
    public var path: String {
        switch self {
        case let .probe(path), let .tile(path, _), let .frames(path), let .plan(path, _, _, _, _, _), let .preview(path, _, _),
             let .propose(path, _, _), let .write(path, _):
            return path
        case let .parseList(list), let .renderList(list):
            return list.clip.name
        }
    }

    /// The request's kind, as test switches and logs name it.
    public var kind: String {
        switch self {
        case .probe: "probe"
        case .tile: "tile"
        case .frames: "frames"
        case .plan: "plan"
        case .write: "cut"
        case .preview: "preview"
        case .parseList, .renderList: "list"
        case .propose: "propose"
        }
    }

    /// A cut's plan, which a waiting user clicked for, goes ahead of queued tiles and probes.
    public var isPlan: Bool {
        switch self {
        case .plan: true
        default: false
        }
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
