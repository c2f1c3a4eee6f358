import Foundation
import Hummingbird
import TimelineCore
import WorkerProtocol

/// `/api/clips`: the library's clips, each one's probe, timeline, filmstrip tiles, frame times and preview status.
struct ClipsController {
    let server: Server

    /// Bounds on what one request may ask for: a page's strip is a few thousand points wide with cells of
    /// tens of points; beyond these a request could only ask for gigabytes.
    static let maximumThumbPoints = 2048.0
    static let maximumStripPoints = 1_000_000.0
    static let maximumTimelineCells = 100_000

    func register(on router: Router<ServeContext>) {
        router.get("/api/clips") { request, _ in await self.clips(request) }
        router.get("/api/clips/:id") { _, context in try await self.probe(context) }
        router.get("/api/clips/:id/timeline") { request, context in try await self.timeline(request, context) }
        router.get("/api/clips/:id/filmstrip.png") { request, context in try await self.filmstrip(request, context) }
        router.get("/api/clips/:id/frames") { _, context in try await self.frames(context) }
        router.get("/api/clips/:id/proposal") { request, context in try await self.proposal(request, context) }
        router.get("/api/clips/:id/preview") { _, context in try self.previewStatus(context, start: false) }
        router.post("/api/clips/:id/preview") { request, context in
            try await API.emptyBody(request)
            return try self.previewStatus(context, start: true)
        }
    }

    /// A page of the library: `{items, total, next, offset, …}` (`ClipQuery` says what a request may ask). Each
    /// item has the walk's facts (name, size, date), the probe's summary once the background prober (or a page) has
    /// probed it (`probed` false: pending), and its cuts.
    private func clips(_ request: Request) async -> Response {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            guard parameters[String(key)] == nil else { return API.badRequest("\(key) is given twice") }
            parameters[String(key)] = String(value)
        }
        let query: ClipQuery
        switch ClipQuery.parse(parameters) {
        case let .success(parsed): query = parsed
        case let .failure(problem): return API.badRequest(problem.message)
        }
        // The first walk of a server just started with no index: a moment's wait answers a small library whole (a
        // large one answers with what it has, `walked` false, and the page asks again; with an index, at once).
        for _ in 0..<40 where !server.library.current.walked && server.library.current.clips.isEmpty {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let listing = server.library.page(query)
        let snap = listing.snapshot
        let items = listing.page.positions.map { position -> JSON in
            let clip = snap.clips[position]
            let summary = snap.summaries[position]
            var members: [(String, JSON)] = [
                ("id", .string(clip.id)),
                ("path", .string(clip.relativePath)),
                ("name", .string((clip.relativePath as NSString).lastPathComponent)),
                ("size", .int(clip.size)),
                ("modified", .number(clip.modifiedSeconds)),
                ("probed", .bool(summary != nil)),
            ]
            members += (summary ?? ClipSummary(durationSeconds: nil, codec: nil, hasVideo: false, displayWidth: nil, displayHeight: nil,
                                               failure: nil)).jsonFields.map { field in
                summary == nil && field.0 == "has_video" ? (field.0, .null) : field
            }
            members.append(("folder_problem", clip.folderProblem.map(JSON.string) ?? .null))
            members.append(("cuts", .array(clip.cuts.map { cut in
                .object([("id", .string(cut.id)), ("name", .string((cut.relativePath as NSString).lastPathComponent)),
                         ("size", .int(cut.size)), ("modified", .number(cut.modifiedSeconds)), ("url", .string("/media/\(cut.id)"))])
            })))
            return .object(members)
        }
        return API.json(.object([
            ("items", .array(items)),
            ("total", .int(Int64(listing.page.total))),
            ("next", listing.page.next.map { .string($0.text) } ?? .null),
            ("offset", .int(Int64(listing.page.offset))),
            ("clips", .int(Int64(snap.clips.count))),
            ("probed", .int(Int64(snap.probedCount))),
            ("version", .int(Int64(snap.generation))),
            // Advances when new probes reach the listing (at most every 2 s).
            ("probes_version", .int(Int64(snap.epoch))),
            ("walked", .bool(snap.walked)),
            ("watching", .bool(snap.watching)),
            ("problems", .array(snap.problems.map { .object([("folder", .string($0.folder)), ("reason", .string($0.reason))]) })),
        ]))
    }

    /// `vtrim probe --json`'s object, with the clip's id, relative path and the MIME type for `canPlayType`;
    /// an engine failure as the response to give.
    private func probeJSON(_ clip: Library.Clip, client: ClientPresence?) async -> Swift.Result<JSON, EngineFailure> {
        if let cached = server.library.cachedProbe(clip) { return .success(cached) }
        switch await server.engine(clip, .probe(path: clip.path), pool: server.interactive, client: client) {
        case let .result(report, reply):
            let json = Self.probeObject(clip, report: report, mime: reply.mime)
            server.library.storeProbe(clip, json)
            return .success(json)
        case let .refused(report):
            return .failure(EngineFailure(response: API.unprocessable(API.relative(report, clip))))
        case let .failed(response):
            return .failure(EngineFailure(response: response))
        case .bytes:
            return .failure(EngineFailure(response: APIError.response(.internalServerError, code: "engine_unavailable",
                                                                      message: "the engine answered a probe with bytes")))
        }
    }

