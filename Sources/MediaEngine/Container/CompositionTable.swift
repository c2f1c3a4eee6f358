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
        let tracks = MovieBoxes.boxes(in: moov, from: 8, to: moov.count).filter { trak in
            trak.type == "trak" && child(trak, "tkhd").map { MovieBoxes.trackID(moov, tkhd: $0) } == trackID
        }
        // Where FFmpeg and this reading could take different boxes (two tracks of one ID, two tables in one track), or
        // FFmpeg reads entries past the box's end: none.
        guard tracks.count == 1, let trak = tracks.first,
              let stbl = child(trak, "mdia").flatMap({ child($0, "minf") }).flatMap({ child($0, "stbl") }) else { return nil }
        let tables = MovieBoxes.boxes(in: moov, from: stbl.start + 8, to: stbl.end)
        guard tables.filter({ $0.type == "stsz" || $0.type == "stz2" }).count == 1, tables.filter({ $0.type == "ctts" }).count <= 1,
              let sizes = tables.first(where: { $0.type == "stsz" || $0.type == "stz2" }), sizes.end - sizes.start >= 20 else { return nil }
        // stsz and stz2 both hold the sample count 16 bytes in.
        let count = Int(MovieBoxes.read(moov, at: sizes.start + 16, bytes: 4))
        var entries: [(count: Int64, offset: Int64)] = []
        if let ctts = tables.first(where: { $0.type == "ctts" }) {
            let declared = Int(MovieBoxes.read(moov, at: ctts.start + 12, bytes: 4))
            guard declared <= max(0, (ctts.end - ctts.start - 16) / 8) else { return nil }
            entries = CompositionOffsets.entries(moov, ctts)
        }
        return CompositionTable(sampleCount: count, entries: entries)
    }
}
