import Foundation

/// The three ways a DASH representation lists its segments, each made into a media playlist.
enum DASHSegments {
    typealias Listed = DASHStream.Listed

    /// SegmentTemplate: with a SegmentTimeline (`$Time$` or `$Number$`), or a fixed duration (`$Number$`) over the
    /// period's length.
    /// Every segment between 0 and a day long, as HLS's EXTINF is held to: the stream's length then fits every clock.
    static func checked(_ listed: Listed, manifest url: RemoteURL) throws(RemoteError) -> Listed {
        guard !listed.playlist.segments.isEmpty else { throw RemoteError(.badManifest, url: url.redacted, reason: "a representation lists no segment") }
        for segment in listed.playlist.segments where !(segment.durationSeconds.isFinite && (0...M3U8Parser.maximumSegmentSeconds).contains(segment.durationSeconds)) {
            throw RemoteError(.badManifest, url: url.redacted, reason: "segment \(segment.line - 1) lasts \(segment.durationSeconds) s, not 0 to a day")
        }
        return listed
    }

    static func template(_ addressing: MPD.Addressing, representation: MPD.Representation, durationSeconds: Double?,
                         manifest url: RemoteURL) throws(RemoteError) -> Listed {
        guard let media = addressing.media else { throw RemoteError(.badManifest, url: url.redacted, reason: "a SegmentTemplate without media") }
        let timescale = max(1, addressing.timescale ?? 1), startNumber = addressing.startNumber ?? 1
        var times: [(start: Int64, duration: Int64)] = []
        if let timeline = addressing.timeline {
            var next: Int64 = 0
            for entry in timeline {
                next = entry.start ?? next
                for _ in 0...entry.repeats {
                    times.append((next, entry.duration))
                    guard case (let end, false) = next.addingReportingOverflow(entry.duration) else {
                        throw RemoteError(.badManifest, url: url.redacted, reason: "SegmentTimeline times past the largest number")
                    }
                    next = end
                }
            }
        } else if let duration = addressing.duration, let total = durationSeconds, total > 0 {
            let counted = (total * Double(timescale) / Double(duration)).rounded(.up)
            guard counted.isFinite, counted >= 1, counted <= Double(MPDParser.maximumSegments) else {
                throw RemoteError(.badManifest, url: url.redacted, reason: "a SegmentTemplate of more than \(MPDParser.maximumSegments) segments")
            }
            for index in 0..<Int64(counted) {
                guard case (let start, false) = index.multipliedReportingOverflow(by: duration) else {
                    throw RemoteError(.badManifest, url: url.redacted, reason: "SegmentTemplate times past the largest number")
                }
                times.append((start, duration))
            }
            let periodTicks = (total * Double(timescale)).rounded()
            if let last = times.indices.last, periodTicks.isFinite, periodTicks < 9e18 {
                // The last segment ends with the period.
                times[last].duration = max(1, Int64(periodTicks) - times[last].start)
            }
        } else {
            throw RemoteError(.badManifest, url: url.redacted, reason: "a SegmentTemplate with neither a SegmentTimeline nor a duration and period length")
        }
        var playlist = MediaPlaylist(targetDurationSeconds: nil, mediaSequence: Int(clamping: startNumber), segments: [], initSections: [],
                                     ended: true, encryption: nil, playlistType: "VOD")
        if addressing.initialization != nil { playlist.initSections = [.init(uri: "", byteRange: nil)] }
        var references: [String?] = []
        let firstStart = times.first?.start ?? 0
        for (number, time) in times.enumerated() {
            guard case (let segmentNumber, false) = startNumber.addingReportingOverflow(Int64(number)) else {
                throw RemoteError(.badManifest, url: url.redacted, reason: "segment numbers past the largest number")
            }
            let values = TemplateValues(representation: representation.id, number: segmentNumber, time: time.start, bandwidth: representation.bandwidth)
            let reference = values.fill(media)
            references.append(reference)
            var segment = MediaPlaylist.Segment(uri: reference, durationSeconds: Double(time.duration) / Double(timescale), byteRange: nil,
                                                initSection: playlist.initSections.isEmpty ? nil : 0, followsDiscontinuity: false, line: number + 1)
            // A timeline's own times (it may have gaps), not the sum of the durations before.
            segment.startSeconds = Double(time.start - firstStart) / Double(timescale)
            playlist.segments.append(segment)
        }
        let initReference = addressing.initialization.map {
            TemplateValues(representation: representation.id, number: startNumber, time: 0, bandwidth: representation.bandwidth).fill($0)
        }
        return Listed(playlist: playlist, segmentReferences: references, initReference: initReference, hasInit: initReference != nil)
    }

