import CAV
import DiskNames
import Glibc

/// Reading an MP4/MOV's box structure: the top-level `moov` and the boxes inside it. Pure byte work on
/// what the file holds; used to end edit lists (`MovieHeaderPatch`) and to read them back (`CutVerifier`).
enum MovieBoxes {
    struct Box {
        let type: String
        let start: Int
        let end: Int
    }

    /// The boxes between `from` and `to`; stops at the first malformed size.
    static func boxes(in bytes: [UInt8], from: Int, to: Int) -> [Box] {
        var found: [Box] = []
        var position = from
        while position + 8 <= to {
            var size = Int(read(bytes, at: position, bytes: 4))
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            if size == 1, position + 16 <= to { size = Int(clamping: read(bytes, at: position + 8, bytes: 8)) }
            if size == 0 { size = to - position }
            guard size >= 8, size <= to - position else { break }
            found.append(Box(type: type, start: position, end: position + size))
            position += size
        }
        return found
    }

    /// The top-level box types an MP4/MOV may open with (ISO/IEC 14496-12 and QuickTime).
    static let openingBoxes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "junk", "styp", "sidx", "moof", "pdin", "meta"]

    /// Whether the file at `path` opens with an MP4/MOV box: a size of at least 8 (or 0, 1) and a known type.
    static func startsWithBox(path: String) -> Bool {
        guard let reader = InputReader.open(path) else { return false }
        defer { reader.close() }
        let header = reader.read(count: 8, at: 0)
        guard header.count == 8 else { return false }
        let size = read(header, at: 0, bytes: 4)
        return (size == 0 || size == 1 || size >= 8) && openingBoxes.contains(String(decoding: header[4..<8], as: UTF8.self))
    }

    /// A full box's version byte (0 when the box is too short to have one).
    static func version(_ bytes: [UInt8], of box: Box) -> UInt8 {
        box.end - box.start > 8 ? UInt8(truncatingIfNeeded: read(bytes, at: box.start + 8, bytes: 1)) : 0
    }

    static func findMovieBox(_ descriptor: Int32) throws(AVFailure) -> (Int, Int)? {
        try findMovieBox(readingWith: { count, offset in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = pread(descriptor, &bytes, count, off_t(offset))
            return read > 0 ? Array(bytes.prefix(read)) : []
        })
    }

    /// The input's `moov` box (a local file, a URL's spool or its registered source), or nil.
    static func movieBox(path: String) -> [UInt8]? {
        guard let reader = InputReader.open(path) else { return nil }
        defer { reader.close() }
        guard let found = try? findMovieBox(readingWith: { reader.read(count: $0, at: $1) }) else { return nil }
        let moov = reader.read(count: found.1, at: Int64(found.0))
        return moov.count == found.1 ? moov : nil
    }

    /// Walks the top-level boxes (`read(count, offset)` gives at most `count` bytes there) to `moov`: its offset and size.
    static func findMovieBox(readingWith readBytes: (Int, Int64) -> [UInt8]) throws(AVFailure) -> (Int, Int)? {
        var position: off_t = 0
        var header = [UInt8](repeating: 0, count: 16)
        while case let got = readBytes(16, Int64(position)), got.count >= 8 {
            header = got + [UInt8](repeating: 0, count: 16 - got.count)
            var size = Int64(read(header, at: 0, bytes: 4))
            if size == 1 { size = Int64(clamping: read(header, at: 8, bytes: 8)) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard size >= 8 else { return nil }
            if type == "moov" {
                guard size < 64 << 20 else { throw MovieHeaderPatch.failure(EFBIG, "moov box too large") }
                return (Int(position), Int(size))
            }
            // A size running past the file (or past Int64) ends the walk rather than trapping.
            let next = Int64(position).plus(size)
            guard next > Int64(position), next < Int64.max / 2 else { return nil }
            position = off_t(next)
        }
        return nil
    }

    /// The big-endian number at `offset`, or 0 where the bytes are not all there.
    static func read(_ bytes: [UInt8], at offset: Int, bytes count: Int) -> UInt64 {
        guard offset >= 0, count >= 0, count <= bytes.count, offset <= bytes.count - count else { return 0 }
        return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The presented length of each track (tkhd: the sum of its edits) in seconds, by track ID.
    static func trackLengths(path: String) -> [Int: Double] {
        let descriptor = DiskFile.open(path, O_RDONLY)
        guard descriptor >= 0 else { return [:] }
        defer { close(descriptor) }
        guard let found = try? findMovieBox(descriptor) else { return [:] }
        let (offset, size) = found
        var moov = [UInt8](repeating: 0, count: size)
        guard pread(descriptor, &moov, size, off_t(offset)) == size else { return [:] }
        let children = boxes(in: moov, from: 8, to: moov.count)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { return [:] }
        let mvhdVersion = version(moov, of: mvhd)
        let scale = Double(read(moov, at: mvhd.start + (mvhdVersion == 1 ? 28 : 20), bytes: 4))
        guard scale > 0 else { return [:] }
        var lengths: [Int: Double] = [:]
        for trak in children where trak.type == "trak" {
            guard let tkhd = boxes(in: moov, from: trak.start + 8, to: trak.end).first(where: { $0.type == "tkhd" }) else { continue }
            let tkhdVersion = version(moov, of: tkhd)
            let id = Int(read(moov, at: tkhd.start + (tkhdVersion == 1 ? 28 : 20), bytes: 4))
            let duration = read(moov, at: tkhd.start + (tkhdVersion == 1 ? 36 : 28), bytes: tkhdVersion == 1 ? 8 : 4)
            lengths[id] = Double(duration) / scale
        }
        return lengths
    }

    /// A `tkhd` box's track ID (version 0 or 1).
    static func trackID(_ bytes: [UInt8], tkhd: Box) -> Int {
        Int(read(bytes, at: tkhd.start + (version(bytes, of: tkhd) == 1 ? 28 : 20), bytes: 4))
    }

    /// The first child of `parent` of `type` (children start `header` bytes in: 8, or more for full boxes and entries).
    static func child(_ bytes: [UInt8], of parent: Box, _ type: String, header: Int = 8) -> Box? {
        guard parent.end - parent.start >= header else { return nil }
        return boxes(in: bytes, from: parent.start + header, to: parent.end).first { $0.type == type }
    }

    /// The four characters at `offset` (a box's type), or "" where the bytes are not all there.
    static func fourCC(_ bytes: [UInt8], at offset: Int) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
    }

    static func header(size: Int, type: String) -> [UInt8] {
        [UInt8(truncatingIfNeeded: size >> 24), UInt8(truncatingIfNeeded: size >> 16), UInt8(truncatingIfNeeded: size >> 8),
         UInt8(truncatingIfNeeded: size)] + Array(type.utf8)
    }

    /// Sets the 32-bit size of the box at `position`.
    static func setSize(_ bytes: inout [UInt8], at position: Int, to size: Int) throws(AVFailure) {
        guard size >= 8, size <= Int(UInt32.max), position >= 0, position + 4 <= bytes.count, read(bytes, at: position, bytes: 4) != 1 else {
            throw MovieHeaderPatch.failure(EFBIG, "box too large")
        }
        bytes.replaceSubrange(position..<(position + 4), with: header(size: size, type: "").prefix(4))
    }

    /// Reads a written file's `moov` (32-bit sized), lets `change` edit it in memory and writes it back in place,
    /// grown or shrunk (`rewriteMovieBox`); unchanged, nothing is written.
    static func withMovieBox(path: String, _ change: (inout [UInt8]) throws(AVFailure) -> Void) throws(AVFailure) {
        let descriptor = DiskFile.open(path, O_RDWR)
        guard descriptor >= 0 else { throw MovieHeaderPatch.failure(errno) }
        defer { close(descriptor) }
        guard let (offset, size) = try findMovieBox(descriptor) else { throw MovieHeaderPatch.failure(EINVAL, "no moov box") }
        var moov = [UInt8](repeating: 0, count: size)
        guard pread(descriptor, &moov, size, off_t(offset)) == size else { throw MovieHeaderPatch.failure(errno) }
        guard read(moov, at: 0, bytes: 4) == UInt64(size) else { throw MovieHeaderPatch.failure(EINVAL, "64-bit moov size") }
        let original = moov
        try change(&moov)
        guard moov != original else { return }
        if moov.count == size {
            guard pwrite(descriptor, moov, size, off_t(offset)) == size else { throw MovieHeaderPatch.failure(errno) }
        } else {
            try rewriteMovieBox(descriptor, at: offset, oldSize: size, moov)
        }
    }

    /// Writes a changed `moov` (its own size not yet set) over the one of `oldSize` bytes at `offset`. One that
    /// shrank is padded with a `free` box; where one that grew has media after it (faststart), the media moves
    /// later by the bytes added and every chunk offset (stco, co64) with it.
    static func rewriteMovieBox(_ descriptor: Int32, at offset: Int, oldSize: Int, _ moov: [UInt8]) throws(AVFailure) {
        var updated = moov
        let shortBy = oldSize - updated.count
        if shortBy > 0 {
            let pad = max(8, shortBy)
            updated += header(size: pad, type: "free") + [UInt8](repeating: 0, count: pad - 8)
        }
        try setSize(&updated, at: 0, to: updated.count)
        let added = updated.count - oldSize
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw MovieHeaderPatch.failure(errno) }
        let fileSize = Int(status.st_size), moovEnd = offset + oldSize
        if added > 0, moovEnd < fileSize {
            try moveChunkOffsets(&updated, by: added, past: offset)
            try shiftTail(descriptor, from: moovEnd, to: fileSize, by: added)
        }
        guard pwrite(descriptor, updated, updated.count, off_t(offset)) == updated.count else { throw MovieHeaderPatch.failure(errno) }
    }

    /// Adds `delta` to every chunk offset beyond `position` (the media after a moved `moov`).
    private static func moveChunkOffsets(_ moov: inout [UInt8], by delta: Int, past position: Int) throws(AVFailure) {
        func visit(_ from: Int, _ to: Int) throws(AVFailure) {
            for box in boxes(in: moov, from: from, to: to) {
                switch box.type {
                case "trak", "mdia", "minf", "stbl":
                    try visit(box.start + 8, box.end)
                case "stco", "co64":
                    let width = box.type == "stco" ? 4 : 8
                    let count = Int(read(moov, at: box.start + 12, bytes: 4))
                    guard count <= (box.end - box.start - 16) / width else { throw MovieHeaderPatch.failure(EINVAL, "chunk offsets past their box") }
                    for index in 0..<count {
                        let at = box.start + 16 + index * width
                        let value = read(moov, at: at, bytes: width)
                        guard value > UInt64(position) else { continue }
                        let moved = value + UInt64(delta)
                        guard width == 8 || moved <= UInt64(UInt32.max) else { throw MovieHeaderPatch.failure(EFBIG, "chunk offset past 4 GiB") }
                        for byte in 0..<width { moov[at + byte] = UInt8(truncatingIfNeeded: moved >> (8 * UInt64(width - 1 - byte))) }
                    }
                default:
                    continue
                }
            }
        }
        try visit(8, moov.count)
    }

    /// Moves the bytes `[from, to)` of the file later by `delta`, from the end backwards so nothing is
    /// overwritten before it is read.
    private static func shiftTail(_ descriptor: Int32, from: Int, to: Int, by delta: Int) throws(AVFailure) {
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        var end = to
        while end > from {
            let start = max(from, end - chunk), count = end - start
            guard pread(descriptor, &buffer, count, off_t(start)) == count,
                  pwrite(descriptor, buffer, count, off_t(start + delta)) == count else { throw MovieHeaderPatch.failure(errno) }
            end = start
        }
    }
}
