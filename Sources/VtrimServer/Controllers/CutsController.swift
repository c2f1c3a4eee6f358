import Foundation
import Hummingbird
import TimelineCore
import WorkerProtocol

/// `/api/cuts`: a cut or join posted as JSON runs in a cut worker (`CutQueue`); its state is polled, and a running
/// one can be cancelled. `/api/plans`: the same body's plan alone (the strip shows it), which a cut can then run.
struct CutsController {
    let server: Server

    func register(on router: Router<ServeContext>) {
        router.post("/api/cuts") { request, _ in try await self.submit(request) }
        router.post("/api/plans") { request, _ in try await self.plan(request) }
        router.get("/api/cuts") { _, _ in API.json(.array(self.server.cuts.all().map(Self.cutJSON))) }
        router.get("/api/cuts/:id") { _, context in
            guard let job = self.server.cuts.job(try context.parameters.require("id")) else { return API.notFound("no such cut") }
            return API.json(Self.cutJSON(job))
        }
        router.delete("/api/cuts/:id") { request, context in
            try await API.emptyBody(request)
            let id = try context.parameters.require("id")
            guard self.server.cuts.job(id) != nil else { return API.notFound("no such cut") }
            guard let job = await self.server.cuts.cancel(id) else {
                return APIError.response(.conflict, code: "not_running", message: "the cut has already ended")
            }
            return API.json(Self.cutJSON(job))
        }
    }

    private struct CutBody: Decodable {
        let clip: String
        let start: Double?
        let end: Double?
        /// Several ranges joined into one output (in time order, not overlapping).
        let ranges: [ServeRange]?
        let mode: String?
        /// `POST /api/cuts`: the id of a plan `POST /api/plans` showed for the same body, to run as it was shown.
        let plan: String?
    }

    /// What a body asks for once validated: the ranges, the edit's shape, and the mode (nil: `EditDefaults`).
    private struct Submission {
        var ranges: [ServeRange]
        var shape: EditShape
        var mode: EditMode?
    }

    /// The submission a body makes, or the 400 it gets.
    private static func submission(_ body: CutBody) -> Swift.Result<Submission, API.BadBody> {
        // No mode: the default for what is written (`EditDefaults`, the command line's rule).
        var mode: EditMode?
        if let asked = body.mode {
            guard let known = EditMode(rawValue: asked) else { return .failure(API.BadBody("mode is one of copy, keyframe, exact, smart")) }
            mode = known
        }
        if let ranges = body.ranges {
            guard !ranges.isEmpty, ranges.count <= API.maximumRanges else { return .failure(API.BadBody("ranges holds 1 to \(API.maximumRanges) ranges")) }
            guard API.rangesAreValid(ranges) else { return .failure(API.BadBody("each range is {start, end, label} with 0 ≤ start < end seconds")) }
            if let problem = RangeOrder.problem(spans: ranges.map { (start: $0.start, end: $0.end) }) { return .failure(API.BadBody(problem)) }
            return .success(Submission(ranges: ranges, shape: .join, mode: mode))
        }
        guard let start = body.start, let end = body.end, start.isFinite, end.isFinite, start >= 0, end > start else {
            return .failure(API.BadBody("start and end are seconds with start < end"))
        }
        return .success(Submission(ranges: [ServeRange(start: start, end: end)], shape: .cut, mode: mode))
    }

    /// `POST /api/plans`: the plan `POST /api/cuts` would make for the same body (the worker's dry run, what
    /// `vtrim cut --dry-run --json` prints) as `{plan_id, clip, …report}`; nothing is queued or written. A cut posted
    /// with `"plan": plan_id` and the same body runs that plan.
    private func plan(_ request: Request) async throws -> Response {
        let clip: Library.Clip, submission: Submission
        switch try await accepted(request) {
        case let .success(taken): (clip, submission) = (taken.clip, taken.submission)
        case let .failure(refusal): return refusal.response
        }
        do throws(CutQueue.SubmitError) {
            let shown = try await server.cuts.preview(clip: clip, ranges: submission.ranges, shape: submission.shape, mode: submission.mode)
            var members: [(String, JSON)] = [("plan_id", .string(shown.id)), ("clip", .string(clip.id))]
            if case let .object(fields) = shown.report { members += fields.filter { !["plan_id", "clip"].contains($0.0) } }
            return API.json(.object(members))
        } catch {
            return Self.response(error)
        }
    }

