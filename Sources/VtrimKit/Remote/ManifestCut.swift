import DiskNames
import Foundation
import LibraryFiles
import MediaEngine
import RemoteInput
import TimelineCore
import WorkerProtocol

/// `vtrim cut PLAYLIST_URL --start A --end B -o NAME.m3u8`: a VOD playlist whose middle entries are the source's own
/// segment URLs, unchanged, and whose first and last entries are new segments beside it (`NAME.start.ts`,
/// `NAME.end.ts`; from fMP4/CMAF segments `NAME.start.m4s`, `NAME.end.m4s`, fragments that decode with the source's
/// own init section, which the playlist's one EXT-X-MAP names) holding the range's edges, cut smart and put back on
/// the source's timeline — presentation times as in the source, the source's decode delay, its PIDs or track IDs —
/// so no EXT-X-DISCONTINUITY is needed. The edges are written first, the playlist last; a failure removes the edges
/// already written. Of HLS playlists without a separate audio rendition; the rest is refused, said why.
enum ManifestCut {
    static func run(_ view: inout RemoteView, item: InputItem, index: Int, request: CutRequest) -> [Outcome] {
        let playlistPath = request.outputPath(for: item, index: index, segment: 0)
        do throws(MediaError) {
            try refusals(view, request: request)
            let edit = try request.edit(output: 0, durationSeconds: view.durationSeconds, path: view.name)
            guard edit.ranges.count == 1, let range = edit.ranges.first else {
                throw MediaError(.unsupportedContainer, path: view.name, operation: "manifest cut", reason: "a playlist holds one range: give --start/--end")
            }
            let playlist = view.stream.playlist
            guard let plan = ManifestPlan.make(startsSeconds: playlist.segmentStartsSeconds, durationsSeconds: playlist.segments.map(\.durationSeconds),
                                               startSeconds: range.effectiveStart, endSeconds: range.effectiveEnd) else {
                throw MediaError(.invalidRange, path: view.name, operation: "manifest cut", reason: "the range holds no segment")
            }
            let target = OutputTarget(path: playlistPath, overwrite: request.overwrite)
            try target.check(input: view.name, dryRun: request.dryRun)
            let stem = OutputChoice.stemPath(playlistPath)
            let map = try initSection(view, plan: plan)
            let kind = map == nil ? "ts" : "m4s"
            var edges = [EdgeCut(path: stem + ".start." + kind, start: range.effectiveStart, end: plan.hasTailEdge ? nil : range.effectiveEnd,
                                 segment: plan.first, fragments: map != nil)]
            if plan.hasTailEdge { edges.append(EdgeCut(path: stem + ".end." + kind, start: nil, end: range.effectiveEnd, segment: plan.last, fragments: map != nil)) }
            if request.dryRun { return [dryRun(view, plan: plan, edges: edges, playlistPath: playlistPath)] }
            var written: [String] = []
            do throws(MediaError) {
                for position in edges.indices {
                    try edges[position].write(&view, request: request)
                    written.append(edges[position].path)
                }
                let text = ManifestPlan.playlist(entries(view, plan: plan, edges: edges, playlistPath: playlistPath), map: map)
                try writeAtomically(target, input: view.name) { temporary throws(MediaError) in
                    guard DiskFile.write(DiskName.bytes(text), to: temporary) else {
                        throw MediaError(.writeFailed, path: view.name, operation: "write", reason: "cannot write \(playlistPath)")
                    }
                }
            } catch {
                // An edge without its playlist is half a result.
                for path in written { _ = DiskFile.unlink(path) }
                throw error
            }
            var outcome = report(view, plan: plan, edges: edges, playlistPath: playlistPath)
            return [view.annotated(outcome: &outcome)]
        } catch {
            var outcome = Outcome.failure(error)
            return [view.annotated(outcome: &outcome)]
        }
    }

    private static func refusals(_ view: RemoteView, request: CutRequest) throws(MediaError) {
        func refuse(_ why: String) -> MediaError { MediaError(.unsupportedContainer, path: view.name, operation: "manifest cut", reason: why) }
        guard view.protocolName == "hls" else { throw refuse("a playlist is written from an HLS source only (DASH manifests are not written)") }
        guard view.audio == nil else { throw refuse("a playlist is not written where the sound is a separate rendition") }
        guard view.stream.segmentURLs.allSatisfy({ $0.url.user == nil && $0.url.password == nil }) else {
            throw refuse("the source's URL carries a user name or password, which the playlist would hand to every player")
        }
        guard request.remote.fetch.headers.isEmpty else {
            throw refuse("the source needed --http-header: players of the playlist would be refused its segments")
        }
        guard request.join == nil, request.segments.count == 1 else { throw refuse("a playlist holds one range: give --start/--end") }
    }

