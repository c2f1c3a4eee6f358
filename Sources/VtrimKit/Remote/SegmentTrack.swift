import DiskNames
import Foundation
import Locking
import MediaEngine
import RemoteInput

/// One track's segments (a playlist, a DASH representation): which a range needs, fetched into its spool file, and
/// where its timeline begins (its segment 0's first timestamp, read once).
struct SegmentTrack {
    let stream: HLSStream
    let spoolPath: String
    private let headPath: String
    private let fetched = Spool.Fetched()
    private(set) var origin: Int64?
    /// Bytes of segment 0 read only to find where the timeline begins (not a segment of the range).
    private(set) var originBytes: Int64 = 0
    /// The segments now in the spool.
    private(set) var written: [Int] = []

    init(_ stream: HLSStream, base: String) {
        self.stream = stream
        let suffix = stream.playlist.initSections.isEmpty ? ".ts" : ".mp4"
        spoolPath = base + suffix
        headPath = base + ".head" + suffix
    }

    /// The segments overlapping `start..<end` (seconds of the manifest's timing).
    func overlapping(_ start: Double, _ end: Double) -> ClosedRange<Int>? {
        let playlist = stream.playlist
        return SegmentChoice.overlapping(startsSeconds: playlist.segmentStartsSeconds, durationsSeconds: playlist.segments.map(\.durationSeconds),
                                         startSeconds: start, endSeconds: end)
    }

    mutating func write(_ indices: [Int], fetcher: HTTPFetcher, name: String) throws(MediaError) {
        // The timeline is segment 0's clock: after an EXT-X-DISCONTINUITY the media's times restart, and no longer say
        // where a segment lies.
        if let last = indices.max(), let broken = stream.playlist.segments.prefix(last + 1).dropFirst().firstIndex(where: \.followsDiscontinuity) {
            throw MediaError(.unsupportedContainer, path: name, operation: "segments",
                             reason: "the playlist restarts its times (EXT-X-DISCONTINUITY) before segment \(broken): vtrim reads ranges before the first discontinuity only")
        }
        guard TemporaryFiles.shared.add(spoolPath) else { throw Interrupt.error(name) }
        do { _ = try Spool.write(stream, segments: indices, to: spoolPath, fetcher: fetcher, fetched: fetched) } catch { throw RemoteView.error(error) }
        written = indices
    }

    /// `write`, then `origin` (stages timed under `stages`' names). Where the origin comes from segment 0's head (the
    /// first spool, not starting at segment 0), the head is read on a thread of its own beside the segments' fetch.
    mutating func writeWithOrigin(_ indices: [Int], fetcher: HTTPFetcher, name: String, warnings: inout [MediaWarning],
                                  stages: (fetch: String, origin: String)) throws(MediaError) -> Int64 {
        guard origin == nil, written.isEmpty, let first = indices.first, first != 0 else {
            try StageTimes.measure(stages.fetch) { () throws(MediaError) in try write(indices, fetcher: fetcher, name: name) }
            return try StageTimes.measure(stages.origin) { () throws(MediaError) in try origin(fetcher: fetcher, name: name, warnings: &warnings) }
        }
        // A copy reads the head: it shares `fetched` (locked) and writes only the head's file, never the spool. The
        // init section both begin with is fetched first, once.
        do { try Spool.fetchInitSection(stream, of: 0, fetcher: fetcher, fetched: fetched) } catch { throw RemoteView.error(error) }
        let reader = self
        let head = OwnThread.start { () -> Result<(Int64, Int64, [MediaWarning]), MediaError> in
            Result { () throws(MediaError) in
                var reader = reader, found: [MediaWarning] = []
                let origin = try StageTimes.measure(stages.origin) { () throws(MediaError) in try reader.origin(fetcher: fetcher, name: name, warnings: &found) }
                return (origin, reader.originBytes, found)
            }
        }
        let wrote = Result { () throws(MediaError) in
            try StageTimes.measure(stages.fetch) { () throws(MediaError) in try write(indices, fetcher: fetcher, name: name) }
        }
        // Both finish before either's failure is thrown: no thread is left writing a file `finish` removes.
        let read = head.wait()
        try wrote.get()
        let (found, bytes, more) = try read.get()
        origin = found
        originBytes = bytes
        warnings += more
        return found
    }

    /// Where the track's timeline begins, in container µs: the start of segment 0 — the spool's own when it holds
    /// segment 0 first, else read from segment 0's head (`origin_bytes`).
    mutating func origin(fetcher: HTTPFetcher, name: String, warnings: inout [MediaWarning]) throws(MediaError) -> Int64 {
        if let origin { return origin }
        let fromSpool = written.first == 0
        let path = fromSpool ? spoolPath : headPath
        do {
            var initBytes: Int64 = 0
            if !fromSpool {
                guard TemporaryFiles.shared.add(headPath) else { throw Interrupt.error(name) }
                let head = try Spool.writeHead(stream, to: headPath, fetcher: fetcher, fetched: fetched)
                originBytes = head.bytes
                initBytes = head.initBytes
                if head.rangeIgnored {
                    warnings.append(MediaWarning(code: "range_ignored", message: "the server ignores range requests: all of segment 0 was fetched to read where the stream begins"))
                }
            }
            defer { if !fromSpool { TemporaryFiles.shared.remove(headPath); _ = DiskFile.unlink(headPath) } }
            // The origin is the earliest first timestamp of every stream: a head that holds none of a stream's packets
            // cannot say it. fMP4 puts a fragment's sound after its pictures, past the head of a 1080p segment
            // (measured: the origin came out as the video's, 21 ms late, and every cut began a frame late).
            var measured = (try? StreamOpening.measure(path: path)).flatMap { $0.sawEveryStream ? $0.containerStartMicro : nil }
            if measured == nil, !fromSpool, initBytes > 0 {
                // fMP4: the fragment's header in the head says where each stream's first sample lies; those few bytes
                // (an AAC frame) are fetched and written there, the gap left a hole, and the head read again.
                for (offset, length) in try StreamOpening.firstSamplesPastTheEnd(path: headPath) where offset >= initBytes {
                    let bytes = try Spool.segmentBytes(stream, segment: 0, offset: offset - initBytes, length: length, fetcher: fetcher)
                    guard DiskFile.write(bytes, to: headPath, at: offset) else {
                        throw MediaError(.writeFailed, path: name, operation: "origin", reason: "cannot write the head of segment 0")
                    }
                    originBytes += length
                }
                measured = (try? StreamOpening.measure(path: path)).flatMap { $0.sawEveryStream ? $0.containerStartMicro : nil }
            }
            if measured == nil, !fromSpool {
                // A head too short for the demuxer (a stream whose first PES packets are larger): all of segment 0.
                originBytes = try Spool.write(stream, segments: [0], to: headPath, fetcher: fetcher, fetched: fetched).bytes
            }
            if measured == nil { measured = try StreamOpening.measure(path: path).containerStartMicro }
            let found = measured ?? 0
            origin = found
            return found
        } catch let error as RemoteError {
            throw RemoteView.error(error)
        } catch let error as MediaError {
            throw MediaError(error.code, path: name, operation: "origin", reason: "the start of segment 0 cannot be read (\(error.reason))")
        } catch {
            throw MediaError(.fetchFailed, path: name, operation: "origin", reason: "\(error)")
        }
    }
}
