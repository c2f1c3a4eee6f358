import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads a DASH manifest's XML into an `MPD` (external entities are never resolved). Numbers are checked where
/// they enter: timescales ≥ 1, durations and counts ≥ 0 and bounded, byte ranges in Int64.
public enum MPDParser {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// More segments than this in one timeline (`r` included) is not a manifest vtrim reads.
    public static let maximumSegments: Int64 = 1_000_000

    public static func parse(_ data: Data) throws(Failure) -> MPD {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let failure = reader.failure { throw failure }
        guard parsed, let mpd = reader.mpd else {
            throw Failure(reason: "not a DASH manifest vtrim can read (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "no MPD element"))")
        }
        guard !mpd.periods.isEmpty else { throw Failure(reason: "the manifest has no Period") }
        return mpd
    }

    /// ISO 8601 durations as MPDs write them: `PT1H2M3.5S`, `P1DT2H`; nil for anything else.
    public static func seconds(isoDuration text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0, inTime = false, number = ""
        for character in rest {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            default:
                guard let value = Double(number), value.isFinite else { return nil }
                let unit: Double
                switch (character, inTime) {
                case ("D", false): unit = 86_400
                case ("H", true): unit = 3_600
                case ("M", true): unit = 60
                case ("S", true): unit = 1
                case ("Y", false): unit = 365 * 86_400
                case ("M", false): unit = 30 * 86_400
                case ("W", false): unit = 7 * 86_400
                default: return nil
                }
                total += value * unit
                number = ""
            }
        }
        return number.isEmpty && total.isFinite && total <= 1e9 ? total : nil
    }

    /// `first-last` (inclusive), as SegmentBase and SegmentURL give byte ranges.
    static func byteRange(_ text: String?) -> ByteRange? {
        guard let text else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]), first >= 0, last >= first,
              case (let length, false) = (last - first).addingReportingOverflow(1) else { return nil }
        return ByteRange(offset: first, length: length)
    }
}

/// The XML walk: a level's BaseURL, addressing and attributes go to the element open at that depth.
private final class Reader: NSObject, XMLParserDelegate {
    var mpd: MPD?
    var failure: MPDParser.Failure?
    private var period: MPD.Period?
    private var adaptation: MPD.AdaptationSet?
    private var representation: MPD.Representation?
    /// The addressing being read (SegmentTemplate/List/Base) and the level it belongs to.
    private var addressing: MPD.Addressing?
    private var text = ""
    private var segmentCount: Int64 = 0

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        switch name {
        case "MPD":
            mpd = MPD(isDynamic: attributes["type"] == "dynamic",
                      durationSeconds: attributes["mediaPresentationDuration"].flatMap(MPDParser.seconds(isoDuration:)), baseURL: nil, periods: [])
        case "Period":
            period = MPD.Period(baseURL: nil, durationSeconds: attributes["duration"].flatMap(MPDParser.seconds(isoDuration:)), adaptationSets: [])
        case "AdaptationSet":
            adaptation = MPD.AdaptationSet(contentType: attributes["contentType"], mimeType: attributes["mimeType"], baseURL: nil,
                                           addressing: MPD.Addressing(), representations: [])
        case "Representation":
            representation = MPD.Representation(id: attributes["id"] ?? "", bandwidth: attributes["bandwidth"].flatMap { Int($0) } ?? 0,
                                                width: attributes["width"].flatMap { Int($0) }, height: attributes["height"].flatMap { Int($0) },
                                                codecs: attributes["codecs"], mimeType: attributes["mimeType"], baseURL: nil, addressing: MPD.Addressing())
        case "SegmentTemplate", "SegmentBase", "SegmentList":
            var found = MPD.Addressing()
            found.isTemplate = name == "SegmentTemplate"
            found.isBase = name == "SegmentBase"
            found.media = attributes["media"]
            found.initialization = attributes["initialization"]
            found.timescale = attributes["timescale"].flatMap { Int64($0) }
            found.duration = attributes["duration"].flatMap { Int64($0) }
            found.startNumber = attributes["startNumber"].flatMap { Int64($0) }
            found.presentationTimeOffset = attributes["presentationTimeOffset"].flatMap { Int64($0) }
            found.indexRange = MPDParser.byteRange(attributes["indexRange"])
            if name == "SegmentList" { found.list = [] }
            if let scale = found.timescale, scale < 1 { return fail(parser, "\(name) timescale \(scale) is not a positive number") }
            if let duration = found.duration, duration < 1 { return fail(parser, "\(name) duration \(duration) is not a positive number") }
            addressing = found
        case "Initialization":
            addressing?.initializationRange = MPDParser.byteRange(attributes["range"])
            if let source = attributes["sourceURL"] { addressing?.initialization = source }
        case "SegmentURL":
            segmentCount += 1
            guard segmentCount <= MPDParser.maximumSegments else { return fail(parser, "more than \(MPDParser.maximumSegments) segments") }
            addressing?.list?.append((attributes["media"], MPDParser.byteRange(attributes["mediaRange"])))
        case "S":
            guard let duration = attributes["d"].flatMap({ Int64($0) }), duration > 0 else { return fail(parser, "a SegmentTimeline entry without a positive d") }
            let repeats = attributes["r"].flatMap { Int64($0) } ?? 0
            guard repeats >= 0 else { return fail(parser, "SegmentTimeline r=\(repeats): open-ended repeats (live manifests) are not read") }
            // Checked before adding: the sum never overflows.
            guard repeats < MPDParser.maximumSegments - segmentCount else { return fail(parser, "more than \(MPDParser.maximumSegments) segments") }
            segmentCount += repeats + 1
            let entry = MPD.TimelineEntry(start: attributes["t"].flatMap { Int64($0) }, duration: duration, repeats: repeats)
            if addressing?.timeline == nil { addressing?.timeline = [] }
            addressing?.timeline?.append(entry)
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "BaseURL":
            if representation != nil { representation?.baseURL = value } else if adaptation != nil { adaptation?.baseURL = value }
            else if period != nil { period?.baseURL = value } else { mpd?.baseURL = value }
        case "SegmentTemplate", "SegmentBase", "SegmentList":
            guard let found = addressing else { break }
            if representation != nil { representation?.addressing = found } else if adaptation != nil { adaptation?.addressing = found }
            addressing = nil
        case "Representation":
            if let representation { adaptation?.representations.append(representation) }
            representation = nil
        case "AdaptationSet":
            if let adaptation { period?.adaptationSets.append(adaptation) }
            adaptation = nil
        case "Period":
            if let period { mpd?.periods.append(period) }
            period = nil
        default:
            break
        }
        text = ""
    }

    private func fail(_ parser: XMLParser, _ reason: String) {
        failure = failure ?? MPDParser.Failure(reason: reason)
        parser.abortParsing()
    }
}
