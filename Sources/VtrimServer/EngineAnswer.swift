import Foundation
import Hummingbird
import WorkerProtocol

/// What a worker's answer means for an HTTP request: the engine's result, a tile's bytes, the engine's
/// refusal (the command line's failure report, 422), or an error of the engine itself — it crashed (500
/// `engine_crashed`, and the file is quarantined), took too long (504 `engine_timeout`), could not start
/// (500 `engine_unavailable`) or the server is stopping (503).
enum EngineAnswer {
    case result(JSON, reply: WorkerReply)
    case bytes(Data)
    case refused(JSON)
    case failed(Response)

    static func from(_ result: WorkerPool.Result, clip: Library.Clip, quarantine: Quarantine) -> EngineAnswer {
        if case let .crashed(how) = result {
            quarantine.add(clip, reason: how)
            return .failed(crashed(clip, how: how))
        }
        return from(result, about: clip.relativePath)
    }

    /// A request about no file (a cut list): a crash is the request's alone, nothing is quarantined.
    static func from(_ result: WorkerPool.Result, about subject: String) -> EngineAnswer {
        switch result {
        case let .reply(message, payload):
            if let payload { return .bytes(payload) }
            if let value = message.result { return .result(value, reply: message) }
            return .refused(message.failure ?? .null)
        case let .crashed(how):
            return .failed(APIError.response(.internalServerError, code: "engine_crashed", message: "the engine crashed on \(subject) (\(how))"))
        case let .timedOut(seconds):
            return .failed(APIError.response(.gatewayTimeout, code: "engine_timeout",
                                             message: "the engine took more than \(Int(seconds)) s on \(subject) and was stopped"))
        case .cancelled:
            return .failed(APIError.response(.serviceUnavailable, code: "cancelled", message: "the request was cancelled (its client left, or the server is stopping)"))
        case let .unavailable(why):
            return .failed(APIError.response(.internalServerError, code: "engine_unavailable", message: why))
        }
    }

    static func crashed(_ clip: Library.Clip, how: String) -> Response {
        APIError.response(.internalServerError, code: "engine_crashed",
                          message: "the engine crashed on \(clip.relativePath) (\(how)); it is not tried again until the file changes")
    }
}
