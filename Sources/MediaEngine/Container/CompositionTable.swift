/// One MP4 track's composition offsets (`ctts`) by sample number: a keyframe's presentation time told from its decode
/// time without reading it (a URL's fast thumbnail would fetch the next keyframe only to learn when it is shown). Only
/// a table FFmpeg 5.1 reads as it stands: an entry it skips (a count ≤ 0) or a table it drops (an offset beyond
/// ±2^28) gives none, and the caller reads the packet instead. Pure.
struct CompositionTable: Equatable {
    let sampleCount: Int
    /// Each run's first sample number past it (ascending) and its offset.
    private let runEnds: [Int]
    private let offsets: [Int64]

    init?(sampleCount: Int, entries: [(count: Int64, offset: Int64)]) {
        guard sampleCount > 0 else { return nil }
        var ends: [Int] = [], offsets: [Int64] = []
        var total = 0
        for entry in entries {
            guard entry.count > 0, entry.count <= Int64(sampleCount), (-(1 << 28)...(1 << 28)).contains(entry.offset) else { return nil }
            total += Int(entry.count)
            guard total <= sampleCount else { return nil }
            ends.append(total)
            offsets.append(entry.offset)
        }
        // No table: every sample is shown when it is decoded. Otherwise it must cover the track's samples exactly.
        guard entries.isEmpty || total == sampleCount else { return nil }
        self.sampleCount = sampleCount
        runEnds = ends
        self.offsets = offsets
    }

    /// Sample `number`'s offset (0 with no table), nil past the track's samples.
    func offset(sample number: Int) -> Int64? {
        guard number >= 0, number < sampleCount else { return nil }
        guard !runEnds.isEmpty else { return 0 }
        var low = 0, high = runEnds.count - 1
        while low < high {
            let middle = (low + high) / 2
            if runEnds[middle] > number { high = middle } else { low = middle + 1 }
        }
        return offsets[low]
    }

    /// The table of the track `trackID` (`tkhd`; FFmpeg's `AVStream.id`) in `moov`.
    static func read(moov: [UInt8], trackID: Int) -> CompositionTable? {
        func child(_ parent: MovieBoxes.Box, _ type: String) -> MovieBoxes.Box? { MovieBoxes.child(moov, of: parent, type) }
        for trak in MovieBoxes.boxes(in: moov, from: 8, to: moov.count) where trak.type == "trak" {
            guard let tkhd = child(trak, "tkhd"), MovieBoxes.trackID(moov, tkhd: tkhd) == trackID else { continue }
            guard let stbl = child(trak, "mdia").flatMap({ child($0, "minf") }).flatMap({ child($0, "stbl") }) else { return nil }
            let count: UInt64
            if let stsz = child(stbl, "stsz"), stsz.end - stsz.start >= 20 {
                count = MovieBoxes.read(moov, at: stsz.start + 16, bytes: 4)
            } else if let stz2 = child(stbl, "stz2"), stz2.end - stz2.start >= 20 {
                count = MovieBoxes.read(moov, at: stz2.start + 16, bytes: 4)
            } else {
                return nil
            }
            let entries = child(stbl, "ctts").map { CompositionOffsets.entries(moov, $0) } ?? []
            return CompositionTable(sampleCount: Int(count), entries: entries)
        }
        return nil
    }
}
