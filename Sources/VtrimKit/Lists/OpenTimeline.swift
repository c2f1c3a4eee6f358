import DiskNames
import Foundation
import WorkerProtocol

/// OpenTimelineIO (`.otio`, JSON): the clips of the first video track, in order (gaps ignored), each
/// clip's `source_range` counted from its media's `available_range.start_time` (the media's start timecode).
enum OpenTimeline {
    static func parse(_ text: String) throws(CutList.ParseError) -> [CutSegment] {
        func fail(_ message: String) -> CutList.ParseError { CutList.ParseError(line: 1, message: message) }
        guard let data = text.data(using: .utf8), let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw fail("not OpenTimelineIO JSON")
        }
        guard schema(root)?.hasPrefix("Timeline.") == true, let stack = root["tracks"] as? [String: Any],
              let tracks = stack["children"] as? [[String: Any]] else { throw fail("not an OpenTimelineIO timeline (no tracks)") }
        guard let video = tracks.first(where: { ($0["kind"] as? String) == "Video" }),
              let items = video["children"] as? [[String: Any]] else { throw fail("the timeline has no video track") }
        var segments: [CutSegment] = []
        for (index, item) in items.enumerated() where schema(item)?.hasPrefix("Clip.") == true {
            guard let range = item["source_range"] as? [String: Any], let start = seconds(range["start_time"]),
                  let duration = seconds(range["duration"]), duration > 0 else {
                throw fail("clip \(index + 1) of the video track has no source_range")
            }
            // Clip.1 holds one media reference; Clip.2 several, one of them active.
            let reference = item["media_reference"] as? [String: Any]
                ?? (item["active_media_reference_key"] as? String).flatMap { (item["media_references"] as? [String: Any])?[$0] as? [String: Any] }
            let origin = (reference?["available_range"] as? [String: Any]).flatMap { seconds($0["start_time"]) } ?? 0
            // A clip named after its media (as vtrim writes unlabelled ranges) has no label of its own.
            let media = reference?["name"] as? String
            let name = (item["name"] as? String).flatMap { $0.isEmpty || $0 == media ? nil : $0 }
            segments.append(CutSegment(start: .seconds(start - origin), end: .seconds(start - origin + duration), lengthSeconds: nil, label: name))
        }
        return segments
    }

    static func render(_ ranges: [ListRange], media: ListMedia) throws(CutListError) -> String {
        guard let rate = media.framesPerSecond, rate.isFinite, rate > 0 else {
            throw CutListError(message: "an OpenTimelineIO timeline needs the media's frame rate, which \(media.path) does not state")
        }
        // The media's start timecode is where its available range starts; source ranges count from it.
        let origin = media.startTimecodeSeconds
        func time(_ seconds: Double) -> JSON {
            // Frames to a millionth (no 66.00000000000001 from 2.2 × 30).
            .object([("OTIO_SCHEMA", .string("RationalTime.1")), ("rate", .number(rate)), ("value", .number((seconds * rate * 1e6).rounded() / 1e6))])
        }
        func range(_ start: Double, _ duration: Double) -> JSON {
            .object([("OTIO_SCHEMA", .string("TimeRange.1")), ("duration", time(duration)), ("start_time", time(start))])
        }
        let name = (media.path as NSString).lastPathComponent
        let reference: JSON = .object([
            ("OTIO_SCHEMA", .string("ExternalReference.1")), ("metadata", .object([])), ("name", .string(name)),
            ("available_range", media.durationSeconds.map { range(origin, $0) } ?? .null),
            ("target_url", .string(targetURL(media.path))),
        ])
        let clips: [JSON] = ranges.map { kept in
            .object([("OTIO_SCHEMA", .string("Clip.1")), ("metadata", .object([])), ("name", .string(kept.label ?? name)),
                     ("source_range", range(origin + kept.startSeconds, kept.endSeconds - kept.startSeconds)),
                     ("effects", .array([])), ("markers", .array([])), ("media_reference", reference)])
        }
        let track: JSON = .object([("OTIO_SCHEMA", .string("Track.1")), ("metadata", .object([])), ("name", .string("V1")),
                                   ("source_range", .null), ("effects", .array([])), ("markers", .array([])),
                                   ("kind", .string("Video")), ("children", .array(clips))])
        let timeline: JSON = .object([
            ("OTIO_SCHEMA", .string("Timeline.1")), ("metadata", .object([])), ("name", .string((name as NSString).deletingPathExtension)),
            ("global_start_time", .null),
            ("tracks", .object([("OTIO_SCHEMA", .string("Stack.1")), ("metadata", .object([])), ("name", .string("tracks")),
                                ("source_range", .null), ("effects", .array([])), ("markers", .array([])), ("children", .array([track]))])),
        ])
        return timeline.serialized + "\n"
    }

    /// The media's `file://` URL, a name's bytes that are not UTF-8 percent-encoded as themselves (`%E9`).
    static func targetURL(_ path: String) -> String {
        guard DiskName.hasEscapes(path) else { return URL(fileURLWithPath: path).absoluteString }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file://" + DiskName.percentEncoded(absolute) { byte in
            CharacterSet.urlPathAllowed.contains(Unicode.Scalar(byte)) && byte != UInt8(ascii: "%")
        }
    }

    private static func schema(_ object: [String: Any]) -> String? { object["OTIO_SCHEMA"] as? String }

    private static func seconds(_ value: Any?) -> Double? {
        guard let time = value as? [String: Any], let rate = (time["rate"] as? NSNumber)?.doubleValue,
              let frames = (time["value"] as? NSNumber)?.doubleValue, rate > 0, rate.isFinite, frames.isFinite else { return nil }
        return frames / rate
    }
}
