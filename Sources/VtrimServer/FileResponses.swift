import DiskNames
import Foundation
import Hummingbird

/// Files as HTTP answers: whole, or the byte range a `Range` header asks for (a player seeks with them;
/// Chromium refuses to seek a source served without), and a file still being written, streamed as it grows.
enum FileResponses {
    /// `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range; anything else is served whole).
    enum Requested: Equatable {
        case whole
        case range(ClosedRange<Int64>)
        case unsatisfiable
    }

    static func parseRange(_ header: String?, size: Int64) -> Requested {
        guard let header, header.hasPrefix("bytes="), size > 0 else { return .whole }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard isDigits(parts[1]) else { return .whole }
            let suffix = Int64(parts[1]) ?? Int64.max
            guard suffix > 0 else { return .unsatisfiable }
            return .range(max(0, size - suffix)...(size - 1))
        }
        guard isDigits(parts[0]) else { return .whole }
        // A position past Int64 is past any file: unsatisfiable as a start, the file's end as an end.
        guard let first = Int64(parts[0]), first < size else { return .unsatisfiable }
        if !parts[1].isEmpty, !isDigits(parts[1]) { return .whole }
        let last = parts[1].isEmpty ? size - 1 : min(size - 1, Int64(parts[1]) ?? Int64.max)
        guard last >= first else { return .unsatisfiable }
        return .range(first...last)
    }

    private static func isDigits(_ text: String) -> Bool { !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } }

    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4", "m4v", "mov", "3gp", "3g2": return "video/mp4"
        case "webm": return "video/webm"
        case "mkv": return "video/x-matroska"
        case "ts", "m2ts", "mts": return "video/mp2t"
        case "avi": return "video/x-msvideo"
        case "m4a", "m4b": return "audio/mp4"
        case "mp3": return "audio/mpeg"
        case "flac": return "audio/flac"
        case "wav": return "audio/wav"
        case "ogg", "oga", "opus": return "audio/ogg"
        case "aac": return "audio/aac"
        case "mka": return "audio/x-matroska"
        case "png": return "image/png"
        default: return "application/octet-stream"
        }
    }

    /// `keeping`: held until the response's body has been written (a cache's hold on the file).
    static func serve(_ path: String, request: Request, context: some RequestContext, cache: String = "no-cache",
                      keeping: (any Sendable)? = nil) async throws -> Response {
        guard let info = DiskFile.status(path) else {
            return APIError.response(.notFound, code: "not_found", message: "no such file")
        }
        let size = Int64(info.st_size)
        var headers: HTTPFields = [.contentType: contentType(path), .acceptRanges: "bytes", .cacheControl: cache]
        // Hummingbird's FileIO hands the system a path's UTF-8, another name for one carrying bytes that are not
        // UTF-8 (`DiskName`): such a file is opened here and read through /proc/self/fd while its body is alive.
        var readable = path
        var kept: [any Sendable] = keeping.map { [$0] } ?? []
        if DiskName.hasEscapes(path) {
            let descriptor = DiskFile.open(path, O_RDONLY)
            guard descriptor >= 0 else { return APIError.response(.notFound, code: "not_found", message: "no such file") }
            kept.append(OpenedFile(descriptor: descriptor))
            readable = "/proc/self/fd/\(descriptor)"
        }
        let io = KeepingIO(io: FileIO(), path: readable, kept: kept)
        switch parseRange(request.headers[.range], size: size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case let .range(range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            if request.method == .head { return Response(status: .partialContent, headers: headers) }
            let body = try await io.loadFile(range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        case .whole:
            headers[.contentLength] = String(size)
            if request.method == .head || size == 0 { return Response(status: .ok, headers: headers) }
            return Response(status: .ok, headers: headers, body: try await io.loadFile(range: nil, context: context))
        }
    }

    /// A file that another process is still writing at `partial` and that becomes `final` when done: sent as it
    /// grows until `finished()` says it is complete (then to its end); no length, no ranges. The response always
    /// ends: a request that comes before the writer has made its file waits for the file (or for the end, when it
    /// is already in place as `final`, or failed: then the body is empty).
    static func streamGrowing(_ partial: String, final: String, finished: @escaping @Sendable () -> Bool) -> Response {
        let body = ResponseBody { writer in
            guard let handle = try await openWhenMade(partial, final: final, finished: finished) else {
                try await writer.finish(nil)
                return
            }
            defer { try? handle.close() }
            while true {
                let done = finished()
                let data = (try? handle.read(upToCount: 256 << 10)) ?? nil
                if let data, !data.isEmpty {
                    try await writer.write(ByteBuffer(bytes: data))
                    continue
                }
                if done { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "video/mp4", .cacheControl: "no-store"], body: body)
    }

    /// The growing file once it exists; `final` when the writer finished (and renamed it) first; nil when it ended
    /// without one. `finished()` is read before each try, so a file renamed between the two opens is still found.
    private static func openWhenMade(_ partial: String, final: String, finished: @Sendable () -> Bool) async throws -> FileHandle? {
        while true {
            let done = finished()
            if let handle = FileHandle(forReadingAtPath: partial) { return handle }
            if done { return FileHandle(forReadingAtPath: final) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }
}

/// A descriptor kept open as long as something holds it (a response body that reads through /proc/self/fd).
final class OpenedFile: Sendable {
    let descriptor: Int32
    init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }
}

/// FileIO over `path`, the body holding what is `kept` (an opened file, a cache's hold) until it has been written.
private struct KeepingIO {
    let io: FileIO
    let path: String
    let kept: [any Sendable]

    func loadFile(range: ClosedRange<Int>?, context: some RequestContext) async throws -> ResponseBody {
        let body = if let range { try await io.loadFile(path: path, range: range, context: context) } else { try await io.loadFile(path: path, context: context) }
        guard !kept.isEmpty else { return body }
        let kept = self.kept
        return body.map { chunk in withExtendedLifetime(kept) { chunk } }
    }
}
