import Foundation
import Hummingbird
import WorkerProtocol

/// `/api/lists`: cut lists parsed and written by the engine's readers and writers in a worker, never here.
struct ListsController {
    let server: Server

    func register(on router: Router<ServeContext>) {
        router.post("/api/lists/parse") { request, _ in try await self.parse(request) }
        router.post("/api/lists/render") { request, _ in try await self.render(request) }
    }

    private struct ListBody: Decodable {
        let format: String
        let text: String?
        let ranges: [ServeRange]?
        /// The clip's duration and frame rate (the page's probe): `end-5` and frame counts need them.
        let duration: Double?
        let fps: Double?
        let name: String?
        /// The clip's start timecode (its probe's `start_timecode`): EDL and timeline source times count from it.
        let timecode: String?
        /// An EDL's SMPTE rate where it is not the clip's (`--list-rate`), and how its source times count (`--list-origin`).
        let listRate: String?
        let listOrigin: String?

        enum CodingKeys: String, CodingKey {
            case format, text, ranges, duration, fps, name, timecode
            case listRate = "list_rate", listOrigin = "list_origin"
        }
    }

    static let formats = ["csv", "llc", "otio", "edl", "chapters"]
    static let usage = "{\"format\": \"csv|llc|otio|edl|chapters\", \"duration\": seconds, \"fps\": rate, \"name\", \"timecode\", \"list_rate\", \"list_origin\": \"auto|timecode|zero\"}"

    /// The list request a body makes, or why it cannot (a 400).
    private static func listRequest(_ body: ListBody?, reading: Bool) -> Swift.Result<ListRequest, API.BadBody> {
        guard let body, formats.contains(body.format) else {
            return .failure(.init("expected " + usage + (reading ? " with \"text\"" : " with \"ranges\": [{start, end, label}]")))
        }
        guard body.duration.map({ $0.isFinite && $0 >= 0 }) ?? true, body.fps.map({ $0.isFinite && $0 > 0 && $0 <= 1000 }) ?? true,
              (body.name?.count ?? 0) <= 1024, (body.timecode?.count ?? 0) <= 32, (body.listRate?.count ?? 0) <= 16,
              body.listOrigin.map({ ["auto", "timecode", "zero"].contains($0) }) ?? true else {
            return .failure(.init("duration is seconds ≥ 0, fps is 0–1000, list_origin is auto, timecode or zero"))
        }
        if reading {
            guard let text = body.text else { return .failure(.init("expected " + usage + " with \"text\"")) }
            guard text.utf8.count <= 60_000 else { return .failure(.init("the list is longer than 60,000 bytes")) }
        } else {
            guard let ranges = body.ranges, API.rangesAreValid(ranges, maximumSeconds: ListRequest.maximumSeconds) else {
                return .failure(.init("ranges holds 1 to \(API.maximumRanges) ranges {start, end, label} with 0 ≤ start < end ≤ \(Int(ListRequest.maximumSeconds)) seconds"))
            }
        }
        let clip = ListClip(name: body.name ?? "clip", framesPerSecond: body.fps, durationSeconds: body.duration, startTimecode: body.timecode)
        return .success(ListRequest(format: body.format, clip: clip, text: reading ? body.text : nil, ranges: reading ? nil : body.ranges,
                                    listRate: body.listRate, listOrigin: body.listOrigin))
    }

    /// `{format, text, duration, fps, …}` → `{ranges: [{start, end, label}], notes, warnings}` in seconds (a malformed list is
    /// a 422 naming its line).
    private func parse(_ request: Request) async throws -> Response {
        switch Self.listRequest(try await API.body(request, as: ListBody.self), reading: true) {
        case let .failure(problem): return API.badRequest(problem.message)
        case let .success(list): return await answer(.parseList(list))
        }
    }

    /// `{format, ranges, duration, fps, name, …}` → `{text, file_name}`.
    private func render(_ request: Request) async throws -> Response {
        switch Self.listRequest(try await API.body(request, as: ListBody.self), reading: false) {
        case let .failure(problem): return API.badRequest(problem.message)
        case let .success(list): return await answer(.renderList(list))
        }
    }

    /// A list request's answer from a worker: its result, the engine's refusal (422 `bad_list`), or the engine's
    /// own failure (a crash costs this request only).
    private func answer(_ request: WorkerRequest) async -> Response {
        switch EngineAnswer.from(await server.interactive.run(request), about: "the list") {
        case let .result(value, _):
            return API.json(value)
        case let .refused(report):
            let message = report.member("error")?.member("message").flatMap { if case let .string(text) = $0 { text } else { nil } }
            return APIError.response(.unprocessableContent, code: "bad_list", message: message ?? "the list cannot be read")
        case let .failed(response):
            return response
        case .bytes:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered a list with bytes")
        }
    }
}
