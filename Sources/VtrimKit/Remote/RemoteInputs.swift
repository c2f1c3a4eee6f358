import DiskNames
import Foundation
import LibraryFiles
import MediaEngine
import RemoteInput
import WorkerProtocol

/// A URL input made readable by the unchanged pipeline: an HLS stream's segments that a command needs, fetched
/// into a local spool registered under the input's redacted name (`InputSources`), with the URL's timeline
/// (the origin of its first segment, the playlist's duration). Everything the engine reports is then on the
/// URL's timeline and names the URL without its secrets.
struct RemoteView {
    /// The name the pipeline reads by and every report prints: the URL, redacted.
    let name: String
    let stream: HLSStream
    let fetcher: HTTPFetcher
    var segments: ClosedRange<Int>
    /// Segments in the spool when they are not all of `segments` (thumbnails').
    var sparseCount: Int?
    /// Where the URL's timeline begins (container µs), once read.
    private var knownOrigin: Int64?
    var warnings: [MediaWarning]
    /// Bytes of segment 0 read only to find where the stream's timeline begins (not a segment of the range).
    var originBytes: Int64 = 0
    private let spoolPath: String
    private let headPath: String
    private let fetched = Spool.Fetched()

    /// Seconds of the stream (the sum of its EXTINF).
    var durationSeconds: Double { stream.playlist.durationSeconds }

    /// What a URL names: an HLS stream (a `.m3u8` path, or a file that begins `#EXTM3U`), or a plain file.
    enum Opened {
        case stream(RemoteView)
        case file(RemoteFileView)
    }

    /// Opens the input a URL names (a master playlist's variant `request.variant`) without fetching segments; a plain
    /// file's first 64 KiB are read (its size, whether its server honours ranges).
    static func open(_ text: String, request: RemoteRequest) throws(MediaError) -> Opened {
        guard let url = RemoteURL(text) else {
            throw MediaError(.refusedURL, path: RemoteNames.redacted(text), operation: "open URL",
                             reason: "vtrim reads http and https URLs only")
        }
        let fetcher = HTTPFetcher(options: request.fetch, for: url)
        let pathExtension = (url.url.path as NSString).pathExtension.lowercased()
        if pathExtension == "mpd" {
            throw MediaError(.unsupportedContainer, path: url.redacted, operation: "open URL",
                             reason: "DASH manifests (.mpd) are not read from URLs by this vtrim yet; an HLS playlist of the same stream is")
        }
        if !["m3u8", "m3u"].contains(pathExtension) {
            let file = try RemoteFileView.open(url, fetcher: fetcher, insecure: request.fetch.insecure)
            guard file.beginsLikePlaylist else { return .file(file) }
            file.finish()
        }
        return .stream(try stream(url, fetcher: fetcher, request: request))
    }

    private static func stream(_ url: RemoteURL, fetcher: HTTPFetcher, request: RemoteRequest) throws(MediaError) -> RemoteView {
        let stream: HLSStream
        do { stream = try HLSStream.open(url, fetcher: fetcher, variant: request.variant) } catch { throw Self.error(error) }
        let warnings = stream.warnings.map { MediaWarning(code: $0.code, message: $0.message) }
            + (request.fetch.insecure ? [MediaWarning(code: "insecure", message: "read with --insecure: the server's TLS certificate was not checked")] : [])
        let base = FileManager.default.temporaryDirectory.path + "/vtrim-spool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let suffix = stream.playlist.initSections.isEmpty ? ".ts" : ".mp4"
        return RemoteView(name: url.redacted, stream: stream, fetcher: fetcher, segments: 0...0, warnings: warnings,
                          spoolPath: base + suffix, headPath: base + ".head" + suffix)
    }

