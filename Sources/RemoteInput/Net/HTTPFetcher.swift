import CCurl
import Foundation
import Locking

/// One answer to a GET: the status, the body, and what its headers said.
public struct HTTPAnswer: Sendable {
    public var url: RemoteURL
    public var status: Int
    public var body: Data
    public var contentRange: (first: Int64, last: Int64, total: Int64?)?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
}

/// GET requests through libcurl (vtrim's own reader: bounded ranges, its redirect rules, retries), counted in a
/// ledger. Blocking; call from worker threads, never from Swift's cooperative pool. Handles (kept-alive connections)
/// are pooled behind a lock.
public final class HTTPFetcher: Sendable {
    public let options: FetchOptions
    public let ledger = FetchLedger()
    /// The origin the `--http-header` lines belong to (the input's): never sent anywhere else.
    private let headerOrigin: String?
    /// Idle libcurl handles, as addresses (a handle is used by one thread at a time: taken out under the lock, put back after).
    private let pool = Locked<[UInt]>([])
    private static let initialised: Bool = ccurl_global_init() == 0
    static let maximumRedirects = 5

    public init(options: FetchOptions, for input: RemoteURL?) {
        self.options = options
        headerOrigin = input?.origin
    }

    /// Stops every transfer (an interrupt): each fails at its next progress callback, and none is retried.
    public static func stopAll() { ccurl_stop_all() }

    deinit {
        pool.withLock { handles in handles.forEach { ccurl_handle_free(UnsafeMutableRawPointer(bitPattern: $0)) } }
    }

    /// `range`: bytes first...last (an answer must be a 206 for exactly those bytes, or a 200 with the whole resource,
    /// which `rangeIgnored` then reports). `maximumBytes` bounds the body, announced or received.
    public func get(_ url: RemoteURL, range: ClosedRange<Int64>? = nil, maximumBytes: Int64) throws(RemoteError) -> HTTPAnswer {
        guard Self.initialised else { throw RemoteError(.fetchFailed, url: url.redacted, reason: "libcurl could not be initialised") }
        var current = url
        for _ in 0...Self.maximumRedirects {
            let answer = try getWithRetries(current, range: range, maximumBytes: maximumBytes)
            guard (300...399).contains(answer.status), answer.status != 304 else {
                return try checked(answer, requested: url, range: range)
            }
            guard let location = answer.location, let next = current.resolving(location) else {
                throw RemoteError(.refused, url: url.redacted, reason: "redirected to a URL vtrim does not read (only http and https)")
            }
            if current.isSecure, !next.isSecure, !options.insecure {
                throw RemoteError(.refused, url: url.redacted, reason: "redirected from https to http (\(next.redacted)); --insecure allows it")
            }
            current = next
        }
        throw RemoteError(.refused, url: url.redacted, reason: "more than \(Self.maximumRedirects) redirects")
    }

