import DiskNames
import Foundation
import LibraryFiles
import Locking
import MediaEngine
import RemoteInput
import WorkerProtocol

/// A URL input made readable by the unchanged pipeline: an HLS or DASH stream's segments that a command needs,
/// fetched into a local spool registered under the input's redacted name (`InputSources`), with the URL's timeline
/// (the origin of its first segment, the manifest's duration). Video and sound listed apart (DASH adaptation sets)
/// are fetched apart and merged into one spool. Everything the engine reports is then on the URL's timeline and
/// names the URL without its secrets.
struct RemoteView {
    /// The name the pipeline reads by and every report prints: the URL, redacted.
    let name: String
    /// "hls" or "dash".
    let protocolName: String
    var video: SegmentTrack
    var audio: SegmentTrack?
    let fetcher: HTTPFetcher
    var segments: ClosedRange<Int> = 0...0
    /// Where the stream's timeline begins: its earliest first timestamp (seconds of its own clock), once read.
    var originSeconds: Double?
    /// Segments in the spool when they are not all of `segments` (thumbnails').
    var sparseCount: Int?
    var warnings: [MediaWarning]
    /// The file registered: the video track's spool, or the merge of both tracks'.
    private let mergedPath: String

    /// Seconds of the stream (the sum of its EXTINF, or its segment timeline).
    var durationSeconds: Double { video.stream.playlist.durationSeconds }
    var stream: HLSStream { video.stream }

    /// What a URL names: a stream (an HLS playlist — a `.m3u8` path, or a file that begins `#EXTM3U` — or a DASH
    /// manifest), or a plain file.
    enum Opened {
        case stream(RemoteView)
        case file(RemoteFileView)
    }

    /// Opens the input a URL names (a master playlist's variant, a manifest's representation: `request.variant`)
    /// without fetching segments; a plain file's first 64 KiB are read (its size, whether its server honours ranges).
    static func open(_ text: String, request: RemoteRequest) throws(MediaError) -> Opened {
        guard let url = RemoteURL(text) else {
            throw MediaError(.refusedURL, path: RemoteNames.redacted(text), operation: "open URL",
                             reason: "vtrim reads http and https URLs only")
        }
        let fetcher = HTTPFetcher(options: request.fetch, for: url)
        let pathExtension = (url.url.path as NSString).pathExtension.lowercased()
        let base = FileManager.default.temporaryDirectory.path + "/vtrim-spool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var warnings = request.fetch.insecure ? [MediaWarning(code: "insecure", message: "read with --insecure: the server's TLS certificate was not checked")] : []
        if pathExtension == "mpd" {
            let chosen: ChosenTracks
            do { chosen = try DASHStream.open(url, fetcher: fetcher, variant: request.variant) } catch { throw Self.error(error) }
            warnings += chosen.video.warnings.map { MediaWarning(code: $0.code, message: $0.message) }
            return .stream(RemoteView(name: url.redacted, protocolName: "dash", video: SegmentTrack(chosen.video, base: base + ".video"),
                                      audio: chosen.audio.map { SegmentTrack($0, base: base + ".audio") }, fetcher: fetcher, warnings: warnings,
                                      mergedPath: base + ".ts"))
        }
        if !["m3u8", "m3u"].contains(pathExtension) {
            let file = try RemoteFileView.open(url, fetcher: fetcher, insecure: request.fetch.insecure)
            guard file.beginsLikePlaylist else { return .file(file) }
            file.finish()
        }
        let chosen: ChosenTracks
        do { chosen = try HLSStream.open(url, fetcher: fetcher, variant: request.variant) } catch { throw Self.error(error) }
        warnings += (chosen.video.warnings + (chosen.audio?.warnings ?? [])).map { MediaWarning(code: $0.code, message: $0.message) }
        return .stream(RemoteView(name: url.redacted, protocolName: "hls", video: SegmentTrack(chosen.video, base: base + ".video"),
                                  audio: chosen.audio.map { SegmentTrack($0, base: base + ".audio") }, fetcher: fetcher, warnings: warnings,
                                  mergedPath: base + ".ts"))
    }

    /// Fetches the segments overlapping `span` (URL seconds; nil: the first segment), and one more before them when
    /// the first does not open with a clean video start and sound at or before the span's start (said so); registers
    /// the spool. `finish` removes it.
    mutating func fetch(span: ClosedRange<Double>?) throws(MediaError) {
        let start = span?.lowerBound ?? 0, end = span?.upperBound ?? 0
        guard var chosen = video.overlapping(start, end) else {
            throw MediaError(.notMedia, path: name, operation: "segments", reason: "the manifest lists no segment")
        }
        // The sound a range starts with may lie in the segment before the video's (audio frames straddle boundaries).
        var sound = audio?.overlapping(start - Self.frameMarginSeconds, end)
        for round in 0..<2 {
            segments = chosen
            try spool(video: Array(chosen), audio: sound.map(Array.init))
            let opening = try StageTimes.measure("opening") { () throws(MediaError) in try StreamOpening.measure(path: name) }
            if round == 0 { checkTiming(opening, expected: video.stream.playlist.segmentStartsSeconds[chosen.lowerBound]) }
            guard span != nil, let why = Self.lateOpening(opening, start: start), chosen.lowerBound > 0 || (sound?.lowerBound ?? 0) > 0 else { break }
            warnings.append(MediaWarning(code: "extra_segment", message: "segment \(chosen.lowerBound) \(why): the segment before it is read too"))
            chosen = SegmentChoice.widened(chosen, before: true, after: false, count: video.stream.playlist.segments.count)
            if let current = sound, let count = audio?.stream.playlist.segments.count {
                sound = SegmentChoice.widened(current, before: true, after: false, count: count)
            }
        }
    }

