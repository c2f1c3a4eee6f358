import Foundation

/// A DASH manifest's chosen video representation (and its first audio adaptation set's best representation, when
/// the sound is separate) as segment lists — the same `HLSStream` values an HLS playlist gives, so the spool, the
/// segment choice and the timeline rule are one for both.
public enum DASHStream {
    /// Manifests are text of at most 16 MiB; a SegmentBase index at most 4 MiB.
    static let maximumBytes: Int64 = 16 << 20

    public static func open(_ url: RemoteURL, fetcher: HTTPFetcher, variant choice: VariantChoice) throws(RemoteError) -> ChosenTracks {
        let answer = try fetcher.get(url, maximumBytes: maximumBytes)
        let body = answer.body
        let mpd: MPD
        do { mpd = try MPDParser.parse(body) } catch { throw RemoteError(.badManifest, url: url.redacted, reason: error.reason) }
        guard let period = mpd.periods.first else { throw RemoteError(.badManifest, url: url.redacted, reason: "the manifest has no Period") }
        var warnings: [(code: String, message: String)] = []
        if mpd.periods.count > 1 {
            warnings.append(("periods_skipped", "the manifest has \(mpd.periods.count) periods: the first is read"))
        }
        if mpd.isDynamic { warnings.append(("live_playlist", "a dynamic (live) manifest: the segments it lists now are read")) }
        // References resolve against the URL that answered (after redirects).
        let base = [mpd.baseURL, period.baseURL].compactMap { $0 }.reduce(answer.url) { $0.resolving($1) ?? $0 }
        let kinds = period.adaptationSets.map(Self.kind)
        let videoSets = period.adaptationSets.indices.filter { kinds[$0] == "video" }
        let candidates = videoSets.flatMap { set in period.adaptationSets[set].representations.indices.map { (set, $0) } }
        let variants = candidates.map { set, index in
            let representation = period.adaptationSets[set].representations[index]
            return MasterPlaylist.Variant(uri: representation.id, bandwidth: representation.bandwidth, width: representation.width,
                                          height: representation.height, codecs: representation.codecs, audioGroup: nil)
        }
        guard let picked = choice.choose(variants) else {
            throw RemoteError(.badManifest, url: url.redacted, reason: "the manifest has no video representation")
        }
        let durationSeconds = period.durationSeconds ?? mpd.durationSeconds
        var video = try stream(url: url, base: base, set: period.adaptationSets[candidates[picked].0], index: candidates[picked].1,
                               durationSeconds: durationSeconds, fetcher: fetcher)
        video.warnings = warnings
        let representation = period.adaptationSets[candidates[picked].0].representations[candidates[picked].1]
        video.variant = [representation.width.flatMap { w in representation.height.map { "\(w)x\($0)" } },
                         String(format: "%.2f Mb/s", Double(representation.bandwidth) / 1e6)].compactMap { $0 }.joined(separator: ", ")
        let audioSet = period.adaptationSets.indices.first { kinds[$0] == "audio" && !period.adaptationSets[$0].representations.isEmpty }
        let audio = try audioSet.map { set throws(RemoteError) -> HLSStream in
            let representations = period.adaptationSets[set].representations
            let best = representations.indices.max { representations[$0].bandwidth < representations[$1].bandwidth } ?? representations.startIndex
            return try stream(url: url, base: base, set: period.adaptationSets[set], index: best, durationSeconds: durationSeconds, fetcher: fetcher)
        }
        return ChosenTracks(video: video, audio: audio)
    }

    static func kind(_ set: MPD.AdaptationSet) -> String {
        if let type = set.contentType { return type }
        let mime = set.mimeType ?? set.representations.first?.mimeType ?? ""
        if mime.hasPrefix("video/") || set.representations.contains(where: { $0.width != nil }) { return "video" }
        return mime.hasPrefix("audio/") ? "audio" : "other"
    }

    private static func stream(url: RemoteURL, base: RemoteURL, set: MPD.AdaptationSet, index: Int, durationSeconds: Double?,
                               fetcher: HTTPFetcher) throws(RemoteError) -> HLSStream {
        let representation = set.representations[index]
        let addressing = representation.addressing.over(set.addressing)
        let here = [set.baseURL, representation.baseURL].compactMap { $0 }.reduce(base) { $0.resolving($1) ?? $0 }
        let listed: Listed
        if addressing.isTemplate {
            listed = try DASHSegments.checked(DASHSegments.template(addressing, representation: representation, durationSeconds: durationSeconds, manifest: url), manifest: url)
        } else if addressing.isBase || addressing.list == nil {
            listed = try DASHSegments.checked(DASHSegments.base(addressing, file: here, fetcher: fetcher), manifest: url)
        } else {
            listed = try DASHSegments.checked(DASHSegments.list(addressing, manifest: url), manifest: url)
        }
        var segmentURLs: [RemoteURL] = []
        for reference in listed.segmentReferences {
            guard let resolved = reference.map({ here.resolving($0) }) ?? here else {
                throw RemoteError(.refused, url: url.redacted, reason: "a segment URL vtrim does not read (only http and https)")
            }
            segmentURLs.append(resolved)
        }
        var initURLs: [RemoteURL] = []
        if listed.hasInit {
            guard let resolved = listed.initReference.map({ here.resolving($0) }) ?? here else {
                throw RemoteError(.refused, url: url.redacted, reason: "an initialisation URL vtrim does not read (only http and https)")
            }
            initURLs.append(resolved)
        }
        return HLSStream(playlistURL: url, playlist: listed.playlist, segmentURLs: segmentURLs, initURLs: initURLs, variant: nil, warnings: [])
    }

    /// A representation's segments as a media playlist, with the references (relative URLs, nil for the
    /// representation's own file) of its segments and init section.
    struct Listed {
        var playlist: MediaPlaylist
        var segmentReferences: [String?]
        var initReference: String?
        var hasInit: Bool
    }
}
