import Dispatch
import Foundation
import Locking

/// A stream's segments fetched into one local file, in order (the init section first): an ordinary TS or
/// fragmented MP4 that the unchanged pipeline reads. Segments are fetched whole — every byte is needed — at most
/// `parallelFetches` at once, each bounded (its byte range, else `maximumSegmentBytes`) and checked against the
/// length its server announced (a short one is `truncated`, and nothing is left behind).
public enum Spool {
    /// No segment of a playlist vtrim reads is larger (a 6 s 4K segment at 100 Mb/s is 75 MB).
    public static let maximumSegmentBytes: Int64 = 512 << 20
    /// Of segment 0, this much is enough for the first timestamp of every stream (the origin of the URL's timeline).
    public static let headBytes: Int64 = 256 << 10

    public struct Written: Sendable, Equatable {
        public var segments: [Int]
        public var bytes: Int64
    }

    /// Segments already fetched (by index; -1 for the init section): a spool written again with one segment more
    /// fetches only that one.
    /// Sendable: a track's segments are fetched on their own thread beside another track's (DASH's sound beside its
    /// video), and a track's spool and the head of its segment 0 are written at once, both reading its init section.
    public final class Fetched: Sendable {
        private let state = Locked<(parts: [Int: Data], keptBytes: Int64)>(([:], 0))
        public init() {}

        func part(_ index: Int) -> Data? { state.withLock { $0.parts[index] } }

        /// Keeps `data` under `index` unless it is kept already or would take the total past `limitBytes`.
        func keep(_ data: Data, as index: Int, limitBytes: Int64 = .max) {
            state.withLock { state in
                guard state.parts[index] == nil, state.keptBytes + Int64(data.count) <= limitBytes else { return }
                state.parts[index] = data
                state.keptBytes += Int64(data.count)
            }
        }
    }

    /// Writes the init section of `segments` and the segments themselves into `path` (created or replaced).
    /// `segments` in increasing order, not necessarily adjacent (thumbnails need one here and there).
    public static func write(_ stream: HLSStream, segments: [Int], to path: String, fetcher: HTTPFetcher,
                             fetched: Fetched = Fetched()) throws(RemoteError) -> Written {
        let sections = Set(segments.map { stream.playlist.segments[$0].initSection })
        guard sections.count == 1 else {
            throw RemoteError(.badManifest, url: stream.playlistURL.redacted,
                              reason: "segments \(segments.first ?? 0)–\(segments.last ?? 0) change their initialisation section (EXT-X-MAP), which vtrim does not join")
        }
        let file = try SpoolFile(path: path, url: stream.playlistURL)
        defer { file.close() }
        if let section = sections.first ?? nil { try file.append(try initSection(stream, section, fetcher: fetcher, fetched: fetched)) }
        // A few at a time, appended in order: memory holds `parallelFetches` segments, not the stream (a proposal reads
        // all of it). Segments are kept for a later spool (one more before, where a range's first does not open cleanly)
        // while they add up to `keptBytes`.
        let batch = max(1, fetcher.options.parallelFetches)
        for start in stride(from: 0, to: segments.count, by: batch) {
            let chunk = Array(segments[start..<min(segments.count, start + batch)])
            let missing = chunk.filter { fetched.part($0) == nil }
            var got: [Int: Data] = [:]
            for (index, data) in zip(missing, try fetchAll(missing, of: stream, fetcher: fetcher)) { got[index] = data }
            for index in chunk {
                let data = fetched.part(index) ?? got[index] ?? Data()
                try file.append(data)
                fetched.keep(data, as: index, limitBytes: keptBytes)
            }
        }
        return Written(segments: segments, bytes: file.bytes)
    }

    /// Segments kept in memory for a later spool of the same input, at most.
    static let keptBytes: Int64 = 64 << 20

