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
    /// `mode` nil: the default (`EditDefaults`) — the dry run's report (`result`) and the plan a writing worker
    /// executes (`planned`).
    case plan(path: String, output: String, ranges: [ServeRange], shape: EditShape, mode: EditMode, threads: ThreadShare)
    /// Writes a planned edit (`planned` of a `.plan` reply; progress lines, then `vtrim cut --json`'s object).
    case write(plan: JSON)
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
             let .propose(path, _, _):
            return path
        case let .write(plan):
            if case let .string(path)? = plan.member("path") { return path }
            return ""
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

/// How a cut is made (`vtrim cut --mode`).
/// What the page's Propose menu asks for: `silence[=DB],black,scenes[=T]` (as `vtrim cut --propose`), the pad (seconds)
/// and whether seams snap onto clean starts. The worker checks the kinds; the server only their size.
public struct ProposalAsk: Sendable, Codable, Equatable {
    public var kinds: String
    public var padSeconds: Double
    public var snap: Bool

    public init(kinds: String, padSeconds: Double, snap: Bool) {
        self.kinds = kinds
        self.padSeconds = padSeconds
        self.snap = snap
    }
}

public enum EditMode: String, Sendable, Codable, CaseIterable {
    case copy, keyframe, exact, smart
}

/// How an edit's report reads: a cut's keys (`--start/--end`, a cut list's row) or a join's (`--keep`, `--remove`,
/// `--list … --join`, the page's ranges) — the join's even for one range (DESIGN.md).
public enum EditShape: String, Sendable, Codable {
    case cut, join
}

/// What an edit is made with when the user does not say — one rule for the command line, the API and the page.
public enum EditDefaults {
    /// The outputs smart edits are written to (by extension): MP4/MOV, Matroska/WebM and MPEG-TS. A join into one of
    /// them is smart by default (a source whose codec smart cuts do not handle falls back to exact, with a warning).
    public static let smartExtensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "ts", "mts", "m2ts"]

    /// A join is smart wherever smart is available for its output (copy elsewhere); a single cut is a copy.
    public static func mode(joins: Bool, outputName: String) -> EditMode {
        guard joins else { return .copy }
        let ext = (outputName as NSString).pathExtension.lowercased()
        return smartExtensions.contains(ext) ? .smart : .copy
    }

    /// Encoder quality (x264/x265 CRF): smart edges sit beside copied frames, so they are made finer.
    public static func crf(for mode: EditMode) -> Int { mode == .smart ? 16 : 20 }

    /// Encoder speed preset (x264 names).
    public static let preset = "veryfast"
}

/// A worker's share of the machine: `cores` shared by `jobs` jobs at once (the engine divides them between each
/// job's encoder and decoder).
public struct ThreadShare: Sendable, Codable, Equatable {
    public var cores: Int
    public var jobs: Int

    public init(cores: Int, jobs: Int) {
        self.cores = cores
        self.jobs = jobs
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

/// The strip `vtrim thumbs --strip-width … --thumb-size …` lays out (VideoLine's geometry), in points.
public struct VideoLineLayout: Sendable, Hashable, Codable {
    public var stripWidthPoints: Double
    public var thumbWidthPoints: Double
    public var thumbHeightPoints: Double
    public var minDurationSeconds: Double?
    public var maxDurationSeconds: Double?
    public var pixelsPerPoint: Double

    public init(stripWidthPoints: Double, thumbWidthPoints: Double, thumbHeightPoints: Double,
                minDurationSeconds: Double?, maxDurationSeconds: Double?, pixelsPerPoint: Double) {
        self.stripWidthPoints = stripWidthPoints
        self.thumbWidthPoints = thumbWidthPoints
        self.thumbHeightPoints = thumbHeightPoints
        self.minDurationSeconds = minDurationSeconds
        self.maxDurationSeconds = maxDurationSeconds
        self.pixelsPerPoint = pixelsPerPoint
    }
}

/// A piece of a VideoLine strip: cells `first ..< first + count`, for a page that loads only what scrolls into view.
public struct TileRequest: Sendable, Hashable, Codable {
    /// `accurate`: each cell the frame shown at its time; `fast`: the keyframe at or before it (a first
    /// picture while the accurate tile is made).
    public enum Sampling: String, Sendable, Hashable, Codable { case accurate, fast }

    public var layout: VideoLineLayout
    public var first: Int
    public var count: Int
    public var sampling: Sampling
    /// Decoders working on the tile's cells at once.
    public var workers: Int

    public init(layout: VideoLineLayout, first: Int, count: Int, sampling: Sampling = .accurate, workers: Int = 1) {
        self.layout = layout
        self.first = first
        self.count = count
        self.sampling = sampling
        self.workers = workers
    }
}

/// What lists say about the clip they cut: its file name, frame rate, duration and start timecode.
public struct ListClip: Sendable, Codable, Equatable {
    public var name: String
    public var framesPerSecond: Double?
    public var durationSeconds: Double?
    /// `HH:MM:SS:FF` (or `;FF`), the file's own.
    public var startTimecode: String?

    public init(name: String, framesPerSecond: Double?, durationSeconds: Double?, startTimecode: String?) {
        self.name = name
        self.framesPerSecond = framesPerSecond
        self.durationSeconds = durationSeconds
        self.startTimecode = startTimecode
    }
}

/// A list to read (`text`) or ranges to write (`ranges`) in `format` (csv, llc, otio, edl, chapters) for `clip`;
/// `listRate` is the EDL's frame rate where it is not the clip's, `listOrigin` how an EDL's source times count
/// (`timecode`: from the clip's start timecode; `zero`: from 0).
public struct ListRequest: Sendable, Codable, Equatable {
    public var format: String
    public var clip: ListClip
    public var text: String?
    public var ranges: [ServeRange]?
    public var listRate: String?
    public var listOrigin: String?

    /// 100 hours: the longest a timecode counts, and past any clip's length; no list holds a later time.
    public static let maximumSeconds = 360_000.0

    public init(format: String, clip: ListClip, text: String? = nil, ranges: [ServeRange]? = nil, listRate: String? = nil,
                listOrigin: String? = nil) {
        self.format = format
        self.clip = clip
        self.text = text
        self.ranges = ranges
        self.listRate = listRate
        self.listOrigin = listOrigin
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

/// The two ends of a worker: its descriptors and its scratch folder.
public enum WorkerChannel {
    public static let requestDescriptor: Int32 = 3
    public static let replyDescriptor: Int32 = 4

    /// The worker's own scratch folder (tiles are rendered there, then sent as bytes); the server removes
    /// it when the worker dies.
    public static func scratchFolder(pid: Int32) -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("vtrim-worker-\(pid)")
    }
}

/// Writes to a pipe, whole (a pipe takes a large write in parts); false once the reader is gone.
public enum PipeWrite {
    public static func all(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard var pointer = raw.baseAddress else { return true }
            var left = raw.count
            while left > 0 {
                let written = write(descriptor, pointer, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                left -= written
                pointer += written
            }
            return true
        }
    }
}
