import Foundation
import Hummingbird

/// `/media`: the clips' own files, their preview stand-ins and finished cuts, served with Range.
struct MediaController {
    let server: Server

    func register(on router: Router<ServeContext>) {
        router.get("/media/:id") { request, context in try await self.media(request, context) }
        router.head("/media/:id") { request, context in try await self.media(request, context) }
        router.get("/media/:id/preview.mp4") { request, context in try await self.preview(request, context) }
        router.get("/media/cuts/:id") { request, context in try await self.cutOutput(request, context) }
    }

    private func media(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let clip = try server.clip(context) else { return API.notFound("no such clip") }
        return try await FileResponses.serve(clip.path, request: request, context: context)
    }

    /// Seconds a GET of a preview whose worker has not made its file yet waits before answering 503.
    static let previewFileWaitSeconds = 10.0

    /// The preview stand-in: from the cache with Range once made; while being made, streamed as it grows (a GET
    /// before the worker has made its file waits for it, at most `previewFileWaitSeconds`, then answers 503 with
    /// Retry-After); 404 when none was asked for (only a POST starts one) or it has been evicted since.
    private func preview(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let known = try server.clip(context) else { return API.notFound("no such clip") }
        let clip = server.library.current(known)
        guard let entry = server.previews.state(for: clip) else {
            return API.notFound("no preview of this clip; POST /api/clips/\(clip.id)/preview makes one")
        }
        switch entry.state {
        case .done:
            // Held while this response reads it: a preview larger than the whole cache stays until it has been served.
            guard let hold = server.cache.hold(entry.name, serving: request.method == .get) else { return try await preview(request, context) }
            return try await FileResponses.serve(entry.final, request: request, context: context, cache: "private, max-age=3600", keeping: hold)
        case let .failed(reason):
            return APIError.response(.unprocessableContent, code: "preview_failed", message: reason)
        case .running:
            let previews = server.previews
            // Before the worker has made its file, wait for the file or the end, so that a preview that fails first is
            // answered as failed (422), not as 200 with an empty body.
            let deadline = ContinuousClock.now + .milliseconds(Int(Self.previewFileWaitSeconds * 1000))
            while case .running? = previews.state(for: clip)?.state, !FileManager.default.fileExists(atPath: entry.partial) {
                guard ContinuousClock.now < deadline else {
                    var response = APIError.response(.serviceUnavailable, code: "preview_not_ready",
                                                     message: "the preview is being made and has no bytes yet; ask again")
                    response.headers[.retryAfter] = "2"
                    return response
                }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            guard case .running? = previews.state(for: clip)?.state else { return try await preview(request, context) }
            return FileResponses.streamGrowing(entry.partial, final: entry.final) {
                if case .running? = previews.state(for: clip)?.state { return false }
                return true
            }
        }
    }

    private func cutOutput(_ request: Request, _ context: ServeContext) async throws -> Response {
        guard let job = server.cuts.job(try context.parameters.require("id")), job.status == .done else {
            return API.notFound("no such finished cut")
        }
        return try await FileResponses.serve(job.output, request: request, context: context)
    }
}
