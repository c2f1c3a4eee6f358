import DiskNames
import Foundation
import TimelineCore

/// A WebVTT thumbnails track (the scrubbing previews of video.js, Plyr, JW Player, Vidstack): one cue per
/// cell, covering the cell's window of the range, whose payload points into the sheet with a media
/// fragment, `sheet.jpg#xywh=x,y,w,h`.
public enum ThumbnailTrack {
    public struct Cue: Equatable, Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        public var x: Int, y: Int, width: Int, height: Int
    }

    /// The track's text. `sheet` is the sheet's path relative to the track (a URL: percent-encoded here).
    /// Times are rounded to milliseconds once, so each cue ends exactly where the next one starts.
    public static func text(cues: [Cue], sheet: String) -> String {
        let reference = DiskName.percentEncoded(sheet) { urlPathCharacters.contains(Unicode.Scalar($0)) }
        var lines = ["WEBVTT", ""]
        for (index, cue) in cues.enumerated() {
            lines.append(String(index + 1))
            lines.append("\(TimeFormatting.webVTT(seconds: cue.startSeconds)) --> \(TimeFormatting.webVTT(seconds: cue.endSeconds))")
            lines.append("\(reference)#xywh=\(cue.x),\(cue.y),\(cue.width),\(cue.height)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// RFC 3986 path characters, without `#` and `?`, which would end the path.
    private static let urlPathCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "#?")
        return set
    }()
}
