/// Where an MP4's `moov` ends, learnt from the top-level boxes' headers as the bytes arrive: a read-ahead run stops
/// there, so reading a 7.8 MB `moov` does not fetch 138 KB of `mdat` past it (the reads after it jump to keyframes).
/// Only the `moov`: a fragmented file's reads run on from box to box, and stopping each run at each would only
/// multiply the requests. Not an MP4
/// (its first box is not one an MP4 opens with), or a header that cannot be one: nothing is learnt, and runs are
/// only bounded by their size. Pure.
struct TopLevelBoxes {
    let fileSize: Int64
    /// Where each `moov` ends, ascending.
    private(set) var ends: [Int64] = []
    /// The offset of the next header to read; nil once the walk stopped.
    private var nextHeader: Int64? = 0

    /// As MovieBoxes.openingBoxes (MediaEngine) lists them.
    static let openingTypes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "junk", "styp", "sidx", "moof", "pdin", "meta"]

    init(fileSize: Int64) {
        self.fileSize = fileSize
    }

    /// Reads the headers that `bytes(offset, count)` can give, from where the walk stands.
    mutating func learn(_ bytes: (Int64, Int) -> [UInt8]?) {
        while let offset = nextHeader, offset < fileSize, let header = bytes(offset, 8), header.count == 8 {
            let type = String(decoding: header[4..<8], as: UTF8.self)
            let printable = header[4..<8].allSatisfy { (0x20...0x7E).contains($0) || $0 == 0xA9 }
            guard printable, offset > 0 || Self.openingTypes.contains(type) else {
                nextHeader = nil
                return
            }
            var size = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            if size == 1 {
                guard let wide = bytes(offset + 8, 8), wide.count == 8 else { return }
                size = wide.reduce(Int64(0)) { value, byte in value > Int64.max >> 8 ? -1 : value << 8 | Int64(byte) }
                guard size >= 16 else {
                    nextHeader = nil
                    return
                }
            }
            // 0 (the last box, to the file's end) ends the walk: nothing follows it; smaller than a header, or past the end: not a box.
            guard size >= 8, size <= fileSize - offset else {
                nextHeader = nil
                return
            }
            if type == "moov" { ends.append(offset + size) }
            nextHeader = offset + size
        }
    }

    /// The first known `moov` end after `position`.
    func end(after position: Int64) -> Int64? { ends.first { $0 > position } }
}
