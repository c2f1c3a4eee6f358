import CAV
import DiskNames
import Glibc

/// Decode times FFmpeg 5.1's MP4/MOV reader leaves after their presentation times. A track's composition offsets
/// (`ctts`) may be negative; the reader moves every decode time earlier by the most negative one — but counts only
/// the entries before the table's last two (`mov_read_ctts`: `i + 2 < entries`). An iPhone clip whose only negative
/// offsets are its last two entries then reads with presentation before decode, which every muxer refuses and
/// which hides frames from anything reading up to a decode time. The lead is how much further each of the track's
/// decode times must move for none to follow its presentation; presentation times stay as they are.
enum CompositionOffsets {
    /// The lead in each track's ticks, by track ID (`tkhd`; FFmpeg's `AVStream.id`), for tracks that need one.
    static func decodeLeads(path: String) -> [Int: Int64] {
        guard let moov = MovieBoxes.movieBox(path: path) else { return [:] }
        return decodeLeads(moov: moov)
    }

    static func decodeLeads(moov: [UInt8]) -> [Int: Int64] {
        func child(_ parent: MovieBoxes.Box, _ type: String) -> MovieBoxes.Box? { MovieBoxes.child(moov, of: parent, type) }
        var leads: [Int: Int64] = [:]
        for trak in MovieBoxes.boxes(in: moov, from: 8, to: moov.count) where trak.type == "trak" {
            guard let tkhd = child(trak, "tkhd"),
                  let stbl = child(trak, "mdia").flatMap({ child($0, "minf") }).flatMap({ child($0, "stbl") }),
                  let ctts = child(stbl, "ctts") else { continue }
            let id = MovieBoxes.trackID(moov, tkhd: tkhd)
            let lead = decodeLead(entries: entries(moov, ctts))
            if lead > 0 { leads[id] = lead }
        }
        return leads
    }

    /// The table's (count, offset) entries (offsets signed, as FFmpeg reads both versions), at most as many as the box holds.
    static func entries(_ moov: [UInt8], _ ctts: MovieBoxes.Box) -> [(count: Int64, offset: Int64)] {
        let count = Int(MovieBoxes.read(moov, at: ctts.start + 12, bytes: 4))
        let fits = max(0, (ctts.end - ctts.start - 16) / 8)
        return (0..<min(count, fits)).map { entry in
            let at = ctts.start + 16 + entry * 8
            return (Int64(Int32(truncatingIfNeeded: MovieBoxes.read(moov, at: at, bytes: 4))),
                    Int64(Int32(truncatingIfNeeded: MovieBoxes.read(moov, at: at + 4, bytes: 4))))
        }
    }

    /// What the reader's own shift leaves, by `mov_read_ctts`'s rules: entries with a count ≤ 0 are skipped; one
    /// before the last two beyond ±2^28 drops the whole table (no offsets, no lead); the shift counts the entries
    /// before the last two. A lead beyond 2^28 ticks is no repair but damage: none.
    static func decodeLead(entries: [(count: Int64, offset: Int64)]) -> Int64 {
        var applied: Int64 = 0, needed: Int64 = 0
        for (index, entry) in entries.enumerated() where entry.count > 0 {
            let early = index + 2 < entries.count
            if early, abs(entry.offset) > 1 << 28 { return 0 }
            if early { applied = max(applied, -entry.offset) }
            needed = max(needed, -entry.offset)
        }
        let lead = needed - applied
        return lead > 0 && lead <= 1 << 28 ? lead : 0
    }
}
