import Foundation
import TimelineCore

/// YouTube's chapter text: `0:00 Intro` lines, chapter k running from its time to the next one's (the last to
/// the end). Times are `m:ss` or `h:mm:ss`, with a fraction where a range does not start on a whole second.
enum ChapterText {
    static func parse(_ text: String) throws(CutList.ParseError) -> [CutSegment] {
        var starts: [(seconds: Double, title: String, line: Int)] = []
        for (offset, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            let token = String(line.prefix { !$0.isWhitespace })
            guard token.contains(":"), case let .seconds(seconds)? = try? TimeSpec(parsing: token) else {
                throw CutList.ParseError(line: offset + 1, message: "expected a time and a title, as '0:00 Intro'")
            }
            if let last = starts.last, seconds <= last.seconds {
                throw CutList.ParseError(line: offset + 1, message: "chapter times must increase")
            }
            let title = line.dropFirst(token.count).trimmingCharacters(in: .whitespaces)
            starts.append((seconds, title.hasPrefix("- ") ? String(title.dropFirst(2)) : title, offset + 1))
        }
        return starts.indices.map { index in
            CutSegment(start: .seconds(starts[index].seconds),
                       end: starts.indices.contains(index + 1) ? .seconds(starts[index + 1].seconds) : .beforeEnd(0),
                       lengthSeconds: nil, label: starts[index].title.isEmpty ? nil : starts[index].title)
        }
    }

    static func render(_ ranges: [ListRange]) throws(CutListError) -> String {
        for index in ranges.indices.dropFirst() where abs(ranges[index].startSeconds - ranges[index - 1].endSeconds) > 1e-6 {
            throw CutListError(message: "chapter text holds contiguous ranges only (each chapter runs to the next), but range \(index + 1) does not start where range \(index) ends")
        }
        if let label = ranges.first(where: { $0.label?.contains(where: \.isNewline) == true })?.label {
            throw CutListError(message: "a chapter's title is one line; the label '\(label.prefix(40))' has a line break")
        }
        return ranges.enumerated().map { index, range in "\(time(range.startSeconds)) \(range.label ?? "Part \(index + 1)")" }
            .joined(separator: "\n") + "\n"
    }

    static func time(_ seconds: Double) -> String {
        let micro = Int64(exactly: (min(max(seconds, 0), 1e12) * 1e6).rounded()) ?? 0, whole = micro / 1_000_000, fraction = micro % 1_000_000
        var text = whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
                                 : String(format: "%d:%02d", whole / 60, whole % 60)
        if fraction > 0 {
            var digits = String(format: "%06d", fraction)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }
}
