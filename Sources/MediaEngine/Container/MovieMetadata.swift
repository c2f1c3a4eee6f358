import CAV
import DiskNames
import Glibc

/// Phone and camera metadata an MP4/MOV source holds where FFmpeg's muxer cannot write it, copied byte for
/// byte into the output's `moov`:
/// - QuickTime metadata (`moov/meta` with an `mdta` handler, its `keys` and `ilst`): an iPhone's location,
///   make, model, software and creation date. FFmpeg writes such keys only with `movflags
///   use_metadata_tags`, and then into `udta/meta`, with every other tag (brands, encoder) as a key too, and
///   in place of an MP4's iTunes tags — so the source's box is copied instead, where phones write it.
/// - Camera facts in `moov/udta` (GoPro: firmware, lens, camera, settings). Not its highlight times (HMMT:
///   off the output's timeline) nor its media ids (MUID, GUMI, BCID: they would name two files as one).
public struct MovieMetadata: Sendable, Equatable, Codable {
    /// The source's `moov/meta` box, header included.
    public var quickTimeMeta: [UInt8]?
    /// The kept `moov/udta` boxes, each whole, one after another.
    public var userData: [UInt8]
    /// The QuickTime keys and the kept user-data types, for the dry run.
    public var names: [String]

    /// udta boxes that state facts about the camera, whatever part of the recording is kept.
    static let keptUserData: Set<String> = ["FIRM", "LENS", "CAME", "SETT"]
    /// More than this is not a phone's metadata.
    static let maximumBytes = 1 << 20

    /// What `path` holds, or nil (not MP4/MOV, nothing to keep, or malformed: then nothing is copied).
    static func read(path: String) -> MovieMetadata? {
        guard let moov = MovieBoxes.movieBox(path: path) else { return nil }
        let children = MovieBoxes.boxes(in: moov, from: 8, to: moov.count)
        var metadata = MovieMetadata(quickTimeMeta: nil, userData: [], names: [])
        if let meta = children.first(where: { $0.type == "meta" }), meta.end - meta.start <= maximumBytes,
           let keys = quickTimeKeys(moov, meta) {
            metadata.quickTimeMeta = Array(moov[meta.start..<meta.end])
            metadata.names = keys
        }
        if let udta = children.first(where: { $0.type == "udta" }) {
            for box in MovieBoxes.boxes(in: moov, from: udta.start + 8, to: udta.end) where keptUserData.contains(box.type) {
                guard metadata.userData.count + (box.end - box.start) <= maximumBytes else { break }
                metadata.userData += moov[box.start..<box.end]
                metadata.names.append("udta/" + box.type)
            }
        }
        return metadata.quickTimeMeta == nil && metadata.userData.isEmpty ? nil : metadata
    }

    /// The key names of a `meta` box whose handler is `mdta` and that holds `keys` and `ilst`; nil otherwise.
    /// QuickTime's `meta` has no version and flags, ISO's has: both are read.
    static func quickTimeKeys(_ bytes: [UInt8], _ meta: MovieBoxes.Box) -> [String]? {
        let flagsAbsent = MovieBoxes.read(bytes, at: meta.start + 8, bytes: 4) != 0
        let parts = MovieBoxes.boxes(in: bytes, from: meta.start + (flagsAbsent ? 8 : 12), to: meta.end)
        guard let hdlr = parts.first(where: { $0.type == "hdlr" }), hdlr.end - hdlr.start >= 20,
              String(decoding: bytes[(hdlr.start + 16)..<(hdlr.start + 20)], as: UTF8.self) == "mdta",
              let keys = parts.first(where: { $0.type == "keys" }), parts.contains(where: { $0.type == "ilst" }) else { return nil }
        let count = Int(MovieBoxes.read(bytes, at: keys.start + 12, bytes: 4))
        guard count > 0, count <= 4096 else { return nil }
        var names: [String] = []
        var position = keys.start + 16
        for _ in 0..<count {
            let size = Int(MovieBoxes.read(bytes, at: position, bytes: 4))
            guard size >= 8, size <= keys.end - position else { return nil }
            names.append(String(decoding: bytes[(position + 8)..<(position + size)], as: UTF8.self))
            position += size
        }
        return names
    }

    /// Adds the kept boxes to the written file's `moov` (the `meta` at its end, the camera boxes at the end of
    /// its `udta`, made when FFmpeg wrote none). Where `moov` comes before the media (faststart), what
    /// follows moves by the bytes added and every chunk offset (stco, co64) with it.
    func insert(into path: String) throws(AVFailure) {
        try MovieBoxes.withMovieBox(path: path) { (moov: inout [UInt8]) throws(AVFailure) in
            if !userData.isEmpty {
                if let udta = MovieBoxes.boxes(in: moov, from: 8, to: moov.count).first(where: { $0.type == "udta" }) {
                    try MovieBoxes.setSize(&moov, at: udta.start, to: udta.end - udta.start + userData.count)
                    moov.insert(contentsOf: userData, at: udta.end)
                } else {
                    moov += MovieBoxes.header(size: 8 + userData.count, type: "udta") + userData
                }
            }
            if let quickTimeMeta { moov += quickTimeMeta }
        }
    }
}
