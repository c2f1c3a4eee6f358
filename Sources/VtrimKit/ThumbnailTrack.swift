import Foundation

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
        let reference = sheet.addingPercentEncoding(withAllowedCharacters: urlPathCharacters) ?? sheet
        var lines = ["WEBVTT", ""]
        for (index, cue) in cues.enumerated() {
            lines.append(String(index + 1))
            lines.append("\(timestamp(cue.startSeconds)) --> \(timestamp(cue.endSeconds))")
            lines.append("\(reference)#xywh=\(cue.x),\(cue.y),\(cue.width),\(cue.height)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// `hh:mm:ss.ttt` (hours always written, as players' parsers expect for long films).
    public static func timestamp(_ seconds: Double) -> String {
        let milliseconds = seconds.isFinite ? max(0, Int64((seconds * 1000).rounded())) : 0
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60
        let wholeSeconds = milliseconds / 1000 % 60, fraction = milliseconds % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(wholeSeconds, 2)).\(pad(fraction, 3))"
    }

    /// RFC 3986 path characters, without `#` and `?`, which would end the path.
    private static let urlPathCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "#?")
        return set
    }()
}
