import Foundation
import Hummingbird
import LibraryFiles
import TimelineCore
import WorkerProtocol

/// The HTTP API (DESIGN.md): clips, probe and timeline objects identical to the command line's,
/// filmstrip tiles, media with Range, cuts posted as JSON — and the page itself. Everything the engine
/// does on a file runs in a worker process (`WorkerPool`); a route only waits for its answer.
struct Routes {
    let server: Server

    /// Bounds on what one request may ask for: a page's strip is a few thousand points wide with cells of
    /// tens of points; beyond these a request could only ask for gigabytes.
    static let maximumThumbPoints = 2048.0
    static let maximumStripPoints = 1_000_000.0
    static let maximumTimelineCells = 100_000

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.asset(PageAssets.html, type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.asset(PageAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in Self.asset(PageAssets.style, type: "text/css; charset=utf-8") }

        router.get("/api/clips") { _, _ in self.clips() }
        router.get("/api/clips/:id") { _, context in try await self.probe(context) }
        router.get("/api/clips/:id/timeline") { request, context in try await self.timeline(request, context) }
        router.get("/api/clips/:id/filmstrip.png") { request, context in try await self.filmstrip(request, context) }
        router.get("/api/clips/:id/frames") { _, context in try await self.frames(context) }
        router.get("/api/clips/:id/preview") { _, context in try self.previewStatus(context, start: false) }
        router.post("/api/clips/:id/preview") { request, context in
            _ = try await Self.body(request)
            return try self.previewStatus(context, start: true)
        }
        router.get("/media/:id") { request, context in try await self.media(request, context) }
        router.head("/media/:id") { request, context in try await self.media(request, context) }
        router.get("/media/:id/preview.mp4") { request, context in try await self.preview(request, context) }
        router.get("/media/cuts/:id") { request, context in try await self.cutOutput(request, context) }
        router.post("/api/cuts") { request, _ in try await self.submitCut(request) }
        router.post("/api/lists/parse") { request, _ in try await self.parseList(request) }
        router.post("/api/lists/render") { request, _ in try await self.renderList(request) }
        router.get("/api/cuts") { _, _ in Self.json(.array(self.server.cuts.all().map(Self.cutJSON))) }
        router.get("/api/cuts/:id") { _, context in
            guard let job = self.server.cuts.job(try context.parameters.require("id")) else { return Self.notFound("no such cut") }
            return Self.json(Self.cutJSON(job))
        }
        router.delete("/api/cuts/:id") { request, context in
            _ = try await Self.body(request)
            let id = try context.parameters.require("id")
            guard self.server.cuts.job(id) != nil else { return Self.notFound("no such cut") }
            guard let job = await self.server.cuts.cancel(id) else {
                return APIError.response(.conflict, code: "not_running", message: "the cut has already ended")
            }
            return Self.json(Self.cutJSON(job))
        }
    }

    // MARK: - Clips

    private func clips() -> Response {
        Self.json(.array(server.library.clips().map { clip in
            let probe = server.library.cachedProbe(clip)
            return .object([
                ("id", .string(clip.id)),
                ("path", .string(clip.relativePath)),
                ("name", .string((clip.relativePath as NSString).lastPathComponent)),
                ("size", .int(clip.size)),
                ("modified", .number(clip.modifiedSeconds)),
                ("duration", probe?.member("duration") ?? .null),
                ("probed", .bool(probe != nil)),
                ("cuts", .array(clip.cuts.map { cut in
                    .object([("id", .string(cut.id)), ("name", .string((cut.relativePath as NSString).lastPathComponent)),
                             ("size", .int(cut.size)), ("modified", .number(cut.modifiedSeconds)), ("url", .string("/media/\(cut.id)"))])
                })),
            ])
        }))
    }

    private func clip(_ context: BasicRequestContext) throws -> Library.Clip? {
        server.library.clip(id: try context.parameters.require("id"))
    }

    /// The clip as it is on disk now (one stat): engine work and its caches follow a file that changed
    /// at once, without waiting for the next walk.
    private func currentClip(_ context: BasicRequestContext) throws -> Library.Clip? {
        try clip(context).map(server.library.current)
    }

    /// Runs `request` about `clip` in a worker — unless the clip's current version crashed one before.
    private func engine(_ clip: Library.Clip, _ request: WorkerRequest, pool: WorkerPool) async -> EngineAnswer {
        if let how = server.quarantine.reason(clip) { return .failed(EngineAnswer.crashed(clip, how: how)) }
        return EngineAnswer.from(await pool.run(request), clip: clip, quarantine: server.quarantine)
    }