    struct Refusal: Error {
        let response: Response
    }

    /// The body of a cut or plan request, its clip as on disk now and what it asks for; or the answer refusing it
    /// (400 for a bad body, 404 for an unknown clip, 500 for a clip that crashed the engine).
    private func accepted(_ request: Request) async throws -> Swift.Result<(body: CutBody, clip: Library.Clip, submission: Submission), Refusal> {
        guard let body = try await API.body(request, as: CutBody.self) else {
            return .failure(Refusal(response: APIError.response(.badRequest, code: "bad_json", message: "expected {\"clip\": id, \"start\": seconds, \"end\": seconds, \"mode\": \"copy|keyframe|exact|smart\"} or {\"clip\": id, \"ranges\": [{\"start\", \"end\", \"label\"}], \"mode\"}")))
        }
        guard let known = server.library.clip(id: body.clip) else { return .failure(Refusal(response: API.notFound("no such clip"))) }
        let clip = server.library.current(known)
        switch Self.submission(body) {
        case let .success(submission):
            if let how = server.quarantine.reason(clip) { return .failure(Refusal(response: EngineAnswer.crashed(clip, how: how))) }
            return .success((body, clip, submission))
        case let .failure(bad):
            return .failure(Refusal(response: API.badRequest(bad.message)))
        }
    }

    private static func response(_ error: CutQueue.SubmitError) -> Response {
        switch error {
        case let .refused(report): return API.unprocessable(report)
        case .engine(.failed(let response)): return response
        case .engine: return APIError.response(.internalServerError, code: "engine_unavailable", message: "no plan")
        }
    }

    private func submit(_ request: Request) async throws -> Response {
        let body: CutBody, clip: Library.Clip, submission: Submission
        switch try await accepted(request) {
        case let .success(taken): (body, clip, submission) = (taken.body, taken.clip, taken.submission)
        case let .failure(refusal): return refusal.response
        }
        if let plan = body.plan, plan.isEmpty || plan.count > 32 { return API.badRequest("plan is the plan_id of POST /api/plans") }
        do throws(CutQueue.SubmitError) {
            let job = try await server.cuts.submit(clip: clip, ranges: submission.ranges, shape: submission.shape, mode: submission.mode,
                                                   planID: body.plan)
            return API.json(Self.cutJSON(job), status: .accepted)
        } catch {
            return Self.response(error)
        }
    }

    /// `{id, status, progress, clip}` and the report's own fields (the plan, then `vtrim cut --json`'s object).
    static func cutJSON(_ job: CutQueue.Job) -> JSON {
        var members: [(String, JSON)] = [("id", .string(job.id)), ("status", .string(job.status.rawValue)),
                                         ("progress", .number(job.progress)), ("clip", .string(job.clip))]
        // The shown plan (`POST /api/plans`) the cut runs as it is; absent when it was planned for itself.
        if let plan = job.planID { members.append(("plan_id", .string(plan))) }
        if case let .object(fields) = job.report { members += fields.filter { !["id", "status", "progress"].contains($0.0) } }
        // Where the output goes (or would have gone), also for a cut whose report is an error.
        if !members.contains(where: { $0.0 == "output" }) { members.append(("output", .string(job.output))) }
        if job.status == .done { members.append(("url", .string("/media/cuts/\(job.id)"))) }
        members.append(("created_at", .string(Self.utc(job.createdAt))))
        if let ended = job.endedAt { members.append(("ended_at", .string(Self.utc(ended)))) }
        return .object(members)
    }

    /// ISO 8601 in UTC to the second ("2026-11-29T19:30:05Z"), by gmtime_r: a list of 500 cuts formats 1,000 times,
    /// and a Foundation formatter made for each costs more than the rest of the answer.
    static func utc(_ seconds: Double) -> String {
        var time = time_t(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
