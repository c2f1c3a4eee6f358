import Foundation
import MediaEngine
import TimelineCore

/// The cut lists vtrim reads (`--list`) and writes (`--export-list`), by the file's extension or `--list-format`:
/// LosslessCut's CSV (also any unknown extension) and its `.llc` project, OpenTimelineIO `.otio`, CMX3600
/// `.edl`, and YouTube chapter text.
public enum CutListFormat: String, CaseIterable, Sendable {
    case csv, llc, otio, edl, chapters

    public init(fileName: String) {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "llc": self = .llc
        case "otio": self = .otio
        case "edl": self = .edl
        default: self = .csv
        }
    }

    /// Reading needs the media's frame rate (an EDL counts frames at the clip's nominal rate).
    public var needsFrameRate: Bool { self == .edl }
}

/// A kept range as a list holds it: seconds on the media's own timeline (0 = its start), and a label.
public struct ListRange: Sendable, Equatable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var label: String?

    public init(startSeconds: Double, endSeconds: Double, label: String? = nil) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.label = label
    }
}

/// What lists say about the media they cut: its file name, frame rate, duration and start timecode.
public struct ListMedia: Sendable, Equatable {
    public var path: String
    public var framesPerSecond: Double?
    public var durationSeconds: Double?
    /// `HH:MM:SS:FF` (or `;FF`), the file's own; timeline and EDL source times count from it.
    public var startTimecode: String?

    public init(path: String, framesPerSecond: Double?, durationSeconds: Double?, startTimecode: String? = nil) {
        self.path = path
        self.framesPerSecond = framesPerSecond
        self.durationSeconds = durationSeconds
        self.startTimecode = startTimecode
    }

    /// Probes the file.
    public static func of(path: String) throws(CutListError) -> ListMedia {
        let info: MediaInfo
        do { info = try Probe.probe(path: path) } catch { throw CutListError(message: "\(path): \(error.message)") }
        return ListMedia(path: path, framesPerSecond: info.video?.framesPerSecond, durationSeconds: info.durationSeconds,
                         startTimecode: info.startTimecode)
    }

    /// The nominal (whole) frame rate timecodes count in: 30 for 29.97, 24 for 23.976 (non-drop-frame).
    var nominalRate: Int? {
        guard let rate = framesPerSecond, rate.isFinite, rate > 0, rate < 1000 else { return nil }
        return Int(rate.rounded())
    }

    /// The start timecode in seconds: its count of frames (digits in the nominal rate) at the real rate (0 when none).
    var startTimecodeSeconds: Double {
        guard let text = startTimecode, let rate = nominalRate, let fps = framesPerSecond, let frames = Timecode.frames(text, rate: rate) else { return 0 }
        return Double(frames) / fps
    }
}

/// Why a list cannot be written in the asked format, or its media read.
public struct CutListError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Reading and writing cut lists; every reader names the line (or the element) it cannot read.
public enum CutLists {
    public static func read(_ text: String, format: CutListFormat, media: ListMedia?) throws(CutList.ParseError) -> [CutSegment] {
        switch format {
        case .csv: return try CutList.parse(text)
        case .llc: return try LosslessCutProject.parse(text)
        case .otio: return try OpenTimeline.parse(text)
        case .edl:
            guard let media, let rate = media.nominalRate, let fps = media.framesPerSecond else {
                throw CutList.ParseError(line: 1, message: "an EDL counts frames at the clip's rate, and the media's frame rate is unknown")
            }
            return try CMX3600.parse(text, rate: rate, framesPerSecond: fps, startSeconds: media.startTimecodeSeconds,
                                     mediaName: (media.path as NSString).lastPathComponent)
        case .chapters: return try ChapterText.parse(text)
        }
    }

    public static func render(_ ranges: [ListRange], format: CutListFormat, media: ListMedia) throws(CutListError) -> String {
        switch format {
        case .csv: return CutList.render(ranges)
        case .llc: return LosslessCutProject.render(ranges, media: media)
        case .otio: return try OpenTimeline.render(ranges, media: media)
        case .edl: return try CMX3600.render(ranges, media: media)
        case .chapters: return try ChapterText.render(ranges)
        }
    }
}

extension ListRange {
    var segment: CutSegment { CutSegment(start: .seconds(startSeconds), end: .seconds(endSeconds), lengthSeconds: nil, label: label) }
}

/// `HH:MM:SS:FF` timecodes at a whole frame rate (non-drop-frame; `;` accepted and counted the same).
enum Timecode {
    static func frames(_ text: String, rate: Int) -> Int? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." }).map { Int($0) }
        guard parts.count == 4, let hours = parts[0], let minutes = parts[1], let seconds = parts[2], let frames = parts[3],
              hours >= 0, hours < 100, (0..<60).contains(minutes), (0..<60).contains(seconds), (0..<rate).contains(frames) else { return nil }
        return ((hours * 60 + minutes) * 60 + seconds) * rate + frames
    }

    static func text(_ frames: Int, rate: Int) -> String {
        let frame = frames % rate, total = frames / rate
        return String(format: "%02d:%02d:%02d:%02d", total / 3600, total / 60 % 60, total % 60, frame)
    }
}
