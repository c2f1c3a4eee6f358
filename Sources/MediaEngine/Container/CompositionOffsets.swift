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
    /// The lead in each track's ticks, by track order (FFmpeg's stream index), for tracks that need one.
    static func decodeLeads(path: String) -> [Int: Int64] {
        let descriptor = DiskFile.open(path, O_RDONLY)
        guard descriptor >= 0 else { return [:] }
        defer { close(descriptor) }
        guard let found = try? MovieBoxes.findMovieBox(descriptor) else { return [:] }
        var moov = [UInt8](repeating: 0, count: found.1)
        guard pread(descriptor, &moov, found.1, off_t(found.0)) == found.1 else { return [:] }
        return decodeLeads(moov: moov)
    }

    static func decodeLeads(moov: [UInt8]) -> [Int: Int64] {
        func child(_ parent: MovieBoxes.Box, _ type: String) -> MovieBoxes.Box? {
            MovieBoxes.boxes(in: moov, from: parent.start + 8, to: parent.end).first { $0.type == type }
        }
        var leads: [Int: Int64] = [:]
        let tracks = MovieBoxes.boxes(in: moov, from: 8, to: moov.count).filter { $0.type == "trak" }
        for (index, trak) in tracks.enumerated() {
            guard let stbl = child(trak, "mdia").flatMap({ child($0, "minf") }).flatMap({ child($0, "stbl") }),
                  let ctts = child(stbl, "ctts") else { continue }
            let lead = decodeLead(offsets: offsets(moov, ctts))
            if lead > 0 { leads[index] = lead }
        }
        return leads
    }

    /// The table's offsets (signed, as FFmpeg reads both versions), at most as many as the box holds.
    static func offsets(_ moov: [UInt8], _ ctts: MovieBoxes.Box) -> [Int64] {
        let count = Int(MovieBoxes.read(moov, at: ctts.start + 12, bytes: 4))
        let fits = max(0, (ctts.end - ctts.start - 16) / 8)
        return (0..<min(count, fits)).map { entry in
            Int64(Int32(truncatingIfNeeded: MovieBoxes.read(moov, at: ctts.start + 16 + entry * 8 + 4, bytes: 4)))
        }
    }

    /// What the reader's own shift leaves: the most negative offset beyond the shift it applied.
    static func decodeLead(offsets: [Int64]) -> Int64 {
        let applied = offsets.dropLast(2).reduce(Int64(0)) { max($0, -$1) }
        let needed = offsets.reduce(Int64(0)) { max($0, -$1) }
        return max(0, needed - applied)
    }
}
