import Foundation
import Hummingbird
import TimelineCore
import VtrimKit

/// The HTTP API (DESIGN.md): clips, probe and timeline objects identical to the command line's,
/// filmstrip tiles, media with Range, cuts posted as JSON — and the page itself.
struct Routes {
    let server: Server

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.asset(PageAssets.html, type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.asset(PageAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in Self.asset(PageAssets.style, type: "text/css; charset=utf-8") }

        router.get("/api/clips") { _, _ in try await self.clips() }
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
        router.get("/api/cuts") { _, _ in Self.json(.array(self.server.cuts.all().map(Self.cutJSON))) }
        router.get("/api/cuts/:id") { _, context in
            guard let job = self.server.cuts.job(try context.parameters.require("id")) else { return Self.notFound("no such cut") }
            return Self.json(Self.cutJSON(job))
        }
    }

    // MARK: - Clips

    private func clips() async throws -> Response {
        let clips = server.library.clips()
        return Self.json(.array(clips.map { clip in
            let probe = server.library.cachedProbe(clip)
            return .object([
                ("id", .string(clip.id)),
                ("path", .string(clip.relativePath)),
                ("name", .string((clip.relativePath as NSString).lastPathComponent)),
                ("size", .int(clip.size)),
                ("modified", .number(clip.modified)),
                ("duration", probe?.member("duration") ?? .null),
                ("probed", .bool(probe != nil)),
            ])
        }))
    }

    private func clip(_ context: BasicRequestContext) throws -> Library.Clip? {
        server.library.clip(id: try context.parameters.require("id"))
    }

    /// `vtrim probe --json`'s object, with the clip's id, relative path and the MIME type for `canPlayType`.
    private func probeJSON(_ clip: Library.Clip) async -> JSON {
        if let cached = server.library.cachedProbe(clip) { return cached }
        let (outcome, mime) = await server.interactive.run { ServeSupport.probe(path: clip.path) }
        var members: [(String, JSON)] = [("id", .string(clip.id)), ("name", .string(clip.relativePath)), ("mime", .optional(mime))]
        if case let .object(fields) = outcome.json { members += fields.map { $0.0 == "path" ? ("path", .string(clip.relativePath)) : $0 } }
        let json = JSON.object(members)
        if !outcome.failed { server.library.storeProbe(clip, json) }
        return json
    }

    private func probe(_ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        return Self.json(await probeJSON(clip))
    }

