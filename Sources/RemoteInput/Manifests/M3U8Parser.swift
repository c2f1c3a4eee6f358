import Foundation

/// Reads an HLS playlist's text into a `Playlist`. Every number is checked where it enters: durations finite,
/// at most a day, byte ranges in Int64; at most `maximumSegments` segments. An error names the line.
public enum M3U8Parser {
    public static let maximumSegments = 100_000
    static let maximumSegmentSeconds = 86_400.0

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
    }

    public static func parse(_ text: String) throws(Failure) -> Playlist {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first(where: { !$0.isEmpty }) == "#EXTM3U" else {
            throw Failure(line: 1, reason: "not an HLS playlist (it does not begin with #EXTM3U)")
        }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-STREAM-INF:") }) {
            return .master(try master(lines))
        }
        return .media(try media(lines))
    }

    private static func master(_ lines: [String]) throws(Failure) -> MasterPlaylist {
        var variants: [MasterPlaylist.Variant] = [], renditions: [MasterPlaylist.Rendition] = []
        var pending: (attributes: [String: String], line: Int)?
        for (offset, line) in lines.enumerated() {
            let number = offset + 1
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = (try Attributes.parse(String(line.dropFirst("#EXT-X-STREAM-INF:".count)), line: number), number)
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let attributes = try Attributes.parse(String(line.dropFirst("#EXT-X-MEDIA:".count)), line: number)
                guard let type = attributes["TYPE"], let group = attributes["GROUP-ID"] else {
                    throw Failure(line: number, reason: "EXT-X-MEDIA without TYPE or GROUP-ID")
                }
                renditions.append(.init(type: type, groupID: group, name: attributes["NAME"] ?? group, uri: attributes["URI"],
                                        isDefault: attributes["DEFAULT"] == "YES"))
            } else if !line.isEmpty, !line.hasPrefix("#"), let (attributes, _) = pending {
                guard let bandwidth = attributes["BANDWIDTH"].flatMap({ Int($0) }), bandwidth >= 0 else {
                    throw Failure(line: number - 1, reason: "EXT-X-STREAM-INF without a BANDWIDTH")
                }
                let size = attributes["RESOLUTION"].flatMap(resolution)
                variants.append(.init(uri: line, bandwidth: bandwidth, width: size?.0, height: size?.1, codecs: attributes["CODECS"],
                                      audioGroup: attributes["AUDIO"]))
                pending = nil
            }
        }
        guard !variants.isEmpty else { throw Failure(line: 0, reason: "a master playlist without a variant") }
        return MasterPlaylist(variants: variants, renditions: renditions)
    }

    private static func resolution(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (1...65_536).contains(width),
              (1...65_536).contains(height) else { return nil }
        return (width, height)
    }

    private static func media(_ lines: [String]) throws(Failure) -> MediaPlaylist {
        var playlist = MediaPlaylist(targetDurationSeconds: nil, mediaSequence: 0, segments: [], initSections: [], ended: false,
                                     encryption: nil, playlistType: nil)
        var duration: Double?, range: ByteRange?, discontinuity = false
        // Where the last byte range of each URI ended: a BYTERANGE without an offset continues from there.
        var nextOffset: [String: Int64] = [:], pendingRange: (length: Int64, offset: Int64?)?
        for (offset, line) in lines.enumerated() {
            let number = offset + 1
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                guard let seconds = Double(value), seconds.isFinite, (0...maximumSegmentSeconds).contains(seconds) else {
                    throw Failure(line: number, reason: "EXTINF duration \"\(value)\" is not a number of seconds from 0 to a day")
                }
                duration = seconds
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                pendingRange = try byteRange(String(line.dropFirst("#EXT-X-BYTERANGE:".count)), line: number)
            } else if line.hasPrefix("#EXT-X-MAP:") {
                let attributes = try Attributes.parse(String(line.dropFirst("#EXT-X-MAP:".count)), line: number)
                guard let uri = attributes["URI"] else { throw Failure(line: number, reason: "EXT-X-MAP without a URI") }
                var mapRange: ByteRange?
                if let text = attributes["BYTERANGE"] {
                    let parsed = try byteRange(text, line: number)
                    mapRange = ByteRange(offset: parsed.offset ?? 0, length: parsed.length)
                }
                playlist.initSections.append(.init(uri: uri, byteRange: mapRange))
            } else if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                playlist.targetDurationSeconds = Double(line.dropFirst("#EXT-X-TARGETDURATION:".count)).flatMap { $0.isFinite ? $0 : nil }
            } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                playlist.mediaSequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? 0
            } else if line.hasPrefix("#EXT-X-PLAYLIST-TYPE:") {
                playlist.playlistType = String(line.dropFirst("#EXT-X-PLAYLIST-TYPE:".count))
            } else if line == "#EXT-X-ENDLIST" {
                playlist.ended = true
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if line.hasPrefix("#EXT-X-KEY:") {
                let method = try Attributes.parse(String(line.dropFirst("#EXT-X-KEY:".count)), line: number)["METHOD"] ?? "NONE"
                if method != "NONE" { playlist.encryption = method }
            } else if !line.isEmpty, !line.hasPrefix("#") {
                // The line is not quoted: a segment URL may carry a token.
                guard let seconds = duration else { throw Failure(line: number, reason: "a segment has no EXTINF before it") }
                guard playlist.segments.count < maximumSegments else {
                    throw Failure(line: number, reason: "more than \(maximumSegments) segments")
                }
                if let pending = pendingRange {
                    let start = pending.offset ?? nextOffset[line] ?? 0
                    guard case (let end, false) = start.addingReportingOverflow(pending.length) else {
                        throw Failure(line: number, reason: "EXT-X-BYTERANGE past the largest file")
                    }
                    range = ByteRange(offset: start, length: pending.length)
                    nextOffset[line] = end
                }
                playlist.segments.append(.init(uri: line, durationSeconds: seconds, byteRange: range,
                                               initSection: playlist.initSections.isEmpty ? nil : playlist.initSections.count - 1,
                                               followsDiscontinuity: discontinuity, line: number))
                duration = nil; range = nil; pendingRange = nil; discontinuity = false
            }
        }
        return playlist
    }

    /// `length[@offset]`, both non-negative and fitting in Int64, the length at least 1.
    private static func byteRange(_ text: String, line: Int) throws(Failure) -> (length: Int64, offset: Int64?) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let length = Int64(parts[0]), length > 0 else {
            throw Failure(line: line, reason: "byte range \"\(text)\" is not length[@offset]")
        }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = Int64(parts[1]), offset >= 0, !offset.addingReportingOverflow(length).overflow else {
            throw Failure(line: line, reason: "byte range \"\(text)\" has an offset that is not a byte position")
        }
        return (length, offset)
    }
}

/// An attribute list (`KEY=VALUE,KEY="quoted, value"`).
enum Attributes {
    static func parse(_ text: String, line: Int) throws(M3U8Parser.Failure) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else {
                throw M3U8Parser.Failure(line: line, reason: "attribute \"\(rest.prefix(40))\" has no value")
            }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    throw M3U8Parser.Failure(line: line, reason: "attribute \(key) has an unclosed quote")
                }
                value = body[..<close]
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            if rest.first == "," { rest = rest.dropFirst() }
            result[key] = String(value)
        }
        return result
    }
}
