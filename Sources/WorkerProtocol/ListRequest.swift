import Foundation

/// What lists say about the clip they cut: its file name, frame rate, duration and start timecode.
public struct ListClip: Sendable, Codable, Equatable {
    public var name: String
    public var framesPerSecond: Double?
    public var durationSeconds: Double?
    /// `HH:MM:SS:FF` (or `;FF`), the file's own.
    public var startTimecode: String?

    public init(name: String, framesPerSecond: Double?, durationSeconds: Double?, startTimecode: String?) {
        self.name = name
        self.framesPerSecond = framesPerSecond
        self.durationSeconds = durationSeconds
        self.startTimecode = startTimecode
    }
}

/// A list to read (`text`) or ranges to write (`ranges`) in `format` (csv, llc, otio, edl, chapters) for `clip`;
/// `listRate` is the EDL's frame rate where it is not the clip's, `listOrigin` how an EDL's source times count
/// (`timecode`: from the clip's start timecode; `zero`: from 0).
public struct ListRequest: Sendable, Codable, Equatable {
    public var format: String
    public var clip: ListClip
    public var text: String?
    public var ranges: [ServeRange]?
    public var listRate: String?
    public var listOrigin: String?

    /// 100 hours: the longest a timecode counts, and past any clip's length; no list holds a later time.
    public static let maximumSeconds = 360_000.0

    public init(format: String, clip: ListClip, text: String? = nil, ranges: [ServeRange]? = nil, listRate: String? = nil,
                listOrigin: String? = nil) {
        self.format = format
        self.clip = clip
        self.text = text
        self.ranges = ranges
        self.listRate = listRate
        self.listOrigin = listOrigin
    }
}
