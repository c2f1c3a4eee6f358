import Foundation
import Locking

/// A file on an HTTP server read at offsets through bounded range requests (`ReadAhead`: at most 256 KiB each, from
/// where a read begins, and not past an MP4's `moov` when a run reaches it), what was fetched kept at its offsets
/// (`ByteExtents`), so every reader of the input (a cut opens it several times, on several threads)
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
    /// Bytes kept at most (1 GiB): past it, the oldest ranges are dropped (fetched again if needed).
    static let maximumCachedBytes: Int64 = 1 << 30

    struct State {
        var held = ByteExtents(maximumBytes: RemoteFile.maximumCachedBytes)
        var readAhead = ReadAhead()
        var boxes: TopLevelBoxes
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
        state = Locked(State(boxes: TopLevelBoxes(fileSize: size)))
        if let whole { store(whole, from: 0) }
    }

    /// Up to `buffer.count` bytes at `offset` (0 past the end).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(RemoteError) -> Int {
        guard offset >= 0, offset < sizeBytes, buffer.count > 0, let target = buffer.baseAddress else { return 0 }
        let count = Int(min(Int64(buffer.count), sizeBytes - offset))
        let end = offset + Int64(count)
        var copied = 0
        while copied < count {
            let position = offset + Int64(copied)
            // What is held is copied; a miss plans one fetch from `position`, at least to what it holds next.
            let plan = state.withLock { state -> (copied: Int, fetch: Int64) in
                let held = state.held.held(at: position)
                if !held.isEmpty {
                    let take = min(held.count, count - copied)
                    held.prefix(take).withUnsafeBytes { source in
                        if let from = source.baseAddress { target.advanced(by: copied).copyMemory(from: from, byteCount: take) }
                    }
                    return (take, 0)
                }
                var run = state.readAhead.bytes(missAt: position, needed: end - position)
                if let movieEnd = state.boxes.end(after: position), movieEnd < position + run, movieEnd >= end {
                    run = movieEnd - position
                    state.readAhead.restart()
                }
                // sizeBytes ≤ 2⁵⁰: no sum here comes near Int64's end.
                run = min(run, (state.held.nextStart(after: position) ?? sizeBytes) - position, sizeBytes - position)
                return (0, run)
            }
            if plan.copied > 0 {
                copied += plan.copied
                continue
            }
            try fetch(from: position, count: plan.fetch)
        }
        return copied
    }

    private func fetch(from first: Int64, count: Int64) throws(RemoteError) {
        let lastByte = first + count - 1
        let answer = try fetcher.get(url, range: first...lastByte, maximumBytes: count)
        guard answer.status == 206, answer.contentRange?.total == sizeBytes, answer.etag == etag else {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "the file changed on the server while it was read (its size, ETag or range answer differ)")
        }
        // Every run ends inside the file: a short answer is the server's, not the end.
        guard Int64(answer.body.count) == count else {
            throw RemoteError(.truncated, url: url.redacted, reason: "bytes from \(first) could not be read (a short answer: \(answer.body.count) of \(count))")
        }
        store(answer.body, from: first)
    }

    /// Keeps `data` (starting at byte `offset`) and learns the box headers it brings.
    private func store(_ data: Data, from offset: Int64) {
        state.withLock { state in
            state.held.insert(data, at: offset)
            let held = state.held
            state.boxes.learn { position, count in held.bytes(at: position, count: count) }
        }
    }

    /// Bytes held (for tests and the report).
    public var cachedBytes: Int64 { state.withLock { $0.held.totalBytes } }
}