    /// SegmentList: each SegmentURL (or byte range of the representation's file).
    static func list(_ addressing: MPD.Addressing, manifest url: RemoteURL) throws(RemoteError) -> Listed {
        let timescale = max(1, addressing.timescale ?? 1)
        guard let duration = addressing.duration else {
            throw RemoteError(.badManifest, url: url.redacted, reason: "a SegmentList without a duration")
        }
        var playlist = MediaPlaylist(targetDurationSeconds: nil, mediaSequence: 0, segments: [], initSections: [], ended: true, encryption: nil,
                                     playlistType: "VOD")
        let hasInit = addressing.initialization != nil || addressing.initializationRange != nil
        if hasInit { playlist.initSections = [.init(uri: "", byteRange: addressing.initializationRange)] }
        let entries = addressing.list ?? []
        for (number, entry) in entries.enumerated() {
            playlist.segments.append(.init(uri: entry.media ?? "", durationSeconds: Double(duration) / Double(timescale), byteRange: entry.range,
                                           initSection: hasInit ? 0 : nil, followsDiscontinuity: false, line: number + 1))
        }
        return Listed(playlist: playlist, segmentReferences: entries.map(\.media), initReference: addressing.initialization, hasInit: hasInit)
    }

    /// SegmentBase: the representation's one file, its `sidx` (at `indexRange`) fetched and read into subsegments.
    static func base(_ addressing: MPD.Addressing, file: RemoteURL, fetcher: HTTPFetcher) throws(RemoteError) -> Listed {
        guard let index = addressing.indexRange, index.length <= 4 << 20, index.offset > 0 || addressing.initializationRange != nil else {
            throw RemoteError(.badManifest, url: file.redacted, reason: "a SegmentBase without an indexRange (and initialisation) vtrim can read")
        }
        let answer = try fetcher.get(file, range: index.offset...index.last, maximumBytes: index.length)
        guard answer.status == 206, let sidx = SegmentIndex.parse([UInt8](answer.body), at: index.offset), !sidx.references.isEmpty else {
            throw RemoteError(.badManifest, url: file.redacted, reason: "its segment index (sidx at bytes \(index.offset)–\(index.last)) cannot be read")
        }
        let initRange = addressing.initializationRange ?? ByteRange(offset: 0, length: index.offset)
        var playlist = MediaPlaylist(targetDurationSeconds: nil, mediaSequence: 0, segments: [], initSections: [.init(uri: "", byteRange: initRange)],
                                     ended: true, encryption: nil, playlistType: "VOD")
        for (number, reference) in sidx.references.enumerated() {
            playlist.segments.append(.init(uri: "", durationSeconds: Double(reference.duration) / Double(sidx.timescale), byteRange: reference.range,
                                           initSection: 0, followsDiscontinuity: false, line: number + 1))
        }
        return Listed(playlist: playlist, segmentReferences: sidx.references.map { _ in nil }, initReference: nil, hasInit: true)
    }
}

/// `$RepresentationID$`, `$Number$`, `$Number%05d$`, `$Time$`, `$Bandwidth$` and `$$` in a template.
struct TemplateValues {
    var representation: String
    var number: Int64
    var time: Int64
    var bandwidth: Int

    func fill(_ template: String) -> String {
        var result = "", rest = Substring(template)
        while let open = rest.firstIndex(of: "$") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "$") else { return result + rest[open...] }
            let name = after[..<close]
            rest = after[after.index(after: close)...]
            if name.isEmpty { result += "$"; continue }
            let parts = name.split(separator: "%", maxSplits: 1)
            let key = parts.first.map(String.init) ?? ""
            let value: String
            switch key {
            case "RepresentationID": value = representation
            case "Number": value = Self.format(number, parts.count > 1 ? String(parts[1]) : nil)
            case "Time": value = Self.format(time, parts.count > 1 ? String(parts[1]) : nil)
            case "Bandwidth": value = Self.format(Int64(bandwidth), parts.count > 1 ? String(parts[1]) : nil)
            default: value = "$" + name + "$"
            }
            result += value
        }
        return result + rest
    }

    /// `%0Nd` (N ≤ 32), or the plain number.
    static func format(_ value: Int64, _ spec: String?) -> String {
        let plain = String(value)
        guard let spec, spec.hasSuffix("d"), spec.hasPrefix("0"), let width = Int(spec.dropFirst().dropLast()), (1...32).contains(width) else { return plain }
        return String(repeating: "0", count: max(0, width - plain.count)) + plain
    }
}
