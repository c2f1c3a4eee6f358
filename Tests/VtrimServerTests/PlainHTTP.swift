import Foundation
import Glibc

/// HTTP/1.1 over a plain socket to 127.0.0.1 — no client library (HummingbirdTesting would bring an HTTP
/// client and TLS into every build): one request, `Connection: close`, the answer read to its end.
struct PlainHTTP {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int

    func request(_ method: String, _ path: String, host: String? = nil, headers: [String: String] = [:], body: String? = nil) throws -> Answer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(errno)") }
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        lines += headers.map { "\($0.key): \($0.value)" }
        if let body { lines.append("Content-Length: \(body.utf8.count)") }
        let message = Data((lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")).utf8)
        _ = message.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no header in \(received.count) bytes") }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Failure(description: "bad status line")
        }
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(received[split.upperBound...])
        if fields["transfer-encoding"]?.lowercased() == "chunked" { body = Self.dechunk(body) }
        return Answer(status: status, headers: fields, body: body)
    }

    private static func dechunk(_ data: Data) -> Data {
        var out = Data(), index = data.startIndex
        while let lineEnd = data[index...].range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard data.distance(from: start, to: data.endIndex) >= size else { break }
            let end = data.index(start, offsetBy: size)
            out.append(data[start..<end])
            index = data.index(end, offsetBy: 2, limitedBy: data.endIndex) ?? data.endIndex
        }
        return out
    }
}