    /// The source's init section the range's segments decode with (fMP4/CMAF): its absolute URL and byte range; nil
    /// for MPEG-TS. One for the whole range: the edges are fragments of it.
    private static func initSection(_ view: RemoteView, plan: ManifestPlan) throws(MediaError) -> (uri: String, byteRange: ByteRange?)? {
        let playlist = view.stream.playlist
        let sections = Set((plan.first...plan.last).map { playlist.segments[$0].initSection })
        guard sections.count == 1, let only = sections.first else {
            throw MediaError(.unsupportedContainer, path: view.name, operation: "manifest cut",
                             reason: "the range's segments change their initialisation section (EXT-X-MAP), which one playlist of edges cannot follow")
        }
        guard let index = only, index < view.stream.initURLs.count, index < playlist.initSections.count else { return nil }
        return (view.stream.initURLs[index].url.absoluteString, playlist.initSections[index].byteRange)
    }

    /// The playlist's entries: the edges by their names beside it, the middle by the source's own URLs.
    private static func entries(_ view: RemoteView, plan: ManifestPlan, edges: [EdgeCut], playlistPath: String) -> [(uri: String, durationSeconds: Double, byteRange: ByteRange?)] {
        let folder = (playlistPath as NSString).deletingLastPathComponent
        func relative(_ path: String) -> String { folder.isEmpty ? path : String(path.dropFirst(folder.count + 1)) }
        var list: [(uri: String, durationSeconds: Double, byteRange: ByteRange?)] = [(relative(edges[0].path), edges[0].spanSeconds, nil)]
        for segment in plan.middle.map(Array.init) ?? [] {
            let source = view.stream.playlist.segments[segment]
            list.append((view.stream.segmentURLs[segment].url.absoluteString, source.durationSeconds, source.byteRange))
        }
        if edges.count > 1 { list.append((relative(edges[1].path), edges[1].spanSeconds, nil)) }
        return list
    }

    private static func report(_ view: RemoteView, plan: ManifestPlan, edges: [EdgeCut], playlistPath: String) -> Outcome {
        let reused = plan.middle.map(Array.init) ?? []
        var warnings: [MediaWarning] = edges.flatMap(\.warnings)
        if let expiry = ManifestPlan.expiry(of: reused.map { view.stream.segmentURLs[$0] }) {
            let when = expiry > 0 ? "on \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: expiry)))" : "at a time their tokens do not show"
            warnings.append(MediaWarning(code: "expiring_urls", message: "the playlist's reused segment URLs carry expiring tokens: they stop working \(when)"))
        }
        let total = edges.map(\.spanSeconds).reduce(0, +) + reused.map { view.stream.playlist.segments[$0].durationSeconds }.reduce(0, +)
        let edgeJSON: [JSON] = edges.map { edge in
            .object([("path", .string(edge.path)), ("start", .number(edge.firstFrameSeconds)), ("duration", .number(edge.spanSeconds)),
                     ("mode", .string(edge.mode)), ("frames", .int(Int64(edge.frames)))])
        }
        let fields: [(String, JSON)] = [("output", .string(playlistPath)), ("manifest", .object([
            ("edges", .array(edgeJSON)),
            ("reused_segments", .array(reused.map { .int(Int64($0)) })),
            ("duration", .number(total)),
        ]))]
        let lines = ["\(view.name) → \(playlistPath) (\(edges.count) new edge segment\(edges.count == 1 ? "" : "s"), \(reused.count) of the source's by URL, \(String(format: "%.3f", total)) s)"]
        return Outcome(path: view.name, status: .succeeded, warnings: warnings, fields: fields, lines: lines)
    }

    private static func dryRun(_ view: RemoteView, plan: ManifestPlan, edges: [EdgeCut], playlistPath: String) -> Outcome {
        var outcome = Outcome(path: view.name, status: .succeeded, fields: [
            ("dry_run", .bool(true)), ("output", .string(playlistPath)),
            ("planned", .object([("edges", .array(edges.map { .string($0.path) })), ("edge_segments", .array(edges.map { .int(Int64($0.segment)) })),
                                 ("reused_segments", .array((plan.middle.map(Array.init) ?? []).map { .int(Int64($0)) }))])),
        ], lines: ["\(view.name) → \(playlistPath) (dry run: nothing written)"])
        return view.annotated(outcome: &outcome)
    }
}

