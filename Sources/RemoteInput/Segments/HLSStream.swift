import Foundation

/// An HLS stream vtrim reads: the media playlist chosen (through the master's variant, if there is one), its
/// segments' URLs resolved and checked, and what the choice was, for the report.
public struct HLSStream: Sendable {
    public var playlistURL: RemoteURL
    public var playlist: MediaPlaylist
    public var segmentURLs: [RemoteURL]
    public var initURLs: [RemoteURL]
    /// "1280x720, 2.5 Mb/s" when a master playlist offered variants.
    public var variant: String?
    public var warnings: [(code: String, message: String)]

    /// Reads `url` (a master or a media playlist). Refuses encrypted segments, an empty playlist, and segment
    /// URLs vtrim does not read; a live playlist (no `EXT-X-ENDLIST`) is read as it stands, with a warning.
    public static func open(_ url: RemoteURL, fetcher: HTTPFetcher, variant choice: VariantChoice) throws(RemoteError) -> ChosenTracks {
        var playlistURL = url
        // References resolve against the URL that answered (after redirects), as players do.
        var (parsed, base) = try playlist(url, fetcher: fetcher)
        var variantText: String?
        var audio: HLSStream?
        if case let .master(master) = parsed {
            guard let index = choice.choose(master.variants), let chosen = base.resolving(master.variants[index].uri) else {
                throw RemoteError(.badManifest, url: url.redacted, reason: "the master playlist names no variant vtrim can read")
            }
            let variant = master.variants[index]
            variantText = [variant.width.flatMap { w in variant.height.map { "\(w)x\($0)" } }, String(format: "%.2f Mb/s", Double(variant.bandwidth) / 1e6)]
                .compactMap { $0 }.joined(separator: ", ")
            // The variant's sound as a playlist of its own (EXT-X-MEDIA TYPE=AUDIO): its default rendition, else the first.
            let group = master.renditions.filter { $0.type == "AUDIO" && $0.groupID == variant.audioGroup && $0.uri != nil }
            if let rendition = group.first(where: \.isDefault) ?? group.first, let uri = rendition.uri {
                guard let audioURL = base.resolving(uri) else {
                    throw RemoteError(.refused, url: url.redacted, reason: "its audio rendition names a URL vtrim does not read (only http and https)")
                }
                let (audioParsed, audioBase) = try playlist(audioURL, fetcher: fetcher)
                audio = try media(audioURL, parsed: audioParsed, base: audioBase, variant: nil)
            }
            playlistURL = chosen
            (parsed, base) = try playlist(chosen, fetcher: fetcher)
        }
        let video = try media(playlistURL, parsed: parsed, base: base, variant: variantText)
        if let audio, audio.initURLs.isEmpty != video.initURLs.isEmpty {
            throw RemoteError(.badManifest, url: url.redacted, reason: "its video and audio renditions are in different segment formats (TS and fMP4), which vtrim does not join")
        }
        return ChosenTracks(video: video, audio: audio)
    }

    /// A media playlist's stream: refuses encrypted segments, an empty playlist, and segment URLs vtrim does not read;
    /// a live playlist (no `EXT-X-ENDLIST`) is read as it stands, with a warning.
    private static func media(_ playlistURL: RemoteURL, parsed: Playlist, base: RemoteURL, variant variantText: String?) throws(RemoteError) -> HLSStream {
        var warnings: [(code: String, message: String)] = []
        guard case let .media(media) = parsed else {
            throw RemoteError(.badManifest, url: playlistURL.redacted, reason: "a variant of a master playlist is itself a master playlist")
        }
        if let method = media.encryption {
            throw RemoteError(.badManifest, url: playlistURL.redacted, reason: "its segments are encrypted (EXT-X-KEY METHOD=\(method)), which vtrim does not read")
        }
        guard !media.segments.isEmpty else { throw RemoteError(.badManifest, url: playlistURL.redacted, reason: "the playlist lists no segment") }
        if !media.ended {
            warnings.append(("live_playlist", "the playlist has no EXT-X-ENDLIST (a live stream): what it lists now, \(String(format: "%.3f", media.durationSeconds)) s, is read"))
        }
        var segmentURLs: [RemoteURL] = []
        for segment in media.segments {
            guard let resolved = base.resolving(segment.uri) else {
                throw RemoteError(.refused, url: playlistURL.redacted, reason: "line \(segment.line) names a segment vtrim does not read (only http and https URLs)")
            }
            segmentURLs.append(resolved)
        }
        var initURLs: [RemoteURL] = []
        for section in media.initSections {
            guard let resolved = base.resolving(section.uri) else {
                throw RemoteError(.refused, url: playlistURL.redacted, reason: "EXT-X-MAP names a URL vtrim does not read (only http and https)")
            }
            initURLs.append(resolved)
        }
        return HLSStream(playlistURL: playlistURL, playlist: media, segmentURLs: segmentURLs, initURLs: initURLs, variant: variantText,
                         warnings: warnings)
    }

    /// Playlists are text of at most 16 MiB.
    static let maximumPlaylistBytes: Int64 = 16 << 20

    private static func playlist(_ url: RemoteURL, fetcher: HTTPFetcher) throws(RemoteError) -> (Playlist, base: RemoteURL) {
        let answer = try fetcher.get(url, maximumBytes: maximumPlaylistBytes)
        guard let text = String(data: answer.body, encoding: .utf8) else {
            throw RemoteError(.badManifest, url: url.redacted, reason: "the playlist is not UTF-8 text")
        }
        do { return (try M3U8Parser.parse(text), answer.url) } catch {
            throw RemoteError(.badManifest, url: url.redacted, reason: "not a playlist vtrim can read (\(error))")
        }
    }
}


/// The tracks a manifest's choice reads: its video (with whatever else its segments hold) and, where the sound is
/// listed apart (an HLS audio rendition, a DASH audio adaptation set), the sound.
public struct ChosenTracks: Sendable {
    public var video: HLSStream
    public var audio: HLSStream?
}
