import Foundation
import Locking

/// A file on an HTTP server read at offsets through bounded range requests (`ReadAhead`: at most 256 KiB each),
/// its blocks kept once fetched, so every reader of the input (a cut opens it several times, on several threads)
/// fetches each byte once. Its size comes from the first answer's Content-Range; every later answer must agree, and
/// keep the first's ETag, or the read fails ("changed on the server") rather than mixing two versions. A server that
/// ignores Range (a 200 to the first request) is read once, whole (bounded), and said so.
public final class RemoteFile: Sendable {
    public let url: RemoteURL
    public let sizeBytes: Int64
    public let rangeIgnored: Bool
    private let etag: String?
    private let fetcher: HTTPFetcher
    private let state: Locked<State>

    static let headBytes: Int64 = 64 << 10
    /// Larger is no file: block arithmetic stays far from Int64's end.
    static let maximumSize: Int64 = 1 << 50
    /// A server that ignores ranges is read whole only up to this size.
    public static let maximumWholeBytes: Int64 = 1 << 30
    /// Blocks kept at most (1 GiB): past it, the oldest are dropped (fetched again if needed).
    static let maximumCachedBlocks = 65_536

    struct State {
        var blocks: [Int64: Data] = [:]
        var order: [Int64] = []
        var readAhead = ReadAhead()
    }

    public static func open(_ url: RemoteURL, fetcher: HTTPFetcher) throws(RemoteError) -> RemoteFile {
        // The first 64 KiB: an MP4's `moov` is often all there; the answer says the size and whether ranges are honoured.
        let first = try fetcher.get(url, range: 0...(Self.headBytes - 1), maximumBytes: maximumWholeBytes)
        if first.status == 200 {
            return RemoteFile(url: url, size: Int64(first.body.count), etag: first.etag, fetcher: fetcher, whole: first.body)
        }
        guard let total = first.contentRange?.total else {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "the server does not say how large the file is (Content-Range without a total)")
        }
        guard total <= maximumSize else {
            throw RemoteError(.tooLarge, url: url.redacted, reason: "the server says the file holds \(total) bytes, more than vtrim reads (1 PiB)")
        }
        guard Int64(first.body.count) == min(headBytes, total) else {
            throw RemoteError(.truncated, url: url.redacted, reason: "the server sent \(first.body.count) of the first \(min(headBytes, total)) bytes")
        }
        let file = RemoteFile(url: url, size: total, etag: first.etag, fetcher: fetcher, whole: nil)
        file.store(first.body, from: 0)
        return file
    }

    private init(url: RemoteURL, size: Int64, etag: String?, fetcher: HTTPFetcher, whole: Data?) {
        self.url = url
        sizeBytes = size
        self.etag = etag
        self.fetcher = fetcher
        rangeIgnored = whole != nil
        state = Locked(State())
        if let whole { store(whole, from: 0) }
    }

    /// Up to `buffer.count` bytes at `offset` (0 past the end).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(RemoteError) -> Int {
        guard offset >= 0, offset < sizeBytes, buffer.count > 0 else { return 0 }
        let count = Int(min(Int64(buffer.count), sizeBytes - offset))
        var copied = 0
        while copied < count {
            let position = offset + Int64(copied)
            let block = position / ReadAhead.blockBytes
            let data = try blockData(block, neededThrough: (offset + Int64(count) - 1) / ReadAhead.blockBytes)
            let within = Int(position - block * ReadAhead.blockBytes)
            let take = min(count - copied, data.count - within)
            // A block is whole but at the file's end: a short one elsewhere is a server's short answer, not the end.
            guard take > 0 else { throw RemoteError(.truncated, url: url.redacted, reason: "bytes from \(position) could not be read (a short answer)") }
            data.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
                to.advanced(by: copied).copyMemory(from: from.advanced(by: within), byteCount: take)
            }
            copied += take
        }
        return copied
    }

    private func blockData(_ block: Int64, neededThrough last: Int64) throws(RemoteError) -> Data {
        let plan = state.withLock { state -> (cached: Data?, run: Int64) in
            if let data = state.blocks[block] { return (data, 0) }
            return (nil, state.readAhead.blocks(missAt: block, needed: last - block + 1))
        }
        if let cached = plan.cached { return cached }
        let first = block * ReadAhead.blockBytes
        // sizeBytes ≤ 2⁵⁰: no product here comes near Int64's end.
        let lastByte = min(sizeBytes - first, plan.run * ReadAhead.blockBytes) + first - 1
        let answer = try fetcher.get(url, range: first...lastByte, maximumBytes: lastByte - first + 1)
        guard answer.status == 206, answer.contentRange?.total == sizeBytes, answer.etag == etag,
              Int64(answer.body.count) == lastByte - first + 1 else {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "the file changed on the server while it was read (its size, ETag or range answer differ)")
        }
        store(answer.body, from: first)
        return state.withLock { $0.blocks[block] } ?? answer.body.prefix(Int(ReadAhead.blockBytes))
    }

    /// Keeps `data` (starting at byte `offset`, a block boundary) as blocks.
    private func store(_ data: Data, from offset: Int64) {
        state.withLock { state in
            var start = 0
            while start < data.count {
                let end = min(data.count, start + Int(ReadAhead.blockBytes))
                let block = (offset + Int64(start)) / ReadAhead.blockBytes
                if state.blocks[block] == nil { state.order.append(block) }
                state.blocks[block] = Data(data[data.startIndex + start..<data.startIndex + end])
                start = end
            }
            while state.order.count > Self.maximumCachedBlocks { state.blocks[state.order.removeFirst()] = nil }
        }
    }

    /// Bytes held (for tests and the report).
    public var cachedBytes: Int64 { state.withLock { $0.blocks.values.reduce(0) { $0 + Int64($1.count) } } }
}
