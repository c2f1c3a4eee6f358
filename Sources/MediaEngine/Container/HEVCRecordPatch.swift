import CAV
import DiskNames
import Glibc

/// Marks the VPS, SPS and PPS arrays of every `hvc1` sample entry's hvcC record complete
/// (array_completeness = 1), as ISO/IEC 14496-15 requires of `hvc1`: every parameter set is in the record.
/// FFmpeg 5.1's muxer writes 0 in every array of the records it builds from an encoder's extradata (exact
/// cuts). Done in place on the finished file — one bit per array, nothing moves; SEI arrays stay as they are.
enum HEVCRecordPatch {
    static func markArraysComplete(path: String) throws(AVFailure) {
        let descriptor = DiskFile.open(path, O_RDWR)
        guard descriptor >= 0 else { throw MovieHeaderPatch.failure(errno) }
        defer { close(descriptor) }
        guard let (offset, size) = try MovieBoxes.findMovieBox(descriptor) else { return }
        var bytes = [UInt8](repeating: 0, count: size)
        guard pread(descriptor, &bytes, size, off_t(offset)) == size else { throw MovieHeaderPatch.failure(errno) }
        guard patch(&bytes) > 0 else { return }
        guard pwrite(descriptor, bytes, size, off_t(offset)) == size else { throw MovieHeaderPatch.failure(errno) }
    }

    /// Patches a `moov` box held in memory (header included); returns how many arrays changed.
    static func patch(_ moov: inout [UInt8]) -> Int {
        var changed = 0
        for record in hvcCRecords(moov) {
            changed += markComplete(&moov, recordStart: record.lowerBound, recordEnd: record.upperBound)
        }
        return changed
    }

    /// Where each `hvc1` entry's hvcC payload lies in `moov`.
    static func hvcCRecords(_ moov: [UInt8]) -> [Range<Int>] {
        func children(_ box: MovieBoxes.Box, skipping header: Int = 8) -> [MovieBoxes.Box] {
            guard box.end - box.start >= header else { return [] }
            return MovieBoxes.boxes(in: moov, from: box.start + header, to: box.end)
        }
        func path(_ from: [MovieBoxes.Box], _ types: [String]) -> [MovieBoxes.Box] {
            var level = from
            for type in types { level = level.filter { $0.type == type }.flatMap { children($0) } }
            return level
        }
        var records: [Range<Int>] = []
        let tracks = MovieBoxes.boxes(in: moov, from: 8, to: moov.count).filter { $0.type == "trak" }
        let tables = path(tracks.flatMap { children($0) }, ["mdia", "minf", "stbl"])
        for stsd in tables where stsd.type == "stsd" {
            // A full box (version, flags), the entry count, then the entries.
            for entry in children(stsd, skipping: 16) where entry.type == "hvc1" {
                // A visual sample entry's fields take 78 bytes before its child boxes.
                for box in children(entry, skipping: 8 + 78) where box.type == "hvcC" {
                    records.append((box.start + 8)..<box.end)
                }
            }
        }
        return records
    }

    /// Sets array_completeness on the VPS (32), SPS (33) and PPS (34) arrays of one record; stops at the
    /// first length that runs past it.
    static func markComplete(_ bytes: inout [UInt8], recordStart: Int, recordEnd: Int) -> Int {
        guard recordEnd - recordStart >= 23, bytes[recordStart] == 1 else { return 0 }
        var changed = 0
        var offset = recordStart + 23
        for _ in 0..<Int(bytes[recordStart + 22]) {
            guard recordEnd - offset >= 3 else { break }
            let type = Int(bytes[offset] & 0x3f)
            if (32...34).contains(type), bytes[offset] & 0x80 == 0 {
                bytes[offset] |= 0x80
                changed += 1
            }
            let count = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            for _ in 0..<count {
                guard recordEnd - offset >= 2 else { return changed }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard recordEnd - offset - 2 >= length else { return changed }
                offset += 2 + length
            }
        }
        return changed
    }
}
