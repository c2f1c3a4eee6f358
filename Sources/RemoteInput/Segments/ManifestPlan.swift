import Foundation

/// A manifest cut as a value: which source segments a range keeps by URL (the middle) and which become new edge
/// segments (the first and last, cut frame-exact), from the playlist's own timing. Pure; the edges' exact seams are
/// read from the media when they are cut.
public struct ManifestPlan: Sendable, Equatable {
    /// The segment the range starts in, and the one it ends in (the same one when it lies in one segment).
    public var first: Int
    public var last: Int

    /// Source segments kept as they are, by URL.
    public var middle: ClosedRange<Int>? { last - first >= 2 ? (first + 1)...(last - 1) : nil }
    public var hasTailEdge: Bool { last > first }

    /// Nil for an empty playlist or range.
    public static func make(startsSeconds: [Double], durationsSeconds: [Double], startSeconds: Double, endSeconds: Double) -> ManifestPlan? {
        guard endSeconds > startSeconds,
              let first = SegmentChoice.overlapping(startsSeconds: startsSeconds, durationsSeconds: durationsSeconds, startSeconds: startSeconds,
                                                    endSeconds: startSeconds)?.lowerBound,
              let last = SegmentChoice.overlapping(startsSeconds: startsSeconds, durationsSeconds: durationsSeconds, startSeconds: startSeconds,
                                                   endSeconds: endSeconds)?.upperBound else { return nil }
        return ManifestPlan(first: first, last: max(first, last))
    }

    /// The playlist text: `entries` in order (a relative name or an absolute URL, its duration, its byte range),
    /// VOD, ended, no discontinuity (the edges keep the source's timeline); `map`: the one init section (EXT-X-MAP)
    /// every entry decodes with, fMP4's.
    public static func playlist(_ entries: [(uri: String, durationSeconds: Double, byteRange: ByteRange?)],
                                map: (uri: String, byteRange: ByteRange?)? = nil) -> String {
        let target = Int((entries.map(\.durationSeconds).max() ?? 1).rounded(.up))
        // EXT-X-MAP in a playlist of more than I-frames asks for version 6 (RFC 8216, 7).
        var text = "#EXTM3U\n#EXT-X-VERSION:\(map == nil ? 4 : 6)\n#EXT-X-TARGETDURATION:\(max(1, target))\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if let map {
            let quoted = map.uri.replacingOccurrences(of: "\"", with: "%22")
            text += "#EXT-X-MAP:URI=\"\(quoted)\"" + (map.byteRange.map { ",BYTERANGE=\"\($0.length)@\($0.offset)\"" } ?? "") + "\n"
        }
        for entry in entries {
            text += String(format: "#EXTINF:%.6f,\n", entry.durationSeconds)
            if let range = entry.byteRange { text += "#EXT-X-BYTERANGE:\(range.length)@\(range.offset)\n" }
            text += entry.uri + "\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// When signed segment URLs stop working, as their query says (CloudFront/Akamai `Expires`/`exp`, S3's
    /// `X-Amz-Date` + `X-Amz-Expires`, Akamai's `hdnts=…exp=…`): the earliest, seconds since 1970; `.distantPast`'s
    /// stand-in 0 when a token expires but its time cannot be read; nil when none seems to.
    public static func expiry(of urls: [RemoteURL]) -> Double? {
        var earliest: Double?
        for url in urls {
            guard let items = URLComponents(url: url.url, resolvingAgainstBaseURL: false)?.queryItems else { continue }
            var found: Double?
            var amzDate: Double?, amzExpires: Double?
            for item in items {
                let name = item.name.lowercased(), value = item.value ?? ""
                switch name {
                case "expires", "exp", "e": found = Double(value) ?? 0
                case "x-amz-expires": amzExpires = Double(value)
                case "x-amz-date": amzDate = Self.amzDate(value)
                case "hdnts", "__token__":
                    let part = value.split(separator: "~").first { $0.hasPrefix("exp=") }
                    found = part.flatMap { Double($0.dropFirst(4)) } ?? 0
                default: continue
                }
            }
            if let amzExpires { found = (amzDate ?? -amzExpires) + amzExpires }
            if let found { earliest = min(earliest ?? found, found) }
        }
        return earliest
    }

    /// `20261130T161500Z`.
    static func amzDate(_ text: String) -> Double? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