    /// `vtrim timeline --json` for the clip: geometry, cells, and the selection after `ops` (slider drags and
    /// scrolls replayed through TimelineCore, so the page's clamping is exactly the command line's).
    private func timeline(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self) else {
            return APIError.response(.badRequest, code: "bad_request", message: "give strip_width, thumb_width and thumb_height (points)")
        }
        guard let operations = TimelineOperationText.parseList(query.get("ops") ?? "") else {
            return APIError.response(.badRequest, code: "bad_request", message: "ops: name:value[,name:value…] with name one of \(TimelineOperationText.names.joined(separator: ", "))")
        }
        let probe = await probeJSON(clip)
        guard case let .number(duration)? = probe.member("duration") else { return Self.unprocessable(probe) }
        let timelineRequest = TimelineRequest(
            stripWidthPoints: width, thumbWidthPoints: thumbWidth, thumbHeightPoints: thumbHeight,
            minDurationSeconds: query.get("min", as: Double.self), maxDurationSeconds: query.get("max", as: Double.self),
            start: nil, end: nil, operations: operations)
        let outcome = TimelineJob.run(durationSeconds: duration, request: timelineRequest)
        guard !outcome.failed else { return Self.unprocessable(outcome.json) }
        return Self.json(outcome.json)
    }

    /// A tile of the VideoLine strip: cells `first ..< first + count` (cached on disk per clip version).
    private func filmstrip(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self), let first = query.get("first", as: Int.self),
              let count = query.get("count", as: Int.self), first >= 0, (1...64).contains(count) else {
            return APIError.response(.badRequest, code: "bad_request", message: "give strip_width, thumb_width, thumb_height, first and count (1–64)")
        }
        let scale = query.get("scale", as: Double.self) ?? 1
        guard let mode = SampleMode(rawValue: query.get("mode") ?? "accurate") else {
            return APIError.response(.badRequest, code: "bad_request", message: "mode is accurate or fast")
        }
        guard scale > 0, scale <= 4 else { return APIError.response(.badRequest, code: "bad_request", message: "scale is 0–4") }
        let layout = ThumbsRequest.VideoLineLayout(stripWidthPoints: width, thumbWidthPoints: thumbWidth, thumbHeightPoints: thumbHeight,
                                                  minDurationSeconds: query.get("min", as: Double.self),
                                                  maxDurationSeconds: query.get("max", as: Double.self), pixelsPerPoint: scale)
        let name = [width, thumbWidth, thumbHeight, scale, layout.minDurationSeconds ?? -1, layout.maxDurationSeconds ?? -1]
            .map { JSON.format($0) }.joined(separator: "_") + "-\(first)-\(count)-\(mode.rawValue).png"
        let folder = "\(server.cache)/tiles/\(clip.id)-\(clip.size)-\(Int64(clip.modified))"
        let file = folder + "/" + name
        if !FileManager.default.fileExists(atPath: file) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let tileRequest = FilmstripTile.Request(layout: layout, first: first, count: count, mode: mode, workers: 2)
            if let failure = await server.interactive.run({ ServeSupport.renderTile(path: clip.path, request: tileRequest, output: file) }) {
                return Self.unprocessable(failure.json)
            }
        }
        return try await FileResponses.serve(file, request: request, context: context, cache: "private, max-age=86400")
    }

    private func frames(_ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        let read = await server.interactive.run { ServeSupport.frameTimes(path: clip.path) }
        guard let times = read.times else { return Self.unprocessable(read.failure?.json ?? .null) }
        return Self.json(.object([("id", .string(clip.id)), ("times", .array(times.map(JSON.number)))]))
    }

    // MARK: - Media

    private func media(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        return try await FileResponses.serve(clip.path, request: request, context: context)
    }

    private func previewStatus(_ context: BasicRequestContext, start: Bool) throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        let state = start ? server.previews.entry(for: clip).state : server.previews.state(for: clip)
        var members: [(String, JSON)] = [("id", .string(clip.id))]
        switch state {
        case nil: members.append(("status", .string("none")))
        case let .running(progress)?: members += [("status", .string("running")), ("progress", .number(progress))]
        case .done?: members += [("status", .string("done")), ("progress", .number(1))]
        case let .failed(reason)?: members += [("status", .string("failed")), ("error", .string(reason))]
        }
        members.append(("url", .string("/media/\(clip.id)/preview.mp4")))
        return Self.json(.object(members))
    }

    /// The preview stand-in: from the cache with Range once made; while being made, streamed as it grows.
    private func preview(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let clip = try clip(context) else { return Self.notFound("no such clip") }
        let entry = server.previews.entry(for: clip)
        switch entry.state {
        case .done:
            return try await FileResponses.serve(entry.final, request: request, context: context, cache: "private, max-age=3600")
        case let .failed(reason):
            return APIError.response(.unprocessableContent, code: "preview_failed", message: reason)
        case .running:
            let previews = server.previews
            return FileResponses.streamGrowing(entry.partial) {
                if case .running? = previews.state(for: clip) { return false }
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
        let start: Double
        let end: Double
        let mode: String?
    }

    private func submitCut(_ request: Request) async throws -> Response {
        let data = try await Self.body(request)
        let body: CutBody
        do {
            body = try JSONDecoder().decode(CutBody.self, from: data)
        } catch {
            return APIError.response(.badRequest, code: "bad_json", message: "expected {\"clip\": id, \"start\": seconds, \"end\": seconds, \"mode\": \"copy|keyframe|exact|smart\"}")
        }
        guard let clip = server.library.clip(id: body.clip) else { return Self.notFound("no such clip") }
        guard let mode = CutMode(rawValue: body.mode ?? "copy") else {
            return APIError.response(.badRequest, code: "bad_request", message: "mode is one of copy, keyframe, exact, smart")
        }
        guard body.start.isFinite, body.end.isFinite, body.start >= 0, body.end > body.start else {
            return APIError.response(.badRequest, code: "bad_request", message: "start and end are seconds with start < end")
        }
        do throws(CutQueue.SubmitError) {
            let job = try await server.cuts.submit(clip: clip, start: body.start, end: body.end, mode: mode, through: server.interactive)
            return Self.json(Self.cutJSON(job), status: .accepted)
        } catch {
            guard case let .plan(report) = error else { return Self.notFound("no such clip") }
            return Self.unprocessable(report)
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

    /// A JSON request body (at most 64 KiB); anything that is not valid JSON is a 400.
    static func body(_ request: Request) async throws -> Data {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        let data = Data(buffer.readableBytesView)
        guard (try? JSONSerialization.jsonObject(with: data.isEmpty ? Data("{}".utf8) : data, options: [.fragmentsAllowed])) != nil else {
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

    /// An engine error about the media: the command line's failure object, as 422.
    static func unprocessable(_ report: JSON) -> Response { json(report, status: .unprocessableContent) }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache",
                                        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension JSON {
    /// An object's member by key.
    func member(_ key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}
