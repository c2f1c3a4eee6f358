import Foundation

/// CMX3600 edit decision lists (`.edl`): one video event per range, source in/out timecodes counting the clip's
/// frames in its nominal rate's digits (non-drop-frame: 29.97 fps counts as 30, each count one real frame),
/// from the media's start timecode; the clip name carries the label.
enum CMX3600 {
    /// `mediaName`: a clip named after the media file (as vtrim writes unlabelled ranges) has no label of its own.
    static func parse(_ text: String, rate: Int, framesPerSecond fps: Double, startSeconds: Double, mediaName: String? = nil) throws(CutList.ParseError) -> [CutSegment] {
        var segments: [CutSegment] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("* FROM CLIP NAME:"), let last = segments.indices.last {
                let name = line.dropFirst("* FROM CLIP NAME:".count).trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, name != mediaName { segments[last].label = name }
                continue
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // 001  AX  V  C  srcIn srcOut recIn recOut
            guard fields.count >= 8, Int(fields[0]) != nil else { continue }
            guard fields[3] == "C" else { throw CutList.ParseError(line: offset + 1, message: "only cuts (C) are read, not '\(fields[3])' transitions") }
            guard fields[2].hasPrefix("V") else { continue }
            guard let sourceIn = Timecode.frames(fields[4], rate: rate), let sourceOut = Timecode.frames(fields[5], rate: rate), sourceOut > sourceIn else {
                throw CutList.ParseError(line: offset + 1, message: "source timecodes '\(fields[4]) \(fields[5])' are not an in and a later out at \(rate) fps")
            }
            segments.append(CutSegment(start: .seconds(max(0, Double(sourceIn) / fps - startSeconds)),
                                       end: .seconds(Double(sourceOut) / fps - startSeconds), lengthSeconds: nil))
        }
        return segments
    }

    static func render(_ ranges: [ListRange], media: ListMedia) throws(CutListError) -> String {
        guard let rate = media.nominalRate, let fps = media.framesPerSecond,
              ranges.allSatisfy({ $0.startSeconds >= 0 && $0.endSeconds <= 360_000 && $0.endSeconds.isFinite }) else {
            throw CutListError(message: "an EDL counts frames at the clip's rate, which \(media.path) does not state, within 100 hours of timecode")
        }
        let name = (media.path as NSString).lastPathComponent
        let start = media.startTimecode.flatMap { Timecode.frames($0, rate: rate) } ?? 0
        var text = "TITLE: \((name as NSString).deletingPathExtension)\nFCM: NON-DROP FRAME\n\n"
        var record = 0
        for (index, range) in ranges.enumerated() {
            let sourceIn = start + Int((range.startSeconds * fps).rounded()), sourceOut = start + Int((range.endSeconds * fps).rounded())
            let length = sourceOut - sourceIn
            text += String(format: "%03d  AX       V     C        ", index + 1)
                + "\(Timecode.text(sourceIn, rate: rate)) \(Timecode.text(sourceOut, rate: rate)) \(Timecode.text(record, rate: rate)) \(Timecode.text(record + length, rate: rate))\n"
            text += "* FROM CLIP NAME: \(range.label ?? name)\n\n"
            record += length
        }
        return text
    }
}
