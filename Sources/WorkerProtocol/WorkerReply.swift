import Foundation

/// A worker's reply line, keyed by the request's `id` — one type both ends read and write (`line()` and
/// `init(line:)`):
/// - `accepted` first, once it has read the request;
/// - `progress` (a fraction) while a cut or preview runs;
/// - `result` when done (a `.plan` adds `planned`: the plan's own JSON text, opaque to the server, which hands it back
///   as it is to the worker that writes it; a `.probe` adds `mime`);
/// - `failure` when the engine refused (the command line's failure report);
/// - `bytes`: a count of raw bytes that follow the line (a tile's PNG).
/// Results are the reports the API shows, so a line is read with the parser that keeps their members' order.
public struct WorkerReply: Sendable, Equatable {
    public var id: Int
    public var accepted = false
    public var progress: Double?
    public var result: JSON?
    public var failure: JSON?
    public var bytes: Int?
    public var planned: String?
    public var mime: String?

    public static func accepted(id: Int) -> WorkerReply { WorkerReply(id: id, accepted: true) }
    public static func progress(id: Int, _ fraction: Double) -> WorkerReply { WorkerReply(id: id, progress: fraction) }
    public static func result(id: Int, _ value: JSON, planned: String? = nil, mime: String? = nil) -> WorkerReply {
        WorkerReply(id: id, result: value, planned: planned, mime: mime)
    }
    public static func failure(id: Int, _ report: JSON) -> WorkerReply { WorkerReply(id: id, failure: report) }
    public static func bytes(id: Int, count: Int) -> WorkerReply { WorkerReply(id: id, bytes: count) }

    /// One line of JSON, newline included.
    public func line() -> Data {
        var members: [(String, JSON)] = [("id", .int(Int64(id)))]
        if accepted { members.append(("accepted", .bool(true))) }
        if let progress { members.append(("progress", .number(progress))) }
        if let result { members.append(("result", result)) }
        if let failure { members.append(("failure", failure)) }
        if let bytes { members.append(("bytes", .int(Int64(bytes)))) }
        if let planned { members.append(("planned", .string(planned))) }
        if let mime { members.append(("mime", .string(mime))) }
        return Data((JSON.object(members).serialized + "\n").utf8)
    }

    /// A line `line()` wrote; nil for anything else (a worker that misbehaves).
    public init?(line: Data) {
        guard let message = try? JSON(parsing: String(decoding: line, as: UTF8.self)), case let .int(id)? = message.member("id"),
              let id = Int(exactly: id) else { return nil }
        self.id = id
        accepted = message.member("accepted") == .bool(true)
        progress = message.member("progress")?.doubleValue
        result = message.member("result")
        failure = message.member("failure")
        if case let .int(count)? = message.member("bytes") { bytes = Int(exactly: count) ?? -1 }
        if case let .string(text)? = message.member("planned") { planned = text }
        if case let .string(text)? = message.member("mime") { mime = text }
    }

    init(id: Int, accepted: Bool = false, progress: Double? = nil, result: JSON? = nil, failure: JSON? = nil, bytes: Int? = nil,
         planned: String? = nil, mime: String? = nil) {
        self.id = id
        self.accepted = accepted
        self.progress = progress
        self.result = result
        self.failure = failure
        self.bytes = bytes
        self.planned = planned
        self.mime = mime
    }

    /// The message of a failure's error, for status lines.
    public var failureMessage: String? {
        guard case let .string(text)? = failure?.member("error")?.member("message") else { return nil }
        return text
    }
}