    /// The init section and the first `headBytes` of segment 0: enough to read where the stream's timeline begins.
    /// `rangeIgnored`: the server sent the whole segment to a request for its head.
    /// `initBytes`: the init section's length, where segment 0's bytes begin in the file.
    public static func writeHead(_ stream: HLSStream, to path: String, fetcher: HTTPFetcher,
                                 fetched: Fetched = Fetched()) throws(RemoteError) -> (bytes: Int64, rangeIgnored: Bool, initBytes: Int64) {
        var parts: [Data] = []
        let first = stream.playlist.segments[0]
        if let section = first.initSection { parts.append(try initSection(stream, section, fetcher: fetcher, fetched: fetched)) }
        let initBytes = Int64(parts.first?.count ?? 0)
        if let range = first.byteRange {
            // Its head, cut from the file's bytes where the server ignores ranges (offset + length fits: the parser checked).
            let head = ByteRange(offset: range.offset, length: min(range.length, headBytes))
            let data = try fetchExactly(stream.segmentURLs[0], range: head, fetcher: fetcher, what: "the head of segment 0")
            parts.append(data)
            try store(parts, at: path, url: stream.playlistURL)
            return (parts.reduce(0) { $0 + Int64($1.count) }, false, initBytes)
        }
        let answer = try fetcher.get(stream.segmentURLs[0], range: 0...(headBytes - 1), maximumBytes: maximumSegmentBytes)
        // A server that ignores Range sends the whole segment (bounded): its head is what is used.
        parts.append(answer.body.prefix(Int(headBytes)))
        try store(parts, at: path, url: stream.playlistURL)
        return (parts.reduce(0) { $0 + Int64($1.count) }, answer.status == 200, initBytes)
    }

    /// `length` bytes of segment `index` from `offset` (bytes into the segment, within its byte range if it has one).
    public static func segmentBytes(_ stream: HLSStream, segment index: Int, offset: Int64, length: Int64,
                                    fetcher: HTTPFetcher) throws(RemoteError) -> Data {
        guard let wanted = byteRange(within: stream.playlist.segments[index].byteRange, offset: offset, length: length) else {
            throw RemoteError(.badManifest, url: stream.segmentURLs[index].redacted, reason: "bytes \(offset)+\(length) lie outside segment \(index)")
        }
        return try fetchExactly(stream.segmentURLs[index], range: wanted, fetcher: fetcher, what: "bytes of segment \(index)")
    }

    /// The file's bytes for `length` bytes at `offset` into a segment held at `segment` (its byte range; nil: the
    /// whole file); nil where they are not all inside it, or are none, or are more than one segment may hold.
    static func byteRange(within segment: ByteRange?, offset: Int64, length: Int64) -> ByteRange? {
        guard offset >= 0, length >= 1, length <= maximumSegmentBytes else { return nil }
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow else { return nil }
        guard let segment else { return ByteRange(offset: offset, length: length) }
        guard end <= segment.length else { return nil }
        let (start, shifted) = segment.offset.addingReportingOverflow(offset)
        return shifted ? nil : ByteRange(offset: start, length: length)
    }

    /// Fetches segment `segment`'s init section into `fetched` (none: nothing), so that two threads about to read it
    /// (a spool and segment 0's head) find it there instead of fetching it twice.
    public static func fetchInitSection(_ stream: HLSStream, of segment: Int, fetcher: HTTPFetcher, fetched: Fetched) throws(RemoteError) {
        guard stream.playlist.segments.indices.contains(segment), let section = stream.playlist.segments[segment].initSection else { return }
        _ = try initSection(stream, section, fetcher: fetcher, fetched: fetched)
    }

    /// Init section `index` (fetched once per spool's life: kept in `fetched` under −1 − index).
    private static func initSection(_ stream: HLSStream, _ index: Int, fetcher: HTTPFetcher, fetched: Fetched) throws(RemoteError) -> Data {
        if let known = fetched.part(-1 - index) { return known }
        let section = stream.playlist.initSections[index]
        let data = try fetchExactly(stream.initURLs[index], range: section.byteRange, fetcher: fetcher, what: "the initialisation section")
        // Kept whatever the total: an init section is small and every spool of the track needs it.
        fetched.keep(data, as: -1 - index)
        return data
    }

