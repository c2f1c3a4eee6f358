import Foundation
import TimelineCore

/// LosslessCut's cut list: CSV rows `start,end,label` (times in seconds or the time syntax; an empty end
/// is the end of the file; the label may be quoted), optionally under a `start,end,label` header row.
public enum CutList {
    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> [CutSegment] {
        var segments: [CutSegment] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = fieldsOf(line)
            guard fields.count >= 2 else { throw ParseError(line: offset + 1, message: "expected start,end[,label]") }
            let startText = fields[0].trimmingCharacters(in: .whitespaces)
            let endText = fields[1].trimmingCharacters(in: .whitespaces)
            // A header row (`start,end,label`, any case) before the first segment.
            if segments.isEmpty, startText.lowercased() == "start", endText.lowercased() == "end" { continue }
            guard let start = try? TimeSpec(parsing: startText.isEmpty ? "0" : startText) else {
                throw ParseError(line: offset + 1, message: "start '\(startText)' is not a time")
            }
            var end: TimeSpec? = .beforeEnd(0)
            if !endText.isEmpty {
                guard let parsed = try? TimeSpec(parsing: endText) else {
                    throw ParseError(line: offset + 1, message: "end '\(endText)' is not a time")
                }
                end = parsed
            }
            let label = fields.count > 2 ? fields[2...].joined(separator: ",").trimmingCharacters(in: .whitespaces) : ""
            segments.append(CutSegment(start: start, end: end, lengthSeconds: nil, label: label.isEmpty ? nil : label))
        }
        return segments
    }

    /// Splits one CSV line (RFC 4180: double quotes around a field, `""` inside it for one quote).
    static func fieldsOf(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        let characters = Array(line)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if quoted {
                if character == "\"" {
                    if index < characters.count, characters[index] == "\"" {
                        current.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

extension CutList {
    /// LosslessCut's CSV: `start,end,label` rows in seconds (µs precision); labels quoted when they need it.
    public static func render(_ ranges: [ListRange]) -> String {
        ranges.map { range in
            [ListNumber.seconds(range.startSeconds), ListNumber.seconds(range.endSeconds), quoted(range.label ?? "")].joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Seconds written to the microsecond, without a trailing fraction of zeros.
enum ListNumber {
    static func seconds(_ value: Double) -> String { JSON.format((value * 1e6).rounded() / 1e6) }
}
