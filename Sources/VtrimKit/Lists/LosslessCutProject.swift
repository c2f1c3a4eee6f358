import Foundation
import WorkerProtocol

/// LosslessCut's project file (`.llc`, JSON5): `{version, mediaFileName, cutSegments: [{start, end, name}]}`,
/// times in seconds; a segment without an end runs to the end of the file.
enum LosslessCutProject {
    private struct Project: Decodable {
        struct Segment: Decodable {
            var start: Double?
            var end: Double?
            var name: String?
        }
        var cutSegments: [Segment]
    }

    static func parse(_ text: String) throws(CutList.ParseError) -> [CutSegment] {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let project: Project
        do {
            project = try decoder.decode(Project.self, from: Data(text.utf8))
        } catch {
            throw CutList.ParseError(line: 1, message: "not a LosslessCut project (\(Self.describe(error)))")
        }
        var segments: [CutSegment] = []
        for (index, segment) in project.cutSegments.enumerated() {
            let start = segment.start ?? 0
            guard start.isFinite, start >= 0, segment.end.map({ $0.isFinite && $0 > start }) ?? true else {
                throw CutList.ParseError(line: 1, message: "cutSegments[\(index)] has no valid start and end")
            }
            let label = segment.name.flatMap { $0.isEmpty ? nil : $0 }
            segments.append(CutSegment(start: .seconds(start), end: segment.end.map { .seconds($0) } ?? .beforeEnd(0), lengthSeconds: nil,
                                       label: label))
        }
        return segments
    }

    static func render(_ ranges: [ListRange], media: ListMedia) -> String {
        var text = "{\n  version: 1,\n  mediaFileName: \(json((media.path as NSString).lastPathComponent)),\n  cutSegments: [\n"
        for range in ranges {
            text += "    { start: \(ListNumber.seconds(range.startSeconds)), end: \(ListNumber.seconds(range.endSeconds)), name: \(json(range.label ?? "")) },\n"
        }
        return text + "  ],\n}\n"
    }

    private static func json(_ text: String) -> String { JSON.string(text).serialized }

    private static func describe(_ error: Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, _): return "no \(key.stringValue)"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case let DecodingError.dataCorrupted(context): return context.debugDescription
        default: return "\(error)"
        }
    }
}
