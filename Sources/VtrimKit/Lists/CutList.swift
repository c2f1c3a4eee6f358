import Foundation
import TimelineCore
import WorkerProtocol

/// LosslessCut's cut list: CSV rows `start,end,label` (times in seconds or the time syntax; an empty end
/// is the end of the file; the label may be quoted), optionally under a `start,end,label` header row.
public enum CutList {
    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }

        /// `message` may quote the list's text: its line breaks are shown as `\n`, so the error stays one line.
        public init(line: Int, message: String) {
            self.line = line
            self.message = OneLine.text(message)
        }
    }

    public static func parse(_ text: String) throws(ParseError) -> [CutSegment] {
        var segments: [CutSegment] = []
        for record in try records(text) {
            let fields = record.fields
            if fields.count == 1, fields[0].trimmingCharacters(in: .whitespaces).isEmpty, !record.quoted { continue }
            if !record.quoted, fields[0].trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            guard fields.count >= 2 else { throw ParseError(line: record.line, message: "expected start,end[,label]") }
            let startText = fields[0].trimmingCharacters(in: .whitespaces)
            let endText = fields[1].trimmingCharacters(in: .whitespaces)
            // A header row (`start,end,label`, any case) before the first segment.
            if segments.isEmpty, startText.lowercased() == "start", endText.lowercased() == "end" { continue }
            guard let start = try? TimeSpec(parsing: startText.isEmpty ? "0" : startText) else {
                throw ParseError(line: record.line, message: "start '\(startText)' is not a time")
            }
            var end: TimeSpec? = .beforeEnd(0)
            if !endText.isEmpty {
                guard let parsed = try? TimeSpec(parsing: endText) else {
                    throw ParseError(line: record.line, message: "end '\(endText)' is not a time")
                }
                end = parsed
            }
            let label = fields.count > 2 ? fields[2...].joined(separator: ",").trimmingCharacters(in: .whitespaces) : ""
            segments.append(CutSegment(start: start, end: end, lengthSeconds: nil, label: label.isEmpty ? nil : label))
        }
        return segments
    }

    /// The records of a CSV text (RFC 4180: a field in double quotes may hold commas, line breaks and `""` for
    /// one quote), each with the line it starts on and whether any field was quoted.
    static func records(_ text: String) throws(ParseError) -> [(line: Int, fields: [String], quoted: Bool)] {
        var records: [(line: Int, fields: [String], quoted: Bool)] = []
        var fields: [String] = [], current = "", quoted = false, anyQuoted = false
        var line = 1, recordLine = 1
        var characters = text.makeIterator()
        var pending: Character? = nil
        func next() -> Character? {
            if let held = pending {
                pending = nil
                return held
            }
            return characters.next()
        }
        while let character = next() {
            if quoted {
                if character == "\"" {
                    if let following = next() {
                        if following == "\"" { current.append("\"") } else { quoted = false; pending = following }
                    } else {
                        quoted = false
                    }
                } else {
                    if character.isNewline { line += 1 }
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
                anyQuoted = true
            } else if character == "," {
                fields.append(current)
                current = ""
            } else if character.isNewline {
                fields.append(current.trimmingCharacters(in: CharacterSet(charactersIn: "\r")))
                records.append((recordLine, fields, anyQuoted))
                fields = []
                current = ""
                anyQuoted = false
                line += 1
                recordLine = line
            } else {
                current.append(character)
            }
        }
        if quoted { throw ParseError(line: recordLine, message: "a quoted field is not closed") }
        if !current.isEmpty || !fields.isEmpty || anyQuoted { records.append((recordLine, fields + [current], anyQuoted)) }
        return records
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
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Seconds written to the microsecond, without a trailing fraction of zeros.
enum ListNumber {
    static func seconds(_ value: Double) -> String { JSON.format((value * 1e6).rounded() / 1e6) }
}