    /// Fetches the segments overlapping `span` (URL seconds; nil: the first segment), and one more before them when
    /// the first does not open with a clean video start and sound at or before the span's start (said so); registers
    /// the spool. `finish` removes it.
    mutating func fetch(span: ClosedRange<Double>?) throws(MediaError) {
        let playlist = stream.playlist
        let starts = playlist.segmentStartsSeconds, durations = playlist.segments.map(\.durationSeconds)
        guard let chosen = SegmentChoice.overlapping(startsSeconds: starts, durationsSeconds: durations,
                                                     startSeconds: span?.lowerBound ?? 0, endSeconds: span?.upperBound ?? 0) else {
            throw MediaError(.notMedia, path: name, operation: "segments", reason: "the playlist lists no segment")
        }
        segments = chosen
        var origin: Int64?
        for round in 0..<2 {
            try writeSegments(segments, to: spoolPath)
            if origin == nil { origin = try originMicro(first: segments.lowerBound) }
            register(origin: origin ?? 0)
            let opening = try StreamOpening.measure(path: name)
            if round == 0 { checkTiming(opening, expected: starts[segments.lowerBound]) }
            guard let start = span?.lowerBound, segments.lowerBound > 0, let why = Self.lateOpening(opening, start: start) else { break }
            warnings.append(MediaWarning(code: "extra_segment", message: "segment \(segments.lowerBound) \(why): segment \(segments.lowerBound - 1) is read too"))
            segments = SegmentChoice.widened(segments, before: true, after: false, count: playlist.segments.count)
        }
    }

    /// Fetches the segments holding `timesSeconds` (URL seconds; thumbnails' times) into the spool: a sparse one, its
    /// segments in order (each opens on its own keyframe in the streams vtrim reads).
    mutating func fetch(times timesSeconds: [Double]) throws(MediaError) {
        let playlist = stream.playlist
        let starts = playlist.segmentStartsSeconds, durations = playlist.segments.map(\.durationSeconds)
        // The frame shown at a time may start in the segment before (a frame's start, audio priming and rounded EXTINF
        // put segment starts up to a few hundred ms off): a time that near a segment's start takes the one before too.
        let chosen = Set(timesSeconds.flatMap { time -> [Int] in
            guard let found = SegmentChoice.overlapping(startsSeconds: starts, durationsSeconds: durations,
                                                        startSeconds: time - Self.frameMarginSeconds, endSeconds: time) else { return [] }
            return Array(found)
        }).sorted()
        guard let first = chosen.first, let last = chosen.last else { return try fetch(span: nil) }
        let origin = try originMicro(first: first, checkingSpool: false)
        guard TemporaryFiles.shared.add(spoolPath) else { throw Interrupt.error(name) }
        do { _ = try Spool.write(stream, segments: chosen, to: spoolPath, fetcher: fetcher, fetched: fetched) } catch { throw Self.error(error) }
        segments = first...last
        sparseCount = chosen.count
        register(origin: origin)
    }

    /// How far before a thumbnail's time its frame may start, in the playlist's timing.
    static let frameMarginSeconds = 0.5

    /// Why a spool opening so cannot start a range at `start` (nil: it can).
    static func lateOpening(_ opening: StreamOpening, start: Double) -> String? {
        if opening.hasVideo, (opening.firstCleanVideoSeconds ?? .infinity) > start + 1e-6 {
            return "does not open on a clean start at or before \(Self.seconds(start))"
        }
        if opening.hasAudio, (opening.firstAudioSeconds ?? .infinity) > start + 1e-6 {
            return "has no sound until \(Self.seconds(opening.firstAudioSeconds ?? 0)), after the start at \(Self.seconds(start))"
        }
        return nil
    }

    /// The playlist's timing against the media: where the first fetched segment starts by the sum of the EXTINF
    /// before it, and where its media starts (its first clean video frame: leading pictures show before it, audio
    /// priming and packet boundaries move the rest by a frame). More than 0.1 s apart is a warning.
    private mutating func checkTiming(_ opening: StreamOpening, expected: Double) {
        let measured = opening.firstCleanVideoSeconds ?? opening.firstAudioSeconds ?? opening.startSeconds
        guard abs(measured - expected) > 0.1 else { return }
        warnings.append(MediaWarning(code: "playlist_timing", message: "segment \(segments.lowerBound) starts at \(Self.seconds(measured)) in its media but at \(Self.seconds(expected)) by the playlist's EXTINF durations; times are the media's"))
    }