    /// `GET /api/clips/{id}`'s object from the engine's probe: the clip's id, relative path and MIME type, then
    /// `vtrim probe --json`'s fields (its `path` relative too).
    static func probeObject(_ clip: Library.Clip, report: JSON, mime: String?) -> JSON {
        var members: [(String, JSON)] = [("id", .string(clip.id)), ("name", .string(clip.relativePath)), ("mime", mime.map(JSON.string) ?? .null)]
        if case let .object(fields) = report { members += fields.map { $0.0 == "path" ? ("path", .string(clip.relativePath)) : $0 } }
        return .object(members)
    }

    struct EngineFailure: Error {
        let response: Response
    }

    private func probe(_ context: ServeContext) async throws -> Response {
        guard let clip = try server.currentClip(context) else { return API.notFound("no such clip") }
        switch await probeJSON(clip, client: context.client) {
        case let .success(json): return API.json(json)
        case let .failure(failure): return failure.response
        }
    }

    /// `vtrim timeline --json` for the clip: geometry, cells, and the selection after `ops` (slider drags and
    /// scrolls replayed through TimelineCore, so the page's clamping is exactly the command line's).
    private func timeline(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let clip = try server.currentClip(context) else { return API.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self) else {
            return API.badRequest("give strip_width, thumb_width and thumb_height (points)")
        }
        if let problem = Self.sizeProblem(stripWidth: width, thumbWidth: thumbWidth, thumbHeight: thumbHeight) { return API.badRequest(problem) }
        guard let operations = TimelineOperationText.parseList(query.get("ops") ?? "") else {
            return API.badRequest("ops: name:value[,name:value…] with name one of \(TimelineOperationText.names.joined(separator: ", "))")
        }
        let probe: JSON
        switch await probeJSON(clip, client: context.client) {
        case let .success(json): probe = json
        case let .failure(failure): return failure.response
        }
        guard let duration = probe.member("duration")?.doubleValue else { return API.unprocessable(probe) }
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
            return API.json(.object([("path", .string(clip.relativePath)), ("warnings", warnings)] + made.fields))
        case let .failure(failure):
            return API.unprocessable(.object([("path", .string(clip.relativePath)), ("warnings", .array([])),
                                              ("error", .object([("code", .string(failure.code)), ("message", .string(failure.reason))]))]))
        }
    }

    /// A tile of the VideoLine strip: cells `first ..< first + count`, cached on disk per clip version.
    private func filmstrip(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let clip = try server.currentClip(context) else { return API.notFound("no such clip") }
        let query = request.uri.queryParameters
        guard let width = query.get("strip_width", as: Double.self), let thumbWidth = query.get("thumb_width", as: Double.self),
              let thumbHeight = query.get("thumb_height", as: Double.self), let first = query.get("first", as: Int.self),
              let count = query.get("count", as: Int.self), first >= 0, (1...64).contains(count) else {
            return API.badRequest("give strip_width, thumb_width, thumb_height, first and count (1–64)")
        }
        if let problem = Self.sizeProblem(stripWidth: width, thumbWidth: thumbWidth, thumbHeight: thumbHeight) { return API.badRequest(problem) }
        let scale = query.get("scale", as: Double.self) ?? 1
        guard let mode = TileRequest.Sampling(rawValue: query.get("mode") ?? "accurate") else { return API.badRequest("mode is accurate or fast") }
        guard scale.isFinite, scale > 0, scale <= 4 else { return API.badRequest("scale is 0–4") }
        // A poster: each cell's first frame that is not dull (a fade from black, a slate), as `thumbs --skip-dull`.
        let skipDull: Bool
        switch query.get("skip_dull") {
        case nil, "0": skipDull = false
        case "1": skipDull = true
        default: return API.badRequest("skip_dull is 0 or 1")
        }
        if skipDull, mode == .fast { return API.badRequest("skip_dull needs mode=accurate (fast shows keyframes only)") }
        let layout = VideoLineLayout(stripWidthPoints: width, thumbWidthPoints: thumbWidth, thumbHeightPoints: thumbHeight,
                                     minDurationSeconds: query.get("min", as: Double.self),
                                     maxDurationSeconds: query.get("max", as: Double.self), pixelsPerPoint: scale)
        let parameters = [width, thumbWidth, thumbHeight, scale, layout.minDurationSeconds ?? -1, layout.maxDurationSeconds ?? -1]
            .map { JSON.format($0) }.joined(separator: "_")
        let name = "tiles/\(clip.id)-\(clip.version)/\(parameters)-\(first)-\(count)-\(mode.rawValue)\(skipDull ? "-skipdull" : "").png"
        if let cached = server.cache.lookup(name) {
            return try await FileResponses.serve(cached, request: request, context: context, cache: "private, max-age=86400")
        }
        let tile = TileRequest(layout: layout, first: first, count: count, sampling: mode, workers: 2, skipDull: skipDull)
        switch await server.engine(clip, .tile(path: clip.path, request: tile), pool: server.interactive, client: context.client) {
        case let .bytes(png):
            // Kept for the next request, sent from memory: the file may be evicted at once (larger than --cache-size,
            // or another tile stored meanwhile), and the cache may not be writable at all.
            let kept = (try? server.cache.store(name, data: png)) != nil
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: kept ? "private, max-age=86400" : "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: png)))
        case let .refused(report):
            return API.unprocessable(API.relative(report, clip))
        case let .failed(response):
            return response
        case .result:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered a tile without its picture")
        }
    }

    private func frames(_ context: ServeContext) async throws -> Response {
        guard let clip = try server.currentClip(context) else { return API.notFound("no such clip") }
        switch await server.engine(clip, .frames(path: clip.path), pool: server.interactive, client: context.client) {
        case let .result(value, _):
            // `keyframes`: the clean starts among the frames (where a copy may begin), the strip's ticks.
            return API.json(.object([("id", .string(clip.id)), ("times", value.member("times") ?? .array([])),
                                     ("keyframes", value.member("keyframes") ?? .array([]))]))
        case let .refused(report):
            return API.unprocessable(API.relative(report, clip))
        case let .failed(response):
            return response
        case .bytes:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered frames with bytes")
        }
    }

    /// `vtrim propose --json`'s object for the clip: `kinds` (`silence[=DB],black,scenes[=T]`), `pad` (seconds, default 0.15),
    /// `snap` (`keyframes` or `none`; by default none when removing silence, else keyframes). It decodes the whole clip (audio alone for silence), so it runs in the cut workers,
    /// whose deadline is progress, not a total.
    private func proposal(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let clip = try server.currentClip(context) else { return API.notFound("no such clip") }
        let query = request.uri.queryParameters
        let kinds = query.get("kinds") ?? ""
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789=,.-+ ")
        guard !kinds.isEmpty, kinds.count <= 80, kinds.allSatisfy({ allowed.contains($0) }) else {
            return API.badRequest("kinds: silence[=DB], black, scenes[=T], separated by commas")
        }
        let pad = query.get("pad").map { Double($0) ?? .nan } ?? 0.15
        guard pad.isFinite, (0...60).contains(pad) else { return API.badRequest("pad is seconds between 0 and 60") }
        let snap = query.get("snap") ?? (ProposalAsk.snapsByDefault(kinds: kinds) ? "keyframes" : "none")
        guard ["keyframes", "none"].contains(snap) else { return API.badRequest("snap is keyframes or none") }
        let ask = ProposalAsk(kinds: kinds, padSeconds: pad, snap: snap == "keyframes")
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        switch await server.engine(clip, .propose(path: clip.path, ask: ask, threads: ThreadShare(cores: cores, jobs: 1)), pool: server.long, client: context.client) {
        case let .result(value, _):
            return API.json(API.relative(value, clip))
        case let .refused(report):
            return API.unprocessable(API.relative(report, clip))
        case let .failed(response):
            return response
        case .bytes:
            return APIError.response(.internalServerError, code: "engine_unavailable", message: "the engine answered a proposal with bytes")
        }
    }

    /// The preview stand-in's state; a POST starts making it.
    private func previewStatus(_ context: ServeContext, start: Bool) throws -> Response {
        guard let known = try server.clip(context) else { return API.notFound("no such clip") }
        let clip = server.library.current(known)
        var members: [(String, JSON)] = [("id", .string(clip.id))]
        if start, let how = server.quarantine.reason(clip) { return EngineAnswer.crashed(clip, how: how) }
        let entry = start ? server.previews.start(clip) : server.previews.state(for: clip)
        switch entry?.state {
        case nil: members.append(("status", .string("none")))
        case let .running(progress)?:
            // Whether a GET would stream bytes now (the page sets the video's source then; progress needs a known duration).
            let streaming = entry.map { FileManager.default.fileExists(atPath: $0.partial) } ?? false
            members += [("status", .string("running")), ("progress", .number(progress)), ("has_bytes", .bool(streaming))]
        case .done?: members += [("status", .string("done")), ("progress", .number(1))]
        case let .failed(reason)?: members += [("status", .string("failed")), ("error", .string(reason))]
        }
        members.append(("url", .string("/media/\(clip.id)/preview.mp4")))
        return API.json(.object(members))
    }

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
}
