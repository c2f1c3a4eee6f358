import CAV
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

    /// A full box's version byte (0 when the box is too short to have one).
    static func version(_ bytes: [UInt8], of box: Box) -> UInt8 {
        box.end - box.start > 8 ? UInt8(truncatingIfNeeded: read(bytes, at: box.start + 8, bytes: 1)) : 0
    }

    static func findMovieBox(_ descriptor: Int32) throws(AVFailure) -> (Int, Int)? {
        var position: off_t = 0
        var header = [UInt8](repeating: 0, count: 16)
        while pread(descriptor, &header, 16, position) >= 8 {
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
        let descriptor = open(path, O_RDONLY)
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
}
