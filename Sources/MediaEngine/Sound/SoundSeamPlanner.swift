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

    static func plan(_ facts: SoundFacts, ranges: [SoundPlan.SampleRange]) -> SoundSeams? {
        let frame = facts.fixedFrame
        guard ranges.count > 1, ranges.count == facts.edges.count, frame > 0, facts.codec == "aac", facts.lowComplexity,
              facts.container == .mp4, !facts.adts, facts.encoders.contains("aac"),
              let first = ranges.first, let edges = facts.edges.first,
              let holding = edges.head.lastIndex(where: { $0.start <= first.start }), holding >= 1 else { return nil }
        let preroll = edges.head[holding - 1]
        let prerollSamples = first.start.minus(preroll.start)
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
            pieces.append(.copy(SoundSeams.CopySpan(range: index, outputStart: copyFrom, outputEnd: copyTo,
                                                    firstSourcePts: 0, toSource: toSource)))
            guard !isLast else { break }
            let windowEnd = gridCeil(starts[index + 1].plus(crossfadeSamples / 2), residue: residue, frame: frame)
            pieces.append(.encode(SoundSeams.Window(outputStart: copyTo, outputEnd: windowEnd, seam: index + 1)))
            copyFrom = windowEnd
        }
        guard let lastRange = ranges.last, let lastStart = starts.last else { return nil }
        let end = lastStart.plus(lastRange.count)
        guard case let .copy(lastCopy)? = pieces.last else { return nil }
        return SoundSeams(encoder: "aac", bitRate: (32000...512_000).contains(facts.bitRate) ? facts.bitRate : 0, frame: frame,
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
    }

    /// `[outputStart, outputEnd)` encoded again around seam `seam` (the start of range `seam`, 0-based).
    public struct Window: Sendable, Equatable, Codable {
        public var outputStart: Int64
        public var outputEnd: Int64
        public var seam: Int
        /// The copied frame after the window decodes overlapped with the window's last: not the source's samples either.
        public func affectedEnd(frame: Int64) -> Int64 { outputEnd.plus(frame) }
    }
}