    /// Fetches the segments holding `timesSeconds` (URL seconds; thumbnails' times) into the spool: a sparse one, its
    /// segments in order (each opens on its own keyframe in the streams vtrim reads); pictures only.
    mutating func fetch(times timesSeconds: [Double]) throws(MediaError) {
        // The frame shown at a time may start in the segment before (a frame's start, audio priming and rounded EXTINF
        // put segment starts up to a few hundred ms off): a time that near a segment's start takes the one before too.
        let chosen = Set(timesSeconds.flatMap { time -> [Int] in video.overlapping(time - Self.frameMarginSeconds, time).map(Array.init) ?? [] }).sorted()
        guard let first = chosen.first, let last = chosen.last else { return try fetch(span: nil) }
        try spool(video: chosen, audio: nil)
        segments = first...last
        sparseCount = chosen.count
    }

    /// Writes the tracks' spools (and their merge) and registers the result under the input's name.
    private mutating func spool(video indices: [Int], audio sound: [Int]?) throws(MediaError) {
        // The sound's segments (DASH lists them apart) are fetched on a thread of their own beside the video's: each
        // track's fetches are bounded by `parallelFetches`, and on a server a round trip away the two overlap.
        let soundFetch = sound.flatMap { indices in audio.map { OwnThread.start(Self.fetchSound($0, indices, fetcher: fetcher, name: name)) } }
        let videoFetched = Result { () throws(MediaError) -> Int64 in
            try video.writeWithOrigin(indices, fetcher: fetcher, name: name, warnings: &warnings, stages: ("segments fetched", "origin"))
        }
        // Both finish before either's failure is thrown: no thread is left writing a spool `finish` removes.
        let soundFetched = soundFetch?.wait()
        let videoOrigin = try videoFetched.get()
        // Segments last a day at most and number at most 100,000 (HLS) or 1,000,000 (DASH): this fits; nil never happens.
        let duration = Int64(exactly: (durationSeconds * 1e6).rounded()) ?? Int64.max
        originSeconds = Double(videoOrigin) / 1e6
        guard let soundFetched else {
            let kind = video.stream.playlist.initSections.isEmpty ? "mpegts" : "fragmented mp4"
            InputSources.register(name, .init(diskPath: video.spoolPath, originMicro: videoOrigin, durationMicro: duration,
                                              formatName: "\(protocolName) (\(kind))"))
            return
        }
        let (track, audioOrigin, soundWarnings) = try soundFetched.get()
        warnings += soundWarnings
        originSeconds = Double(min(videoOrigin, audioOrigin)) / 1e6
        audio = track
        guard TemporaryFiles.shared.add(mergedPath) else { throw Interrupt.error(name) }
        let shift = try StageTimes.measure("merge") { () throws(MediaError) in try SpoolMerge.merge(video: video.spoolPath, audio: track.spoolPath, into: mergedPath, name: name) }
        let (origin, overflow) = min(videoOrigin, audioOrigin).addingReportingOverflow(shift)
        guard !overflow else { throw MediaError(.notMedia, path: name, operation: "merge", reason: "its timestamps are past what vtrim reads") }
        InputSources.register(name, .init(diskPath: mergedPath, originMicro: origin, durationMicro: duration,
                                          formatName: "\(protocolName) (video and sound merged)"))
    }

    /// The sound track's segments written into its spool and its origin read: the work `spool` runs beside the video's.
    private static func fetchSound(_ track: SegmentTrack, _ indices: [Int], fetcher: HTTPFetcher,
                                   name: String) -> @Sendable () -> Result<(SegmentTrack, Int64, [MediaWarning]), MediaError> {
        return {
            Result { () throws(MediaError) in
                var track = track, warnings: [MediaWarning] = []
                let origin = try track.writeWithOrigin(indices, fetcher: fetcher, name: name, warnings: &warnings,
                                                       stages: ("sound segments fetched", "sound origin"))
                return (track, origin, warnings)
            }
        }
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
        warnings.append(MediaWarning(code: "playlist_timing", message: "segment \(segments.lowerBound) starts at \(Self.seconds(measured)) in its media but at \(Self.seconds(expected)) by the manifest's durations; times are the media's"))
    }

    /// Unregisters and removes the spools.
    func finish() {
        InputSources.unregister(name)
        for path in [video.spoolPath, audio?.spoolPath, mergedPath].compactMap({ $0 }) {
            _ = DiskFile.unlink(path)
            TemporaryFiles.shared.remove(path)
        }
    }

    /// What the reports add for a URL input.
    var fields: [(String, JSON)] {
        let totals = fetcher.ledger.current
        let chosen: JSON = .array([.int(Int64(segments.lowerBound)), .int(Int64(segments.upperBound))])
        var source: [(String, JSON)] = [("url", .string(name)), ("protocol", .string(protocolName)), ("playlist", .string(stream.playlistURL.redacted))]
        source.append(("variant", .optional(stream.variant)))
        source.append(("playlist_duration", .number(durationSeconds)))
        source.append(("segment_count", .int(Int64(stream.playlist.segments.count))))
        source.append(("segments", chosen))
        if let sparseCount { source.append(("segments_fetched", .int(Int64(sparseCount)))) }
        source.append(("origin_bytes", .int(video.originBytes + (audio?.originBytes ?? 0))))
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
