import DiskNames
import Foundation
import Hummingbird
import WorkerProtocol

/// What every controller answers with: JSON bodies, the API's error objects, request bodies read within bounds.
enum API {
    /// At most this many ranges in one join or list (a page's list, not a crafted flood).
    static let maximumRanges = 1000

    /// Why a request's body cannot be served: its 400's message.
    struct BadBody: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// A request's JSON body as `Body` — the one way request bodies are read: at most 64 KiB, nested at most
    /// `maximumDepth` deep, decoded by `JSONDecoder` (the ordered `JSON` is for what the server sends). Anything that is
    /// not JSON is a 400; JSON of another shape is nil (the route's 400 says what it expects). An empty body is `{}`.
    static func body<Body: Decodable>(_ request: Request, as type: Body.Type) async throws -> Body? {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
        guard JSONDepth.fits(data, limit: maximumDepth) else {
            throw HTTPError(.badRequest, message: "the body is not valid JSON (nested deeper than \(maximumDepth))")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw HTTPError(.badRequest, message: "the body is not valid JSON")
        } catch {
            return nil
        }
    }

    /// A body a route takes nothing from (`{}` or none): JSON all the same.
    static func emptyBody(_ request: Request) async throws {
        _ = try await body(request, as: Nothing.self)
    }

    /// Any JSON value, read and set aside.
    private struct Nothing: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// How deep a body's arrays and objects may nest: the API's bodies go three deep.
    static let maximumDepth = 16

    static func json(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 // A path carrying bytes that are not UTF-8 is shown with them escaped (`caf\xe9.mp4`).
                 body: .init(byteBuffer: ByteBuffer(string: DiskName.displayInJSON(value.serialized))))
    }

    static func notFound(_ message: String) -> Response {
        APIError.response(.notFound, code: "not_found", message: message)
    }

    static func badRequest(_ message: String) -> Response {
        APIError.response(.badRequest, code: "bad_request", message: message)
    }

    /// An engine error about the media: the command line's failure object, as 422.
    static func unprocessable(_ report: JSON) -> Response { json(report, status: .unprocessableContent) }

    /// A failure report about a clip names it by its relative path (the page never sees server paths).
    static func relative(_ report: JSON, _ clip: Library.Clip) -> JSON {
        guard case let .object(fields) = report else { return report }
        return .object(fields.map { $0.0 == "path" ? ("path", .string(clip.relativePath)) : $0 })
    }

    /// Whether every range is `{start, end, label}` with 0 ≤ start < end ≤ `maximumSeconds` and a label of at most 200
    /// characters, and there are 1 to `maximumRanges` of them.
    static func rangesAreValid(_ ranges: [ServeRange], maximumSeconds: Double = .infinity) -> Bool {
        !ranges.isEmpty && ranges.count <= maximumRanges
            && ranges.allSatisfy { ($0.label?.count ?? 0) <= 200 && $0.start.isFinite && $0.end.isFinite && $0.start >= 0
                                   && $0.end > $0.start && $0.end <= maximumSeconds }
    }
}

extension Server {
    /// The clip a route's `:id` names, as the last walk saw it.
    func clip(_ context: ServeContext) throws -> Library.Clip? {
        library.clip(id: try context.parameters.require("id"))
    }

    /// The clip as it is on disk now (one stat): engine work and its caches follow a file that changed
    /// at once, without waiting for the next walk.
    func currentClip(_ context: ServeContext) throws -> Library.Clip? {
        try clip(context).map(library.current)
    }

    /// Runs `request` about `clip` in a worker — unless the clip's current version crashed one before. Cancelled
    /// (withdrawn from the queue, or its worker stopped) once `client` has left: nobody would read the answer.
    func engine(_ clip: Library.Clip, _ request: WorkerRequest, pool: WorkerPool, client: ClientPresence? = nil) async -> EngineAnswer {
        if let how = quarantine.reason(clip) { return .failed(EngineAnswer.crashed(clip, how: how)) }
        let ticket = pool.makeTicket(request)
        let watch = client.map { client in
            Task {
                while !Task.isCancelled {
                    if client.hasLeft { return ticket.cancel() }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        defer { watch?.cancel() }
        return EngineAnswer.from(await pool.run(ticket), clip: clip, quarantine: quarantine)
    }
}