    private func checked(_ raw: RawAnswer, requested url: RemoteURL, range: ClosedRange<Int64>?) throws(RemoteError) -> HTTPAnswer {
        switch raw.status {
        case 200, 206: break
        case 404, 410: throw RemoteError(.notFound, url: url.redacted, reason: "the server has no such file (HTTP \(raw.status))")
        case 401, 403: throw RemoteError(.fetchFailed, url: url.redacted, reason: "the server refused access (HTTP \(raw.status)); --header can send a token")
        default: throw RemoteError(.fetchFailed, url: url.redacted, reason: "the server answered HTTP \(raw.status)")
        }
        if raw.status == 206, range == nil {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "the server answered part of the file (HTTP 206) to a request for all of it")
        }
        let contentRange = raw.status == 206 ? ContentRange.parse(raw.contentRange) : nil
        if let range, raw.status == 206 {
            guard let contentRange, contentRange.first == range.lowerBound, contentRange.last <= range.upperBound,
                  Int64(raw.body.count) == contentRange.last - contentRange.first + 1 else {
                throw RemoteError(.fetchFailed, url: url.redacted, reason: "the server answered bytes \(raw.contentRange ?? "?") to a request for \(range.lowerBound)-\(range.upperBound)")
            }
        }
        return HTTPAnswer(url: raw.url, status: raw.status, body: raw.body, contentRange: contentRange, contentType: raw.contentType,
                          etag: raw.etag, lastModified: raw.lastModified)
    }

    private func getWithRetries(_ url: RemoteURL, range: ClosedRange<Int64>?, maximumBytes: Int64) throws(RemoteError) -> RawAnswer {
        var attempt = 0
        while true {
            attempt += 1
            let answer = fetchOnce(url, range: range, maximumBytes: maximumBytes)
            ledger.count(url: url, bytes: Int64(answer.body.count))
            if answer.tooLarge {
                throw RemoteError(.tooLarge, url: url.redacted, reason: "the answer is larger than the \(maximumBytes) bytes this request can use")
            }
            let failure: RetrySchedule.Failure? = answer.curlCode != 0 ? .transport(Int(answer.curlCode))
                : RetrySchedule.retries(.status(answer.status)) ? .status(answer.status) : nil
            guard let failure else { return answer }
            // 42: aborted by the progress callback — an interrupt, never retried.
            guard RetrySchedule.retries(failure), attempt < max(1, options.attempts), answer.curlCode != 42 else {
                throw Self.error(failure, answer: answer, url: url, attempts: attempt)
            }
            ledger.countRetry()
            Thread.sleep(forTimeInterval: RetrySchedule.delaySeconds(attempt: attempt, retryAfter: answer.retryAfter))
        }
    }

    private static func error(_ failure: RetrySchedule.Failure, answer: RawAnswer, url: RemoteURL, attempts: Int) -> RemoteError {
        let tries = attempts == 1 ? "" : " (\(attempts) tries)"
        switch failure {
        case let .status(status):
            return RemoteError(.fetchFailed, url: url.redacted, reason: "the server answered HTTP \(status)\(tries)")
        case .transport(18):
            return RemoteError(.truncated, url: url.redacted, reason: "the server closed the connection before sending the announced bytes\(tries)")
        case .transport(60), .transport(35), .transport(51), .transport(58), .transport(77):
            return RemoteError(.refused, url: url.redacted, reason: "TLS failed: \(answer.error) (--insecure skips the certificate check)")
        case .transport:
            return RemoteError(.fetchFailed, url: url.redacted, reason: "\(answer.error)\(tries)")
        }
    }

    private func fetchOnce(_ url: RemoteURL, range: ClosedRange<Int64>?, maximumBytes: Int64) -> RawAnswer {
        let handle = pool.withLock { $0.popLast() }.flatMap { UnsafeMutableRawPointer(bitPattern: $0) } ?? ccurl_handle_new()
        defer { if let handle { pool.withLock { $0.append(UInt(bitPattern: handle)) } } }
        let headers = url.origin == headerOrigin ? options.headers : []
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        var response = ccurl_response()
        defer { ccurl_response_free(&response) }
        let pointers: [UnsafePointer<CChar>?] = cHeaders.map { UnsafePointer($0) }
        _ = url.url.absoluteString.withCString { cURL in
            pointers.withUnsafeBufferPointer { headerList in
                var request = ccurl_request(url: cURL, first: range?.lowerBound ?? -1, last: range?.upperBound ?? -1,
                                            headers: headerList.baseAddress, header_count: Int32(headerList.count),
                                            max_body: maximumBytes, connect_timeout_ms: Int(options.timeoutSeconds) * 1000,
                                            stall_seconds: Int(options.timeoutSeconds), insecure: options.insecure ? 1 : 0)
                return handle.map { ccurl_fetch($0, &request, &response) } ?? 2
            }
        }
        if handle == nil { response.curl_code = 2 } // CURLE_FAILED_INIT
        return RawAnswer(response, url: url)
    }
}

/// A response as libcurl gave it, before vtrim judges it.
struct RawAnswer {
    var url: RemoteURL
    var status: Int
    var body: Data
    var curlCode: Int32
    var error: String
    var tooLarge: Bool
    var contentRange: String?, location: String?, contentType: String?, etag: String?, lastModified: String?, retryAfter: String?

    init(_ response: ccurl_response, url: RemoteURL) {
        self.url = url
        status = Int(response.status)
        body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
        curlCode = response.curl_code
        tooLarge = response.too_large != 0
        func text<T>(_ field: T) -> String? {
            withUnsafeBytes(of: field) { raw in
                let bytes = raw.prefix { $0 != 0 }
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
        }
        error = text(response.error) ?? "network error"
        contentRange = text(response.content_range)
        location = text(response.location)
        contentType = text(response.content_type)
        etag = text(response.etag)
        lastModified = text(response.last_modified)
        retryAfter = text(response.retry_after)
    }
}

/// `Content-Range: bytes first-last/total` (total may be `*`).
enum ContentRange {
    static func parse(_ text: String?) -> (first: Int64, last: Int64, total: Int64?)? {
        guard let text, text.hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).split(separator: "/")
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else { return nil }
        let total = Int64(parts[1])
        if let total, total <= last { return nil }
        return (first, last, total)
    }
}

/// Requests and bytes fetched, for the report and the progress bar.
public final class FetchLedger: Sendable {
    public struct Totals: Sendable, Equatable {
        public var requests = 0
        public var bytes: Int64 = 0
        public var retries = 0
    }

    private let totals = Locked(Totals())

    /// Bytes every fetcher of this process fetched, and who is told of each answer (the progress line).
    private static let process = Locked(ProcessBytes())

    private struct ProcessBytes: Sendable {
        var bytes: Int64 = 0
        var observer: (@Sendable () -> Void)?
    }

    /// Bytes fetched by every URL input of this process so far.
    public static var processBytes: Int64 { process.withLock { $0.bytes } }

    /// `observer` is called (on the fetching thread, outside any lock) after each answer is counted.
    public static func observe(_ observer: (@Sendable () -> Void)?) { process.withLock { $0.observer = observer } }

    func count(url: RemoteURL, bytes: Int64) {
        totals.withLock { $0.requests += 1; $0.bytes += bytes }
        let observer = Self.process.withLock { state -> (@Sendable () -> Void)? in
            state.bytes = state.bytes.addingReportingOverflow(bytes).overflow ? Int64.max : state.bytes + bytes
            return state.observer
        }
        observer?()
    }
    func countRetry() { totals.withLock { $0.retries += 1 } }
    public var current: Totals { totals.withLock { $0 } }
}