/// One edge of a manifest cut: the segment it comes from, cut (smart) from `start` (nil: the segment's first frame)
/// to `end` (nil: the segment's last frame's end), then shifted onto the source's timeline with the source's PIDs —
/// or, `fragments`, written as fMP4 fragments of the source's init section (cut first into a hidden MPEG-TS, whose
/// re-encoded frames carry their parameter sets in band).
struct EdgeCut {
    let path: String
    let start: Double?
    let end: Double?
    let segment: Int
    let fragments: Bool
    var firstFrameSeconds = 0.0
    var spanSeconds = 0.0
    var frames = 0
    var mode = ""
    var warnings: [MediaWarning] = []

    init(path: String, start: Double?, end: Double?, segment: Int, fragments: Bool) {
        self.path = path
        self.start = start
        self.end = end
        self.segment = segment
        self.fragments = fragments
    }

    mutating func write(_ view: inout RemoteView, request: CutRequest) throws(MediaError) {
        let playlist = view.stream.playlist
        let segmentStart = playlist.segmentStartsSeconds[segment], segmentEnd = segmentStart + playlist.segments[segment].durationSeconds
        // Inside the segment, so the spool is it (and the one before only where it does not open cleanly).
        try view.fetch(span: (start ?? segmentStart + 0.05)...((end ?? segmentEnd) - 0.001).clampedBelow(start ?? segmentStart + 0.05))
        // The sound of an edge that meets a reused segment is its segment's own, so the spool must be that segment alone.
        if start == nil ? view.segments.lowerBound != segment : end == nil && view.segments.upperBound != segment {
            throw MediaError(.unsupportedContainer, path: view.name, operation: "manifest cut",
                             reason: "segment \(segment) does not begin or end where its playlist says (segments \(view.segments.lowerBound)–\(view.segments.upperBound) would be needed): a playlist cannot be joined there")
        }
        let frames = try FrameTimes.readWithCleanStarts(path: view.name)
        guard let last = frames.times.last else { throw MediaError(.noVideo, path: view.name, operation: "edge", reason: "segment \(segment) has no video frames") }
        let frameSeconds = frames.times.count > 1 ? last - frames.times[frames.times.count - 2] : 1.0 / 30
        // A seam is where the source's next segment's first frame is shown: the end of this segment's last frame, or the
        // first clean start of this one (its keyframe), which the playlist's timing puts near its start.
        let cutStart = start ?? frames.cleanStarts.min { abs($0 - segmentStart) < abs($1 - segmentStart) } ?? segmentStart
        // The spool may reach into the next segment (a playlist's timing a little off): its first keyframe is then the seam.
        let cutEnd = end ?? frames.cleanStarts.first { abs($0 - segmentEnd) < 0.5 } ?? last + frameSeconds
        // An fMP4 edge is cut into a hidden MPEG-TS first (removed after): its parameter sets then ride in band.
        let cutPath = fragments ? TemporaryName(output: path + ".ts").makePath() : path
        if fragments, !TemporaryFiles.shared.add(cutPath) { throw Interrupt.error(view.name) }
        defer {
            if fragments {
                _ = DiskFile.unlink(cutPath)
                TemporaryFiles.shared.remove(cutPath)
            }
        }
        var edgeRequest = request
        edgeRequest.segments = [CutSegment(start: .seconds(cutStart), end: .seconds(cutEnd), lengthSeconds: nil)]
        edgeRequest.output = OutputNamer(choice: .file(cutPath), template: nil)
        edgeRequest.mode = request.mode ?? .smart
        let local = InputItem(path: view.name, relativePath: RemoteView.fileName(view.name))
        guard let outcome = EditJob.run(item: local, index: 0, request: edgeRequest).first else { return }
        if case let .failed(error) = outcome.status { throw error }
        warnings = outcome.warnings
        // The mode the edge was cut in (a smart cut may fall back to exact, said in its warnings).
        if case let .string(written)? = outcome.fields.first(where: { $0.0 == "mode" })?.1 { mode = written }
        let shown = frames.times.filter { $0 < cutEnd - 1e-6 && $0 + frameSeconds > cutStart + 1e-6 }
        firstFrameSeconds = shown.first ?? cutStart
        self.frames = shown.count
        let lastFrameEnd = shown.last.map { $0 + frameSeconds } ?? cutEnd
        spanSeconds = lastFrameEnd - firstFrameSeconds
        let leftOut = fragments ? try writeFragments(view, cut: cutPath, lastFrameEndSeconds: lastFrameEnd)
                                : try shiftOntoSource(view, lastFrameEndSeconds: lastFrameEnd)
        if !leftOut.isEmpty {
            warnings.append(MediaWarning(code: "edge_streams_left_out",
                                         message: "edge \((path as NSString).lastPathComponent) carries the video and the first sound only: the source's streams \(leftOut.joined(separator: ", ")) are not in it (the reused segments keep them)"))
        }
    }