    private static func fetchExactly(_ url: RemoteURL, range: ByteRange?, fetcher: HTTPFetcher, what: String) throws(RemoteError) -> Data {
        if let range, range.offset < 0 || range.length < 1 {
            throw RemoteError(.badManifest, url: url.redacted, reason: "\(what) has no bytes (range \(range.offset), \(range.length))")
        }
        if let range, range.length > maximumSegmentBytes {
            throw RemoteError(.tooLarge, url: url.redacted, reason: "\(what) is \(range.length) bytes by its playlist, more than vtrim reads of one segment")
        }
        let answer = try fetcher.get(url, range: range.map { $0.offset...$0.last }, maximumBytes: maximumSegmentBytes)
        guard let range else { return answer.body }
        if answer.status == 200 {
            // Range ignored: the whole resource came; the bytes asked for are cut from it.
            guard Int64(answer.body.count) >= range.offset + range.length else {
                throw RemoteError(.truncated, url: url.redacted, reason: "\(what) ends at byte \(answer.body.count), before its range \(range.offset)–\(range.last)")
            }
            return answer.body.subdata(in: Int(range.offset)..<Int(range.offset + range.length))
        }
        guard Int64(answer.body.count) == range.length else {
            throw RemoteError(.truncated, url: url.redacted, reason: "\(what) holds \(answer.body.count) of the \(range.length) bytes its playlist names")
        }
        return answer.body
    }

    /// Segments `indices`, fetched at most `parallelFetches` at once; the first failure stops the rest.
    private static func fetchAll(_ indices: [Int], of stream: HLSStream, fetcher: HTTPFetcher) throws(RemoteError) -> [Data] {
        let results = Locked<(next: Int, parts: [Int: Data], failure: RemoteError?)>((0, [:], nil))
        let work: @Sendable () -> Void = {
            while let position = results.withLock({ state -> Int? in
                guard state.failure == nil, state.next < indices.count else { return nil }
                state.next += 1
                return state.next - 1
            }) {
                let index = indices[position], segment = stream.playlist.segments[index]
                do throws(RemoteError) {
                    let data = try fetchExactly(stream.segmentURLs[index], range: segment.byteRange, fetcher: fetcher, what: "segment \(index)")
                    results.withLock { $0.parts[position] = data }
                } catch {
                    let failure = RemoteError(error.kind, url: error.url, reason: "segment \(index) (line \(segment.line)): \(error.reason)")
                    results.withLock { if $0.failure == nil { $0.failure = failure } }
                }
            }
        }
        // Threads of their own: a fetch blocks on the network, which would starve Dispatch's pool (`OwnThread`).
        let fetchers = (0..<max(1, min(fetcher.options.parallelFetches, indices.count))).map { _ in OwnThread.start(work) }
        fetchers.forEach { $0.wait() }
        let state = results.withLock { $0 }
        if let failure = state.failure { throw failure }
        return indices.indices.map { state.parts[$0] ?? Data() }
    }

/// A spool being written: created (or emptied), appended to, closed.
    private final class SpoolFile {
        let handle: FileHandle
        let url: RemoteURL
        private(set) var bytes: Int64 = 0

        init(path: String, url: RemoteURL) throws(RemoteError) {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw RemoteError(.fetchFailed, url: url.redacted, reason: "cannot write its segments to a temporary file (\(path))")
            }
            self.handle = handle
            self.url = url
        }

        func append(_ data: Data) throws(RemoteError) {
            do { try handle.write(contentsOf: data) } catch {
                throw RemoteError(.fetchFailed, url: url.redacted, reason: "cannot write its segments to a temporary file (\(error.localizedDescription))")
            }
            bytes += Int64(data.count)
        }

        func close() { try? handle.close() }
    }

    private static func store(_ parts: [Data], at path: String, url: RemoteURL) throws(RemoteError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "cannot write its segments to a temporary file (\(path))")
        }
        defer { try? handle.close() }
        do {
            for part in parts { try handle.write(contentsOf: part) }
        } catch {
            throw RemoteError(.fetchFailed, url: url.redacted, reason: "cannot write its segments to a temporary file (\(error.localizedDescription))")
        }
    }
}
