/// Which segments a range needs, from the playlist's own timeline (each segment's start and length, seconds).
/// Pure: the spool then checks the fetched media against it and asks for one more on either side where the
/// playlist's timing was not the media's (`SegmentChoice.widened`).
public enum SegmentChoice {
    /// Indices of the segments overlapping `[startSeconds, endSeconds)`; for an empty or out-of-range request the
    /// segment nearest it, so a caller always has something to read (nil only for an empty playlist).
    public static func overlapping(startsSeconds: [Double], durationsSeconds: [Double], startSeconds: Double, endSeconds: Double) -> ClosedRange<Int>? {
        let count = min(startsSeconds.count, durationsSeconds.count)
        guard count > 0 else { return nil }
        let start = startSeconds.isFinite ? startSeconds : 0, end = endSeconds.isFinite ? max(endSeconds, start) : start
        var first: Int?, last: Int?
        for index in 0..<count {
            let segmentStart = startsSeconds[index], segmentEnd = segmentStart + max(0, durationsSeconds[index])
            // A segment holds [its start, its end); an empty request still needs the segment holding its instant.
            let overlaps = segmentStart < max(end, start + 1e-9) && segmentEnd > start
            if overlaps {
                if first == nil { first = index }
                last = index
            }
        }
        if let first, let last { return first...last }
        // Before the first segment or after the last.
        return start < (startsSeconds.first ?? 0) ? 0...0 : (count - 1)...(count - 1)
    }

    /// One more segment before (`before`) and after (`after`), kept inside `0..<count`.
    public static func widened(_ chosen: ClosedRange<Int>, before: Bool, after: Bool, count: Int) -> ClosedRange<Int> {
        let lower = before ? max(0, chosen.lowerBound - 1) : chosen.lowerBound
        let upper = after ? min(count - 1, chosen.upperBound + 1) : chosen.upperBound
        return lower...max(lower, upper)
    }
}

/// `--variant`: which variant of a master playlist is read.
public enum VariantChoice: Sendable, Equatable {
    case highest
    case lowest
    /// The variant of this height (`720p`), else the tallest below it, else the shortest.
    case height(Int)
    /// The highest bandwidth at or below this many bits per second, else the lowest.
    case bandwidth(Int)

    /// `highest`, `lowest`, `720p`, or a number of bits per second.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "highest": self = .highest
        case "lowest": self = .lowest
        case let value where value.hasSuffix("p"):
            guard let height = Int(value.dropLast()), (1...65_536).contains(height) else { return nil }
            self = .height(height)
        default:
            guard let bits = Int(text), bits > 0 else { return nil }
            self = .bandwidth(bits)
        }
    }

    /// The chosen variant's index; audio-only variants only when there is nothing else.
    public func choose(_ variants: [MasterPlaylist.Variant]) -> Int? {
        let indices = variants.indices.filter { !variants[$0].isAudioOnly }
        let candidates = indices.isEmpty ? Array(variants.indices) : indices
        let byBandwidth = candidates.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        switch self {
        case .highest:
            return byBandwidth.last
        case .lowest:
            return byBandwidth.first
        case let .bandwidth(bits):
            return byBandwidth.last { variants[$0].bandwidth <= bits } ?? byBandwidth.first
        case let .height(height):
            let exact = byBandwidth.last { variants[$0].height == height }
            let below = byBandwidth.filter { (variants[$0].height ?? 0) <= height }
                .max { (variants[$0].height ?? 0, variants[$0].bandwidth) < (variants[$1].height ?? 0, variants[$1].bandwidth) }
            return exact ?? below ?? byBandwidth.min { (variants[$0].height ?? .max) < (variants[$1].height ?? .max) }
        }
    }
}
