/// A join of AAC-LC ranges into MP4 with only the samples next to each seam encoded again (pure): every other frame
/// is the source's, copied. AAC frames decode on one grid of 1024 samples, so range k+1's frames can follow range k's
/// only where its own grid meets the output's: each seam moves by less than half a frame (`shift`, the join's length
/// changing by as much), and a window of two or three frames around it is decoded, crossfaded and encoded again. A
/// copied frame decodes into the half of the frame next to it that it overlaps, so the window's first frame starts a
/// whole frame before the crossfade (their overlap holds one signal, whose aliasing cancels), and the decoded output
/// differs from the source's over the window and the frame after it (`Window.affectedEnd`).
/// Ranges too short to keep a frame of their own between two windows are joined by encoding everything again.
enum SoundSeamPlanner {
    /// The crossfade at each seam (samples): short enough to stay inside a pause's pad, long enough to leave no click.
    static let crossfadeSamples: Int64 = 256

    /// The codecs whose joins keep their frames: AAC-LC into MP4 (an edit list hides the first frame) and MP3 into MP3
    /// (the LAME tag hides three). The encoder, and the frames decoded before the first range.
    static func coding(_ facts: SoundFacts) -> (encoder: String, preroll: Int)? {
        switch (facts.codec, facts.container) {
        case ("aac", .mp4) where facts.lowComplexity && !facts.adts: ("aac", 1)
        case ("mp3", .mp3): ("libmp3lame", 3)
        default: nil
        }
    }

    static func plan(_ facts: SoundFacts, ranges: [SoundPlan.SampleRange]) -> SoundSeams? {
        let frame = facts.fixedFrame
        guard ranges.count > 1, ranges.count == facts.edges.count, frame > 0, let coding = coding(facts), facts.encoders.contains(coding.encoder),
              let first = ranges.first, let edges = facts.edges.first,
              let holding = edges.head.lastIndex(where: { $0.start <= first.start }),
              holding >= coding.preroll || edges.headFromFirst else { return nil }
        // Near the stream's start the preroll is what lies before (decoded as the source's own decode is).
        let preroll = edges.head[max(0, holding - coding.preroll)]
        let prerollSamples = first.start.minus(preroll.start)
        // MP3: the LAME tag's 12-bit delay, beyond the decoder's own.
        if facts.codec == "mp3", prerollSamples < SoundPlanner.mp3DecoderDelay
            || prerollSamples.minus(SoundPlanner.mp3DecoderDelay) > SoundPlanner.lameFieldLimit { return nil }
        // The output's grid: where its frames start (output samples, the first shown sample at 0), as a residue.
        let residue = modulo(0 - prerollSamples, frame)
        var starts: [Int64] = [0]
        var shifts: [Int64] = []
        for index in 1..<ranges.count {
            let range = ranges[index]
            guard let holding = facts.edges[index].head.last(where: { $0.start <= range.start }) else { return nil }
            let ideal = starts[index - 1].plus(ranges[index - 1].count)
            // Where this range's frames land when it starts at `ideal`, against the output's grid: moved onto it.
            let shift = centered(modulo(residue.minus(holding.start).plus(range.start).minus(ideal), frame), frame)
            starts.append(ideal.plus(shift))
            shifts.append(shift)
        }
        var pieces: [SoundSeams.Piece] = []
        var copyFrom = 0 - prerollSamples
        for index in ranges.indices {
            let toSource = ranges[index].start.minus(starts[index])
            let isLast = index == ranges.count - 1
            var copyTo: Int64
            if isLast {
                guard let tail = facts.edges[index].tail.first(where: { $0.end >= ranges[index].end }) else { return nil }
                copyTo = tail.start.minus(toSource).plus(frame)
            } else {
                // The last copied frame's second half overlaps the window's first frame: the crossfade must start after it,
                // or their aliasing (from different signals) does not cancel.
                copyTo = gridFloor(starts[index + 1].minus(crossfadeSamples / 2), residue: residue, frame: frame).minus(frame)
            }
            // A range must keep at least one frame of its own.
            guard copyTo.minus(copyFrom) >= frame else { return nil }
            // Where its first packet lies (MP3 is entered by byte), and the frames before it that hold its bit reservoir.
            let head = facts.edges[index].head
            guard let firstIndex = head.firstIndex(where: { $0.start == copyFrom.plus(toSource) }) else { return nil }
            var span = SoundSeams.CopySpan(range: index, outputStart: copyFrom, outputEnd: copyTo, firstSourcePts: head[firstIndex].pts,
                                           toSource: toSource)
            span.firstPosition = head[firstIndex].position
            let reservoir = head[max(0, firstIndex - 4)]
            span.reservoirFrom = SoundSeams.Entry(pts: reservoir.pts, position: reservoir.position)
            pieces.append(.copy(span))
            guard !isLast else { break }
            let windowEnd = gridCeil(starts[index + 1].plus(crossfadeSamples / 2), residue: residue, frame: frame)
            var window = SoundSeams.Window(outputStart: copyTo, outputEnd: windowEnd, seam: index + 1)
            // Where decoding starts for each side of the window: at least 16 frames before what it needs.
            let beforeFrom = copyTo.minus(frame.times(8)).plus(toSource)
            let afterFrom = ranges[index + 1].start.minus(frame.times(16))
            window.beforeDecode = facts.edges[index].tail.last(where: { $0.start <= beforeFrom }).map { SoundSeams.Entry(pts: $0.pts, position: $0.position) }
            window.afterDecode = facts.edges[index + 1].head.last(where: { $0.start <= afterFrom }).map { SoundSeams.Entry(pts: $0.pts, position: $0.position) }
            pieces.append(.encode(window))
            copyFrom = windowEnd
        }
        guard let lastRange = ranges.last, let lastStart = starts.last else { return nil }
        let end = lastStart.plus(lastRange.count)
        guard case let .copy(lastCopy)? = pieces.last else { return nil }
        // MP3 windows at most 160 kb/s: with the reservoir off, a window's last frame plus the 511 reservoir bytes the
        // copied frame after it may reach back for fit one 320 kb/s frame (`MP3Frame.repack`).
        let bitRate = (32000...512_000).contains(facts.bitRate) ? (facts.codec == "mp3" ? min(facts.bitRate, 160_000) : facts.bitRate) : 0
        return SoundSeams(encoder: coding.encoder, bitRate: bitRate, frame: frame,
                          outputStarts: starts, shifts: shifts, pieces: pieces, prerollSamples: prerollSamples,
                          endSamples: end, paddingSamples: lastCopy.outputEnd.minus(end), crossfadeSamples: crossfadeSamples)
    }

