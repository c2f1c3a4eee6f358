import DiskNames
import Foundation
import Glibc
import Hummingbird
import Locking
import Synchronization
import WorkerProtocol

/// What a request must show to be served: a Host header naming this server (DNS rebinding), the access
/// token (a cookie set from the URL vtrim printed, or `Authorization: Bearer`), and for anything that
/// changes state a same-origin request with a JSON body (CSRF).
final class Security: Sendable {
    let token: String
    private let host: String
    private let port = Atomic<Int>(0)
    /// `allowedHosts` as last worked out (system uptime, seconds), so a request does not list the machine's
    /// interfaces: worked out again at most every `hostsRefreshSeconds` (an address may come and go).
    private let hostsCache = Locked<(madeAt: Double, port: Int, hosts: Set<String>)?>(nil)
    static let hostsRefreshSeconds = 10.0

    init(token: String, host: String) {
        self.token = token
        self.host = host
    }

    func bound(port: Int) { self.port.store(port, ordering: .releasing) }
    var boundPort: Int { port.load(ordering: .acquiring) }

    /// The cookie's name includes the port: cookies are not port-scoped, so two servers on one machine
    /// would otherwise overwrite each other's.
    var cookieName: String { "vtrim_token_\(boundPort)" }

    /// Host headers this server answers: the loopback names, and — when it is bound elsewhere — the
    /// address it is bound to; bound to all addresses (0.0.0.0, ::), every address of this machine and its
    /// host name. Anything else is a DNS-rebinding page's name for us and is refused.
    var allowedHosts: Set<String> {
        let port = boundPort, now = ProcessInfo.processInfo.systemUptime
        if let cached = hostsCache.withLock({ $0 }), cached.port == port, now - cached.madeAt < Self.hostsRefreshSeconds {
            return cached.hosts
        }
        let hosts = Self.hosts(bound: host, port: port)
        hostsCache.withLock { $0 = (now, port, hosts) }
        return hosts
    }

    private static func hosts(bound host: String, port: Int) -> Set<String> {
        var names = ["127.0.0.1", "localhost", "[::1]"]
        if ["0.0.0.0", "::"].contains(host) {
            names += machineAddresses().map { $0.contains(":") ? "[\($0)]" : $0 }
        } else if !["127.0.0.1", "localhost", "::1"].contains(host) {
            names.append(host.contains(":") ? "[\(host)]" : host)
        }
        return Set(names.map { "\($0):\(port)".lowercased() })
    }

    /// This machine's interface addresses (IPv4 and IPv6, link-local scope ids dropped) and host names.
    static func machineAddresses() -> [String] {
        var names: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty { names.append(name) }
        }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return names }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            names.append(String(text.split(separator: "%").first ?? Substring(text)))
        }
        return names
    }

    func hostAllowed(_ header: String?) -> Bool {
        guard let header else { return false }
        return allowedHosts.contains(header.lowercased())
    }

    /// An Origin header, where sent, must be this server's.
    func originAllowed(_ header: String?) -> Bool {
        guard let header, header != "null" else { return header == nil }
        guard header.lowercased().hasPrefix("http://") else { return false }
        return allowedHosts.contains(String(header.lowercased().dropFirst("http://".count)))
    }

    func authorized(_ request: Request) -> Bool {
        if let value = request.headers[.authorization], value.hasPrefix("Bearer "),
           Self.equal(String(value.dropFirst("Bearer ".count)), token) {
            return true
        }
        if let cookie = request.cookies[cookieName]?.value, Self.equal(cookie, token) { return true }
        return false
    }

    /// Compares without stopping at the first difference (the token is a secret).
    static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(left, right) { difference |= x ^ y }
        return difference == 0
    }

    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}

/// Applies `Security` to every request before any route runs.
struct SecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    let security: Security

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard security.hostAllowed(request.head.authority) else {
            return APIError.response(.forbidden, code: "foreign_host", message: "this server answers only to its own address")
        }
        // The URL vtrim printed carries the token once: it becomes a cookie, and the address bar loses it.
        if request.method == .get, let given = request.uri.queryParameters.get("token") {
            guard Security.equal(given, security.token) else {
                return APIError.response(.unauthorized, code: "unauthorized", message: "wrong access token")
            }
            var response = Response(status: .seeOther, headers: [.location: request.uri.path])
            response.setCookie(Cookie(name: security.cookieName, value: security.token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        guard security.authorized(request) else {
            return APIError.response(.unauthorized, code: "unauthorized",
                                     message: "open the address vtrim serve printed (it carries the access token), or send Authorization: Bearer <token>")
        }
        if request.method != .get, request.method != .head {
            guard security.originAllowed(request.headers[.origin]),
                  request.headers.filter({ $0.name.canonicalName == "sec-fetch-site" }).allSatisfy({ ["same-origin", "none"].contains($0.value) }) else {
                return APIError.response(.forbidden, code: "foreign_origin", message: "state changes are accepted only from this server's own page")
            }
            let type = request.headers[.contentType]?.lowercased() ?? ""
            guard type.hasPrefix("application/json") else {
                return APIError.response(.unsupportedMediaType, code: "json_required", message: "send the request body as application/json")
            }
        }
        return try await next(request, context)
    }
}

/// Error answers: `{"error": {"code", "message"}}`, as the command line's JSON reports have them.
enum APIError {
    static func response(_ status: HTTPResponse.Status, code: String, message: String) -> Response {
        let body = JSON.object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: DiskName.displayInJSON(body.serialized))))
    }
}
