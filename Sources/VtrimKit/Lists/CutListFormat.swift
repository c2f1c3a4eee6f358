import Foundation
import MediaEngine
import TimelineCore
import WorkerProtocol

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

    /// The extension a list of this format is written with.
    public var fileExtension: String { self == .chapters ? "txt" : rawValue }

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
        do { return ListMedia(try Probe.probe(path: path)) } catch { throw CutListError(message: "\(path): \(error.message)") }
    }

    init(_ info: MediaInfo) {
        self.init(path: info.path, framesPerSecond: info.video?.framesPerSecond, durationSeconds: info.durationSeconds,
                  startTimecode: info.startTimecode)
    }

    /// The SMPTE rate the clip plays at (drop-frame when its own start timecode is written so), or nil.
    public var smpteRate: SMPTERate? {
        guard let rate = framesPerSecond.flatMap(SMPTERate.matching(framesPerSecond:)) else { return nil }
        if startTimecode?.contains(";") == true, let dropped = rate.otherCounting { return dropped }
        return rate
    }

    /// The start timecode in seconds: its count of frames at the clip's rate (0 when it states none, or a rate
    /// no timecode counts in).
    var startTimecodeSeconds: Double {
        guard let text = startTimecode else { return 0 }
        if let rate = smpteRate, let frames = Timecode.frames(text, rate: rate) { return Double(frames) / rate.framesPerSecond }
        // A rate outside SMPTE's (a 20 fps camera): its digits count whole frames of the clip.
        guard let fps = framesPerSecond, fps.isFinite, fps >= 1, fps <= 1000 else { return 0 }
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == ";" }).compactMap { Int($0) }
        let nominal = Int(fps.rounded())
        guard parts.count == 4, (0..<100).contains(parts[0]), (0..<60).contains(parts[1]), (0..<60).contains(parts[2]),
              (0..<nominal).contains(parts[3]) else { return 0 }
        return Double(((parts[0] * 60 + parts[1]) * 60 + parts[2]) * nominal + parts[3]) / fps
    }
}

/// How an EDL's source timecodes map onto the clip: from its start timecode (`timecode`), from 0 (`zero`), or
/// (`auto`) from the start timecode unless every event lies before it — then from 0, with a warning.
public enum ListOrigin: String, Sendable, CaseIterable {
    case auto, timecode, zero
}

/// The EDL options of a list read or written: the frame rate its timecodes count at (nil: the clip's) and
/// where its source times start.
public struct ListTiming: Sendable, Equatable {
    public var rate: SMPTERate?
    public var origin: ListOrigin

    public init(rate: SMPTERate? = nil, origin: ListOrigin = .auto) {
        self.rate = rate
        self.origin = origin
    }
}

/// A list read: its ranges, and what reading it decided that the user should know (notes) or check (warnings).
public struct ListReading: Sendable {
    public var segments: [CutSegment]
    public var notes: [String] = []
    public var warnings: [String] = []
}

/// Why a list cannot be written in the asked format, or its media read.
public struct CutListError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Reading and writing cut lists; every reader names the line (or the element) it cannot read.
public enum CutLists {
    public static func read(_ text: String, format: CutListFormat, media: ListMedia?, timing: ListTiming = ListTiming())
        throws(CutList.ParseError) -> ListReading {
        switch format {
        case .csv: return ListReading(segments: try CutList.parse(text))
        case .llc: return ListReading(segments: try LosslessCutProject.parse(text))
        case .otio: return ListReading(segments: try OpenTimeline.parse(text))
        case .edl: return try CMX3600.parse(text, media: media, timing: timing)
        case .chapters: return ListReading(segments: try ChapterText.parse(text))
        }
    }

    public static func render(_ ranges: [ListRange], format: CutListFormat, media: ListMedia, timing: ListTiming = ListTiming())
        throws(CutListError) -> String {
        guard ranges.allSatisfy({ $0.startSeconds.isFinite && $0.endSeconds.isFinite && $0.startSeconds >= 0 && $0.endSeconds > $0.startSeconds
                                  && $0.endSeconds <= maximumSeconds }) else {
            throw CutListError(message: "a list holds ranges of 0 to \(Int(maximumSeconds)) s, each ending after it starts")
        }
        switch format {
        case .csv: return CutList.render(ranges)
        case .llc: return LosslessCutProject.render(ranges, media: media)
        case .otio: return try OpenTimeline.render(ranges, media: media)
        case .edl: return try CMX3600.render(ranges, media: media, rate: timing.rate)
        case .chapters: return try ChapterText.render(ranges)
        }
    }

    /// The longest time a list holds (`ListRequest.maximumSeconds`).
    public static let maximumSeconds = ListRequest.maximumSeconds
}

extension ListRange {
    var segment: CutSegment { CutSegment(start: .seconds(startSeconds), end: .seconds(endSeconds), lengthSeconds: nil, label: label) }
}
