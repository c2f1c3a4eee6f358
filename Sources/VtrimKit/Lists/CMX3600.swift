import Foundation

/// CMX3600 edit decision lists (`.edl`): one video event per range, source in/out timecodes counting the clip's
/// frames in SMPTE timecode (`SMPTERate`: the clip's rate where it is one, or the list's own), from the media's
/// start timecode; the clip name carries the label.
enum CMX3600 {
    /// Reads the video events. The rate is the list's (`timing.rate`) or the clip's (a note says so); the source
    /// times count from the clip's start timecode, or from 0 (`timing.origin`).
    static func parse(_ text: String, media: ListMedia?, timing: ListTiming) throws(CutList.ParseError) -> ListReading {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        var reading = ListReading(segments: [])
        guard var rate = timing.rate ?? media?.smpteRate else {
            let fps = media?.framesPerSecond
            let stated = fps.map { $0.isFinite && $0 > 0 ? "plays at \(Human.decimal($0, places: 3)) fps, not a timecode rate" : "states no frame rate" }
                ?? "states no frame rate"
            throw CutList.ParseError(line: 1, message: "an EDL counts frames in SMPTE timecode and the clip \(stated): give --list-rate, the rate of the timeline the list was made on (\(SMPTERate.listed))")
        }
        if timing.rate == nil { reading.notes.append("its frames are counted at \(rate.rawValue) fps, the clip's rate (--list-rate reads it at another)") }
        // The list says how it counts: drop-frame (or `;` before the frames) where the rate has both ways.
        let saysDropFrame = lines.contains { $0.uppercased().hasPrefix("FCM:") && $0.uppercased().contains("DROP FRAME") && !$0.uppercased().contains("NON-DROP") }
        if saysDropFrame != rate.dropFrame {
            guard let other = rate.otherCounting else {
                throw CutList.ParseError(line: 1, message: "the list counts drop-frame timecode, which \(rate.rawValue) fps does not have")
            }
            rate = other
        }
        let mediaName = media.map { ($0.path as NSString).lastPathComponent }
        var frames: [(in: Int, out: Int, line: Int)] = []
        for (offset, line) in lines.enumerated() {
            if line.hasPrefix("* FROM CLIP NAME:"), let last = reading.segments.indices.last {
                let name = line.dropFirst("* FROM CLIP NAME:".count).trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, name != mediaName { reading.segments[last].label = name }
                continue
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // 001  AX  V  C  srcIn srcOut recIn recOut
            guard fields.count >= 8, Int(fields[0]) != nil else { continue }
            guard fields[3] == "C" else { throw CutList.ParseError(line: offset + 1, message: "only cuts (C) are read, not '\(fields[3])' transitions") }
            guard fields[2].hasPrefix("V") else { continue }
            guard let sourceIn = Timecode.frames(fields[4], rate: rate), let sourceOut = Timecode.frames(fields[5], rate: rate), sourceOut > sourceIn else {
                throw CutList.ParseError(line: offset + 1, message: "source timecodes '\(fields[4]) \(fields[5])' are not an in and a later out at \(rate.rawValue) fps")
            }
            frames.append((sourceIn, sourceOut, offset + 1))
            reading.segments.append(CutSegment(start: .seconds(0), end: .seconds(0), lengthSeconds: nil))
        }
        let clipStart = media?.startTimecodeSeconds ?? 0
        let clipStartText = media?.startTimecode ?? "00:00:00:00"
        func seconds(_ count: Int) -> Double { Double(count) / rate.framesPerSecond }
        var origin = clipStart
        // An event starts before the clip's first frame when its in is before the start timecode (a frame's slack).
        let before = frames.filter { seconds($0.in) < clipStart - 0.5 / rate.framesPerSecond }
        if clipStart > 0, !before.isEmpty {
            let first = Timecode.text(before[0].in, rate: rate) ?? "?"
            switch timing.origin {
            case .zero:
                origin = 0
            case .auto where before.count == frames.count && frames.allSatisfy({ seconds($0.out) <= clipStart }):
                origin = 0
                reading.warnings.append("its events (from \(first)) all lie before the clip's start timecode \(clipStartText): read as counting from 0 (--list-origin timecode refuses, --list-origin zero says so)")
            case .auto:
                throw CutList.ParseError(line: before[0].line, message: "the event at \(first) starts before the clip's start timecode \(clipStartText) while others do not: give --list-origin zero (times count from 0) or --list-origin timecode (from the start timecode)")
            case .timecode:
                throw CutList.ParseError(line: before[0].line, message: "the event at \(first) starts before the clip's start timecode \(clipStartText): give --list-origin zero if the list counts from 0")
            }
        } else if timing.origin == .zero {
            origin = 0
        }
        for (index, event) in frames.enumerated() {
            reading.segments[index].start = .seconds(max(0, seconds(event.in) - origin))
            reading.segments[index].end = .seconds(seconds(event.out) - origin)
        }
        return reading
    }

    static func render(_ ranges: [ListRange], media: ListMedia, rate chosen: SMPTERate?) throws(CutListError) -> String {
        let name = (media.path as NSString).lastPathComponent
        guard let rate = chosen ?? media.smpteRate else {
            let why: String
            if let fps = media.framesPerSecond, fps.isFinite, fps > 0 {
                let nearest = SMPTERate.nearest(to: fps).map(\.rawValue).joined(separator: " or ")
                why = "\(name) plays at \(Human.decimal(fps, places: 3)) fps, which is not one: give --list-rate (nearest: \(nearest); any of \(SMPTERate.listed))"
            } else {
                why = "\(name) states no frame rate: give --list-rate (\(SMPTERate.listed))"
            }
            throw CutListError(message: "an EDL counts frames in SMPTE timecode, and \(why)")
        }
        if let label = ranges.first(where: { $0.label?.contains(where: \.isNewline) == true })?.label {
            throw CutListError(message: "an EDL's clip name is one line; the label '\(label.prefix(40))' has a line break")
        }
        let fps = rate.framesPerSecond
        // The clip's start timecode as a count at the list's rate: exact where it is the clip's own rate.
        let start = media.startTimecode.flatMap { Timecode.frames($0, rate: rate) } ?? Int((media.startTimecodeSeconds * fps).rounded())
        var text = "TITLE: \((name as NSString).deletingPathExtension)\nFCM: \(rate.dropFrame ? "DROP FRAME" : "NON-DROP FRAME")\n\n"
        var record = 0
        for (index, range) in ranges.enumerated() {
            let sourceIn = start + Int((range.startSeconds * fps).rounded()), sourceOut = start + Int((range.endSeconds * fps).rounded())
            let length = sourceOut - sourceIn
            guard length > 0 else {
                throw CutListError(message: "range \(index + 1) (\(Human.seconds(range.startSeconds))–\(Human.seconds(range.endSeconds))) is shorter than a frame at \(rate.rawValue) fps")
            }
            guard let inText = Timecode.text(sourceIn, rate: rate), let outText = Timecode.text(sourceOut, rate: rate),
                  let recordIn = Timecode.text(record, rate: rate), let recordOut = Timecode.text(record + length, rate: rate) else {
                throw CutListError(message: "range \(index + 1) lies past the 100 hours a timecode counts")
            }
            text += String(format: "%03d  AX       V     C        ", index + 1) + "\(inText) \(outText) \(recordIn) \(recordOut)\n"
            text += "* FROM CLIP NAME: \(range.label ?? name)\n\n"
            record += length
        }
        return text
    }
}