    /// `vtrim probe --json`'s object, with the clip's id, relative path and the MIME type for `canPlayType`;
    /// an engine failure as the response to give.
    private func probeJSON(_ clip: Library.Clip) async -> Swift.Result<JSON, EngineFailure> {
        if let cached = server.library.cachedProbe(clip) { return .success(cached) }
        switch await engine(clip, .probe(path: clip.path), pool: server.interactive) {
        case let .result(report, message):
            var members: [(String, JSON)] = [("id", .string(clip.id)), ("name", .string(clip.relativePath)),
                                             ("mime", message.member("mime") ?? .null)]
            if case let .object(fields) = report { members += fields.map { $0.0 == "path" ? ("path", .string(clip.relativePath)) : $0 } }
            let json = JSON.object(members)
            server.library.storeProbe(clip, json)
            return .success(json)
        case let .refused(report):
            return .failure(EngineFailure(response: Self.unprocessable(Self.relative(report, clip))))
        case let .failed(response):
            return .failure(EngineFailure(response: response))
        case .bytes:
            return .failure(EngineFailure(response: APIError.response(.internalServerError, code: "engine_unavailable",
                                                                      message: "the engine answered a probe with bytes")))
        }
    }

    struct EngineFailure: Error {
        let response: Response
    }

    private func probe(_ context: BasicRequestContext) async throws -> Response {
        guard let clip = try currentClip(context) else { return Self.notFound("no such clip") }
        switch await probeJSON(clip) {
        case let .success(json): return Self.json(json)
        case let .failure(failure): return failure.response
        }
    }