    static func modulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }

    /// A residue in (−divisor/2, divisor/2].
    static func centered(_ residue: Int64, _ divisor: Int64) -> Int64 { residue > divisor / 2 ? residue - divisor : residue }

    static func gridFloor(_ value: Int64, residue: Int64, frame: Int64) -> Int64 { value.minus(modulo(value.minus(residue), frame)) }

    static func gridCeil(_ value: Int64, residue: Int64, frame: Int64) -> Int64 {
        let below = gridFloor(value, residue: residue, frame: frame)
        return below == value ? value : below.plus(frame)
    }
}

/// A join with only its seams encoded again (`SoundSeamPlanner`): in output order, spans of a range's packets copied
/// and windows encoded again, on the output's timeline (samples; the first shown sample at 0, the preroll before it).
public struct SoundSeams: Sendable, Equatable, Codable {
    public var encoder: String
    public var bitRate: Int64
    public var frame: Int64
    /// Where each range begins on the output, after its seam's shift.
    public var outputStarts: [Int64]
    /// Each seam's shift (samples): the range after it starts this much later (earlier, negative) than back to back.
    public var shifts: [Int64]
    public var pieces: [Piece]
    /// Before the first shown sample (the edit list hides it), and after the last.
    public var prerollSamples: Int64
    public var endSamples: Int64
    public var paddingSamples: Int64
    public var crossfadeSamples: Int64

    public enum Piece: Sendable, Equatable, Codable {
        case copy(CopySpan)
        case encode(Window)
    }

    /// Range `range`'s packets whose samples land on `[outputStart, outputEnd)`: output sample t is source sample
    /// t + `toSource`.
    public struct CopySpan: Sendable, Equatable, Codable {
        public var range: Int
        public var outputStart: Int64
        public var outputEnd: Int64
        public var firstSourcePts: Int64
        public var toSource: Int64
        /// The first packet's byte position (MP3 is entered by byte: it holds no timestamps); -1 when unknown.
        public var firstPosition: Int64 = -1
        /// A few frames before the first, whose main data the first may reach back into (MP3's bit reservoir).
        public var reservoirFrom: Entry?
    }

    /// A packet to start reading at: its timestamp (source ticks) and byte position.
    public struct Entry: Sendable, Equatable, Codable {
        public var pts: Int64
        public var position: Int64
    }

    /// `[outputStart, outputEnd)` encoded again around seam `seam` (the start of range `seam`, 0-based).
    public struct Window: Sendable, Equatable, Codable {
        public var outputStart: Int64
        public var outputEnd: Int64
        public var seam: Int
        /// Where decoding starts for the range before the seam and the range after it.
        public var beforeDecode: Entry?
        public var afterDecode: Entry?
        /// The copied frame after the window decodes overlapped with the window's last: not the source's samples either.
        public func affectedEnd(frame: Int64) -> Int64 { outputEnd.plus(frame) }
    }
}