    /// The edge's cut `cut` written at `path` as fragments of the source's init section: its first frame shown where
    /// the source shows that frame (the source's own timestamp for it), the source's own sound packets of its span.
    private func writeFragments(_ view: RemoteView, cut: String, lastFrameEndSeconds: Double) throws(MediaError) -> [String] {
        var leftOut: [String] = []
        guard let window = InputSources.window(for: view.name) else {
            throw MediaError(.notMedia, path: view.name, operation: "edge", reason: "its segments are not in a spool")
        }
        let layout = try FragmentShift.layout(of: window.diskPath, name: view.name)
        let sourceMicro = window.originMicro + Int64((firstFrameSeconds * 1e6).rounded())
        let firstTicks = try FragmentShift.sourceFrameTicks(path: window.diskPath, nearMicro: sourceMicro, name: view.name)
        let soundFrom = start.map { _ in sourceMicro }
        let soundTo = end.map { _ in window.originMicro + Int64((lastFrameEndSeconds * 1e6).rounded()) }
        let target = OutputTarget(path: path, overwrite: true)
        try writeAtomically(target, input: view.name) { temporary throws(MediaError) in
            leftOut = try FragmentShift.write(edge: cut, source: window.diskPath, into: temporary, firstFrameTicks: firstTicks, layout: layout,
                                              soundFromMicro: soundFrom, soundToMicro: soundTo, name: view.name)
            let scratch = TemporaryName(output: path + ".mp4").makePath()
            guard TemporaryFiles.shared.add(scratch) else { throw Interrupt.error(view.name) }
            defer { TemporaryFiles.shared.remove(scratch) }
            let moved = try FragmentShift.readBack(fragments: temporary, layout: layout, scratch: scratch, name: view.name)
            guard moved == firstTicks else {
                throw MediaError(.verifyFailed, path: view.name, operation: "edge", reason: "the edge's first frame landed at \(moved), not the source's \(firstTicks)")
            }
        }
        return leftOut
    }

    /// The edge rewritten with its first frame at the source's time for it, the source's PIDs, and the source's own
    /// sound packets of the edge's span (from its segment's first where the edge starts at a seam, to its last where it
    /// ends at one).
    private func shiftOntoSource(_ view: RemoteView, lastFrameEndSeconds: Double) throws(MediaError) -> [String] {
        var leftOut: [String] = []
        guard let window = InputSources.window(for: view.name) else {
            throw MediaError(.notMedia, path: view.name, operation: "edge", reason: "its segments are not in a spool")
        }
        let own = try StreamShift.firstVideoTime(path: path, naming: view.name)
        let sourceMicro = window.originMicro + Int64((firstFrameSeconds * 1e6).rounded())
        let sourceTicks = Int64((Double(sourceMicro) * Double(own.timeBase.denominator) / (1e6 * Double(max(1, own.timeBase.numerator)))).rounded())
        let soundFrom = start.map { _ in sourceMicro }
        let soundTo = end.map { _ in window.originMicro + Int64((lastFrameEndSeconds * 1e6).rounded()) }
        let target = OutputTarget(path: path, overwrite: true)
        try writeAtomically(target, input: view.name) { temporary throws(MediaError) in
            leftOut = try StreamShift.write(edge: path, source: window.diskPath, into: temporary, by: sourceTicks - own.ticks, of: own.timeBase,
                                            soundFromMicro: soundFrom, soundToMicro: soundTo, name: view.name)
            let moved = try StreamShift.firstVideoTime(path: temporary, naming: view.name)
            guard moved.ticks == sourceTicks else {
                throw MediaError(.verifyFailed, path: view.name, operation: "edge", reason: "the edge's first frame landed at \(moved.ticks), not the source's \(sourceTicks)")
            }
        }
        return leftOut
    }
}

private extension Double {
    /// Self, or `floor` where self is below it (a span never ends before it starts).
    func clampedBelow(_ floor: Double) -> Double { Swift.max(self, floor) }
}