    /// `vtrim timeline --json` for the clip: geometry, cells, and the selection after `ops` (slider drags and
    /// scrolls replayed through TimelineCore, so the page's clamping is exactly the command line's).
    private func timeline(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try currentClip(context) else { return Self.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self) else {
            return Self.badRequest("give strip_width, thumb_width and thumb_height (points)")
        }
        if let problem = Self.sizeProblem(stripWidth: width, thumbWidth: thumbWidth, thumbHeight: thumbHeight) { return Self.badRequest(problem) }
        guard let operations = TimelineOperationText.parseList(query.get("ops") ?? "") else {
            return Self.badRequest("ops: name:value[,name:value…] with name one of \(TimelineOperationText.names.joined(separator: ", "))")
        }
        let probe: JSON
        switch await probeJSON(clip) {
        case let .success(json): probe = json
        case let .failure(failure): return failure.response
        }
        guard let duration = probe.member("duration")?.doubleValue else { return Self.unprocessable(probe) }
        var timelineRequest = TimelineRequest(
            stripWidthPoints: width, thumbWidthPoints: thumbWidth, thumbHeightPoints: thumbHeight,
            minDurationSeconds: query.get("min", as: Double.self), maxDurationSeconds: query.get("max", as: Double.self),
            start: nil, end: nil, operations: operations)
        // Pure TimelineCore arithmetic, no engine: it runs here. Its cells are what the page lays out, so
        // their number is bounded (a 10-hour clip in 5 s windows would be hundreds of thousands).
        timelineRequest.maximumCells = Self.maximumTimelineCells
        switch TimelineObject.make(path: clip.relativePath, durationSeconds: duration, request: timelineRequest) {
        case let .success(made):
            let warnings = JSON.array(made.warnings.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
            return Self.json(.object([("path", .string(clip.relativePath)), ("warnings", warnings)] + made.fields))
        case let .failure(failure):
            return Self.unprocessable(.object([("path", .string(clip.relativePath)), ("warnings", .array([])),
                                               ("error", .object([("code", .string(failure.code)), ("message", .string(failure.reason))]))]))
        }
    }

    /// A tile of the VideoLine strip: cells `first ..< first + count`, cached on disk per clip version.
    private func filmstrip(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try currentClip(context) else { return Self.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self), let first = query.get("first", as: Int.self),
              let count = query.get("count", as: Int.self), first >= 0, (1...64).contains(count) else {
            return Self.badRequest("give strip_width, thumb_width, thumb_height, first and count (1–64)")
        }
        if let problem = Self.sizeProblem(stripWidth: width, thumbWidth: thumbWidth, thumbHeight: thumbHeight) { return Self.badRequest(problem) }
        let scale = query.get("scale", as: Double.self) ?? 1
        guard let mode = TileRequest.Sampling(rawValue: query.get("mode") ?? "accurate") else { return Self.badRequest("mode is accurate or fast") }
        guard scale.isFinite, scale > 0, scale <= 4 else { return Self.badRequest("scale is 0–4") }
        let layout = VideoLineLayout(stripWidthPoints: width, thumbWidthPoints: thumbWidth, thumbHeightPoints: thumbHeight,
                                                  minDurationSeconds: query.get("min", as: Double.self),
                                                  maxDurationSeconds: query.get("max", as: Double.self), pixelsPerPoint: scale)
        let parameters = [width, thumbWidth, thumbHeight, scale, layout.minDurationSeconds ?? -1, layout.maxDurationSeconds ?? -1]
            .map { JSON.format($0) }.joined(separator: "_")
        let name = "tiles/\(clip.id)-\(clip.version)/\(parameters)-\(first)-\(count)-\(mode.rawValue).png"
        if let cached = server.cache.lookup(name) {
            return try await FileResponses.serve(cached, request: request, context: context, cache: "private, max-age=86400")
        }
        let tile = TileRequest(layout: layout, first: first, count: count, sampling: mode, workers: 2)
        switch await engine(clip, .tile(path: clip.path, request: tile), pool: server.interactive) {
        case let .bytes(png):
            guard let file = try? server.cache.store(name, data: png) else {
                return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(bytes: png)))
            }
            return try await FileResponses.serve(file, request: request, context: context, cache: "private, max-age=86400")
        case let .refused(report):
            return Self.unprocessable(Self.relative(report, clip))
        case let .failed(response):
            return response
        case .result:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered a tile without its picture")
        }
    }

    private func frames(_ context: BasicRequestContext) async throws -> Response {
        guard let clip = try currentClip(context) else { return Self.notFound("no such clip") }
        switch await engine(clip, .frames(path: clip.path), pool: server.interactive) {
        case let .result(value, _):
            return Self.json(.object([("id", .string(clip.id)), ("times", value.member("times") ?? .array([]))]))
        case let .refused(report):
            return Self.unprocessable(Self.relative(report, clip))
        case let .failed(response):
            return response
        case .bytes:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered frames with bytes")
        }
    }

    // MARK: - Media

    private func media(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        return try await FileResponses.serve(clip.path, request: request, context: context)
    }

    private func previewStatus(_ context: BasicRequestContext, start: Bool) throws -> Response {
        guard let known = try clip(context) else { return Self.notFound("no such clip") }
        let clip = server.library.current(known)
        var members: [(String, JSON)] = [("id", .string(clip.id))]
        if start, let how = server.quarantine.reason(clip) { return EngineAnswer.crashed(clip, how: how) }
        switch (start ? server.previews.start(clip) : server.previews.state(for: clip))?.state {
        case nil: members.append(("status", .string("none")))
        case let .running(progress)?: members += [("status", .string("running")), ("progress", .number(progress))]
        case .done?: members += [("status", .string("done")), ("progress", .number(1))]
        case let .failed(reason)?: members += [("status", .string("failed")), ("error", .string(reason))]
        }
        members.append(("url", .string("/media/\(clip.id)/preview.mp4")))
        return Self.json(.object(members))
    }

    /// The preview stand-in: from the cache with Range once made; while being made, streamed as it grows;
    /// 404 when none was asked for (only a POST starts one).
    private func preview(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let known = try clip(context) else { return Self.notFound("no such clip") }
        let clip = server.library.current(known)
        guard let entry = server.previews.state(for: clip) else {
            return Self.notFound("no preview of this clip; POST /api/clips/\(clip.id)/preview makes one")
        }
        switch entry.state {
        case .done:
            return try await FileResponses.serve(entry.final, request: request, context: context, cache: "private, max-age=3600")
        case let .failed(reason):
            return APIError.response(.unprocessableContent, code: "preview_failed", message: reason)
        case .running:
            let previews = server.previews
            return FileResponses.streamGrowing(entry.partial) {
                if case .running? = previews.state(for: clip)?.state { return false }
                return true
            }
        }
    }

    private func cutOutput(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let job = server.cuts.job(try context.parameters.require("id")), job.status == .done else {
            return Self.notFound("no such finished cut")
        }
        return try await FileResponses.serve(job.output, request: request, context: context)
    }

    // MARK: - Cuts

    private struct CutBody: Decodable {
        let clip: String
        let start: Double?
        let end: Double?
        /// Several ranges joined into one output (in time order, not overlapping).
        let ranges: [ServeRange]?
        let mode: String?
    }

    /// At most this many ranges in one join (a page's list, not a crafted flood).
    static let maximumRanges = 1000

    private func submitCut(_ request: Request) async throws -> Response {
        let data = try await Self.body(request)
        let body: CutBody
        do {
            body = try JSONDecoder().decode(CutBody.self, from: data)
        } catch {
            return APIError.response(.badRequest, code: "bad_json", message: "expected {\"clip\": id, \"start\": seconds, \"end\": seconds, \"mode\": \"copy|keyframe|exact|smart\"} or {\"clip\": id, \"ranges\": [{\"start\", \"end\", \"label\"}], \"mode\"}")
        }
        guard let known = server.library.clip(id: body.clip) else { return Self.notFound("no such clip") }
        let clip = server.library.current(known)
        // No mode: the default for what is written (`EditDefaults`, the command line's rule).
        var mode: EditMode?
        if let asked = body.mode {
            guard let known = EditMode(rawValue: asked) else { return Self.badRequest("mode is one of copy, keyframe, exact, smart") }
            mode = known
        }
        if let ranges = body.ranges {
            guard !ranges.isEmpty, ranges.count <= Self.maximumRanges else { return Self.badRequest("ranges holds 1 to \(Self.maximumRanges) ranges") }
            guard ranges.allSatisfy({ $0.start.isFinite && $0.end.isFinite && $0.start >= 0 && $0.end > $0.start && ($0.label?.count ?? 0) <= 200 }) else {
                return Self.badRequest("each range is {start, end, label} with 0 ≤ start < end seconds")
            }
            if let problem = RangeOrder.problem(spans: ranges.map { (start: $0.start, end: $0.end) }) { return Self.badRequest(problem) }
        } else {
            guard let start = body.start, let end = body.end, start.isFinite, end.isFinite, start >= 0, end > start else {
                return Self.badRequest("start and end are seconds with start < end")
            }
        }
        if let how = server.quarantine.reason(clip) { return EngineAnswer.crashed(clip, how: how) }
        do throws(CutQueue.SubmitError) {
            let job = try await server.cuts.submit(clip: clip, ranges: body.ranges ?? [ServeRange(start: body.start ?? 0, end: body.end ?? 0)],
                                                   shape: body.ranges != nil ? .join : .cut, mode: mode)
            return Self.json(Self.cutJSON(job), status: .accepted)
        } catch {
            switch error {
            case let .refused(report): return Self.unprocessable(report)
            case .engine(.failed(let response)): return response
            case .engine: return APIError.response(.internalServerError, code: "engine_unavailable", message: "no plan")
            }
        }
    }

    // MARK: - Cut lists (parsed and written by the engine's readers and writers in a worker, never here)

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

    static let listFormats = ["csv", "llc", "otio", "edl", "chapters"]
    static let usage = "{\"format\": \"csv|llc|otio|edl|chapters\", \"duration\": seconds, \"fps\": rate, \"name\", \"timecode\", \"list_rate\", \"list_origin\": \"auto|timecode|zero\"}"

    /// The list request a body makes, or why it cannot (a 400).
    private func listRequest(_ request: Request, reading: Bool) async throws -> Swift.Result<ListRequest, ListBodyProblem> {
        let data = try await Self.body(request)
        guard let body = try? JSONDecoder().decode(ListBody.self, from: data), Self.listFormats.contains(body.format) else {
            return .failure(ListBodyProblem(message: "expected " + Self.usage + (reading ? " with \"text\"" : " with \"ranges\": [{start, end, label}]")))
        }
        guard body.duration.map({ $0.isFinite && $0 >= 0 }) ?? true, body.fps.map({ $0.isFinite && $0 > 0 && $0 <= 1000 }) ?? true,
              (body.name?.count ?? 0) <= 1024, (body.timecode?.count ?? 0) <= 32, (body.listRate?.count ?? 0) <= 16,
              body.listOrigin.map({ ["auto", "timecode", "zero"].contains($0) }) ?? true else {
            return .failure(ListBodyProblem(message: "duration is seconds ≥ 0, fps is 0–1000, list_origin is auto, timecode or zero"))
        }
        if reading {
            guard let text = body.text else { return .failure(ListBodyProblem(message: "expected " + Self.usage + " with \"text\"")) }
            guard text.utf8.count <= 60_000 else { return .failure(ListBodyProblem(message: "the list is longer than 60,000 bytes")) }
        } else {
            guard let ranges = body.ranges, !ranges.isEmpty, ranges.count <= Self.maximumRanges,
                  ranges.allSatisfy({ ($0.label?.count ?? 0) <= 200 && $0.start.isFinite && $0.end.isFinite && $0.start >= 0
                                      && $0.end > $0.start && $0.end <= ListRequest.maximumSeconds }) else {
                return .failure(ListBodyProblem(message: "ranges holds 1 to \(Self.maximumRanges) ranges {start, end, label} with 0 ≤ start < end ≤ \(Int(ListRequest.maximumSeconds)) seconds"))
            }
        }
        let clip = ListClip(name: body.name ?? "clip", framesPerSecond: body.fps, durationSeconds: body.duration, startTimecode: body.timecode)
        return .success(ListRequest(format: body.format, clip: clip, text: reading ? body.text : nil, ranges: reading ? nil : body.ranges,
                                    listRate: body.listRate, listOrigin: body.listOrigin))
    }

    struct ListBodyProblem: Error {
        let message: String
    }

    /// `{format, text, duration, fps, …}` → `{ranges: [{start, end, label}], notes, warnings}` in seconds (a malformed list is
    /// a 422 naming its line).
    private func parseList(_ request: Request) async throws -> Response {
        switch try await listRequest(request, reading: true) {
        case let .failure(problem): return Self.badRequest(problem.message)
        case let .success(list): return await listAnswer(.parseList(list))
        }
    }

    /// `{format, ranges, duration, fps, name, …}` → `{text, file_name}`.
    private func renderList(_ request: Request) async throws -> Response {
        switch try await listRequest(request, reading: false) {
        case let .failure(problem): return Self.badRequest(problem.message)
        case let .success(list): return await listAnswer(.renderList(list))
        }
    }

    /// A list request's answer from a worker: its result, the engine's refusal (422 `bad_list`), or the engine's
    /// own failure (a crash costs this request only).
    private func listAnswer(_ request: WorkerRequest) async -> Response {
        switch EngineAnswer.from(await server.interactive.run(request), about: "the list") {
        case let .result(value, _):
            return Self.json(value)
        case let .refused(report):
            let message = report.member("error")?.member("message").flatMap { if case let .string(text) = $0 { text } else { nil } }
            return APIError.response(.unprocessableContent, code: "bad_list", message: message ?? "the list cannot be read")
        case let .failed(response):
            return response
        case .bytes:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered a list with bytes")
        }
    }

    /// `{id, status, progress, clip}` and the report's own fields (the plan, then `vtrim cut --json`'s object).
    static func cutJSON(_ job: CutQueue.Job) -> JSON {
        var members: [(String, JSON)] = [("id", .string(job.id)), ("status", .string(job.status.rawValue)),
                                         ("progress", .number(job.progress)), ("clip", .string(job.clip))]
        if case let .object(fields) = job.report { members += fields.filter { !["id", "status", "progress"].contains($0.0) } }
        if job.status == .done { members.append(("url", .string("/media/cuts/\(job.id)"))) }
        return .object(members)
    }

    // MARK: - Helpers

    /// Why a strip or tile request's sizes cannot be served, or nil.
    static func sizeProblem(stripWidth: Double, thumbWidth: Double, thumbHeight: Double) -> String? {
        guard stripWidth.isFinite, thumbWidth.isFinite, thumbHeight.isFinite, stripWidth > 0, thumbWidth > 0, thumbHeight > 0 else {
            return "strip_width, thumb_width and thumb_height are positive numbers of points"
        }
        if thumbWidth > maximumThumbPoints || thumbHeight > maximumThumbPoints {
            return "thumb_width and thumb_height are at most \(Int(maximumThumbPoints)) points"
        }
        if stripWidth > maximumStripPoints { return "strip_width is at most \(Int(maximumStripPoints)) points" }
        return nil
    }

    /// A failure report about a clip names it by its relative path (the page never sees server paths).
    static func relative(_ report: JSON, _ clip: Library.Clip) -> JSON {
        guard case let .object(fields) = report else { return report }
        return .object(fields.map { $0.0 == "path" ? ("path", .string(clip.relativePath)) : $0 })
    }

    /// A JSON request body (at most 64 KiB); anything that is not valid JSON is a 400.
    static func body(_ request: Request) async throws -> Data {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        let data = Data(buffer.readableBytesView)
        guard (try? JSON(parsing: data.isEmpty ? "{}" : String(decoding: data, as: UTF8.self))) != nil else {
            throw HTTPError(.badRequest, message: "the body is not valid JSON")
        }
        return data
    }

    static func json(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: value.serialized)))
    }

    static func notFound(_ message: String) -> Response {
        APIError.response(.notFound, code: "not_found", message: message)
    }

    static func badRequest(_ message: String) -> Response {
        APIError.response(.badRequest, code: "bad_request", message: message)
    }

    /// An engine error about the media: the command line's failure object, as 422.
    static func unprocessable(_ report: JSON) -> Response { json(report, status: .unprocessableContent) }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache",
                                        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