    /// Where the URL's timeline begins, in container time: the start of segment 0 — the spool's own when it begins
    /// with segment 0, else read from segment 0's head (`origin_bytes`).
    private mutating func originMicro(first: Int, checkingSpool: Bool = true) throws(MediaError) -> Int64 {
        if let knownOrigin { return knownOrigin }
        let path = first == 0 && checkingSpool ? spoolPath : headPath
        do {
            if path == headPath {
                guard TemporaryFiles.shared.add(headPath) else { throw Interrupt.error(name) }
                let head = try Spool.writeHead(stream, to: headPath, fetcher: fetcher, fetched: fetched)
                originBytes = head.bytes
                if head.rangeIgnored {
                    warnings.append(MediaWarning(code: "range_ignored", message: "the server ignores range requests: all of segment 0 was fetched to read where the stream begins"))
                }
            }
            defer { if path == headPath { TemporaryFiles.shared.remove(headPath); _ = DiskFile.unlink(headPath) } }
            let origin = try StreamOpening.measure(path: path).containerStartMicro
            knownOrigin = origin
            return origin
        } catch let error as RemoteError {
            throw Self.error(error)
        } catch let error as MediaError {
            throw MediaError(error.code, path: name, operation: "origin", reason: "the start of segment 0 cannot be read (\(error.reason))")
        } catch {
            throw MediaError(.fetchFailed, path: name, operation: "origin", reason: "\(error)")
        }
    }

    private func register(origin: Int64) {
        let kind = stream.playlist.initSections.isEmpty ? "mpegts" : "fragmented mp4"
        InputSources.register(name, .init(diskPath: spoolPath, originMicro: origin, durationMicro: Int64((durationSeconds * 1e6).rounded()),
                                          formatName: "hls (\(kind))"))
    }

    private func writeSegments(_ range: ClosedRange<Int>, to path: String) throws(MediaError) {
        guard TemporaryFiles.shared.add(path) else { throw Interrupt.error(name) }
        do { _ = try Spool.write(stream, segments: Array(range), to: path, fetcher: fetcher, fetched: fetched) } catch { throw Self.error(error) }
    }

    /// Unregisters and removes the spool.
    func finish() {
        InputSources.unregister(name)
        _ = DiskFile.unlink(spoolPath)
        TemporaryFiles.shared.remove(spoolPath)
    }

    /// What the reports add for a URL input.
    var fields: [(String, JSON)] {
        let totals = fetcher.ledger.current
        let chosen: JSON = .array([.int(Int64(segments.lowerBound)), .int(Int64(segments.upperBound))])
        var source: [(String, JSON)] = [("url", .string(name)), ("playlist", .string(stream.playlistURL.redacted))]
        source.append(("variant", .optional(stream.variant)))
        source.append(("playlist_duration", .number(durationSeconds)))
        source.append(("segment_count", .int(Int64(stream.playlist.segments.count))))
        source.append(("segments", chosen))
        if let sparseCount { source.append(("segments_fetched", .int(Int64(sparseCount)))) }
        source.append(("origin_bytes", .int(originBytes)))
        source.append(("fetched_requests", .int(Int64(totals.requests))))
        source.append(("fetched_bytes", .int(totals.bytes)))
        source.append(("retries", .int(Int64(totals.retries))))
        return [("source", .object(source))]
    }

    /// "31.000 s".
    static func seconds(_ value: Double) -> String { value.isFinite ? String(format: "%.3f s", value) : "? s" }

    static func error(_ error: RemoteError) -> MediaError {
        let code: MediaError.Code = switch error.kind {
        case .notFound: .notFound
        case .fetchFailed: .fetchFailed
        case .refused: .refusedURL
        case .truncated: .truncatedSegment
        case .badManifest: .notMedia
        case .tooLarge: .tooLarge
        }
        return MediaError(code, path: error.url, operation: "fetch", reason: error.reason)
    }
}

/// Names of inputs given as URLs.
public enum RemoteNames {
    /// Whether an input names a URL rather than a file.
    public static func isURL(_ input: String) -> Bool { RemoteURL.looksLikeURL(input) }

    /// The input as reports print it: a URL without user name, password or query.
    public static func redacted(_ input: String) -> String {
        if let url = RemoteURL(input) { return url.redacted }
        guard let scheme = input.range(of: "://") else { return input }
        return String(input[..<scheme.upperBound]) + "…"
    }
}
