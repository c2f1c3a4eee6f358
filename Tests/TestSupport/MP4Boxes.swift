import Foundation

/// A small MP4/MOV reader for structural checks of what vtrim writes: the video track's sample entries,
/// the parameter sets their avcC/hvcC records hold, and the NAL unit types inside every sample
/// (located through stsz, stsc and stco/co64). Non-fragmented files only.
public struct MP4VideoTrack: Sendable {
    public struct Entry: Sendable {
        /// `avc1`, `avc3`, `hvc1`, `hev1`, …
        public var type: String
        /// NAL unit types of the parameter sets in the record (H.264: 7 SPS, 8 PPS; HEVC: 32 VPS, 33 SPS, 34 PPS).
        public var recordNALTypes: [Int]
        /// The record's parameter-set NAL units.
        public var recordUnits: [[UInt8]]
        /// The record's profile (H.264 AVCProfileIndication; HEVC general_profile_idc), tier (HEVC) and level.
        public var recordProfile: (profile: Int, tier: Int, level: Int)
        public var lengthSize: Int
        /// hvcC: each array's NAL unit type and its array_completeness bit.
        public var arrayCompleteness: [(type: Int, complete: Bool)] = []
        /// The types of the entry's child boxes (hvcC, colr, dvvC, …), in order.
        public var childTypes: [String] = []
    }

    public var entries: [Entry]
    /// For each sample (in order): the 1-based sample description index `stsc` gives it.
    public var sampleEntryIndices: [Int]
    /// For each sample: the NAL unit types it holds.
    public var sampleNALTypes: [[Int]]
    /// For each sample: the PPS id of each slice in it (nil where a slice header cannot be read).
    public var sampleSlicePPSIds: [[Int?]]
    /// The track's edit list: (segment duration in movie ticks, media time in media ticks) per entry.
    public var edits: [(duration: Int, mediaTime: Int)] = []
    /// Each sample's Dolby Vision RPU: HEVC's last NAL unit of type 62, H.264's of type 28 (header included), AV1's
    /// ITU-T T.35 metadata OBU with Dolby's codes (the whole OBU); nil where it has none.
    public var sampleRPUs: [[UInt8]?] = []
    /// The `stts` runs: (sample count, duration in media ticks).
    public var timeToSample: [(count: Int, delta: Int)] = []
    /// `mdhd`'s timescale and duration.
    public var mediaTimescale = 0, mediaDuration = 0

    public var isHEVC: Bool { entries.first.map { ["hvc1", "hev1"].contains($0.type) } ?? false }

    /// Parameter-set NAL types of this codec.
    public var parameterSetTypes: Set<Int> { isHEVC ? [32, 33, 34] : [7, 8] }

    public static func read(_ path: String) throws -> MP4VideoTrack {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let moov = MP4Box.children(data, 0..<data.count).first(where: { $0.type == "moov" }) else { throw MP4Error("no moov") }
        for trak in MP4Box.children(data, moov.body) where trak.type == "trak" {
            guard let mdia = MP4Box.child(data, trak, "mdia"), let hdlr = MP4Box.child(data, mdia, "hdlr"),
                  hdlr.body.count >= 12, String(decoding: data[(hdlr.body.lowerBound + 8)..<(hdlr.body.lowerBound + 12)], as: UTF8.self) == "vide",
                  let minf = MP4Box.child(data, mdia, "minf"), let stbl = MP4Box.child(data, minf, "stbl") else { continue }
            var found = try track(data, stbl)
            if let stts = MP4Box.child(data, stbl, "stts") {
                let count = MP4Box.u32(data, stts.body.lowerBound + 4)
                found.timeToSample = (0..<min(count, max(0, stts.body.count - 8) / 8)).map { index in
                    (MP4Box.u32(data, stts.body.lowerBound + 8 + 8 * index), MP4Box.u32(data, stts.body.lowerBound + 12 + 8 * index))
                }
            }
            if let mdhd = MP4Box.child(data, mdia, "mdhd") {
                let wide = data[mdhd.body.lowerBound] == 1
                found.mediaTimescale = MP4Box.u32(data, mdhd.body.lowerBound + (wide ? 20 : 12))
                found.mediaDuration = wide ? MP4Box.u32(data, mdhd.body.lowerBound + 24) << 32 | MP4Box.u32(data, mdhd.body.lowerBound + 28)
                                           : MP4Box.u32(data, mdhd.body.lowerBound + 16)
            }
            if let elst = MP4Box.child(data, trak, "edts").flatMap({ MP4Box.child(data, $0, "elst") }) {
                let wide = data[elst.body.lowerBound] == 1
                let count = MP4Box.u32(data, elst.body.lowerBound + 4)
                found.edits = (0..<min(count, (elst.body.count - 8) / (wide ? 20 : 12))).map { index in
                    let at = elst.body.lowerBound + 8 + index * (wide ? 20 : 12)
                    return wide ? (MP4Box.u32(data, at) << 32 | MP4Box.u32(data, at + 4), MP4Box.u32(data, at + 8) << 32 | MP4Box.u32(data, at + 12))
                                : (MP4Box.u32(data, at), Int(Int32(truncatingIfNeeded: MP4Box.u32(data, at + 4))))
                }
            }
            return found
        }
        throw MP4Error("no video track")
    }

    private static func track(_ data: [UInt8], _ stbl: MP4Box) throws -> MP4VideoTrack {
        guard let stsd = MP4Box.child(data, stbl, "stsd") else { throw MP4Error("no stsd") }
        var entries: [Entry] = []
        for entry in MP4Box.children(data, (stsd.body.lowerBound + 8)..<stsd.body.upperBound) {
            // VisualSampleEntry: 78 bytes of fields before its child boxes.
            let children = MP4Box.children(data, min(entry.body.lowerBound + 78, entry.body.upperBound)..<entry.body.upperBound)
            var types: [Int] = [], lengthSize = 4, units: [[UInt8]] = [], profile = (profile: 0, tier: 0, level: 0)
            var completeness: [(type: Int, complete: Bool)] = []
            if let avcC = children.first(where: { $0.type == "avcC" }) {
                profile = (Int(data[avcC.body.lowerBound + 1]), 0, Int(data[avcC.body.lowerBound + 3]))
                var at = avcC.body.lowerBound + 4
                lengthSize = Int(data[at] & 3) + 1
                at += 1
                for countMask in [0x1F, 0xFF] {
                    let count = Int(data[at]) & countMask
                    at += 1
                    for _ in 0..<count {
                        let length = Int(data[at]) << 8 | Int(data[at + 1])
                        types.append(Int(data[at + 2] & 0x1F))
                        units.append(Array(data[(at + 2)..<(at + 2 + length)]))
                        at += 2 + length
                    }
                }
            } else if let hvcC = children.first(where: { $0.type == "hvcC" }) {
                lengthSize = Int(data[hvcC.body.lowerBound + 21] & 3) + 1
                let general = Int(data[hvcC.body.lowerBound + 1])
                profile = (general & 0x1F, general >> 5 & 1, Int(data[hvcC.body.lowerBound + 12]))
                var at = hvcC.body.lowerBound + 23
                for _ in 0..<Int(data[hvcC.body.lowerBound + 22]) {
                    completeness.append((Int(data[at] & 0x3F), data[at] & 0x80 != 0))
                    let count = Int(data[at + 1]) << 8 | Int(data[at + 2])
                    at += 3
                    for _ in 0..<count {
                        let length = Int(data[at]) << 8 | Int(data[at + 1])
                        types.append(Int(data[at + 2] >> 1) & 0x3F)
                        units.append(Array(data[(at + 2)..<(at + 2 + length)]))
                        at += 2 + length
                    }
                }
            }
            entries.append(Entry(type: entry.type, recordNALTypes: types, recordUnits: units, recordProfile: profile, lengthSize: lengthSize,
                                 arrayCompleteness: completeness, childTypes: children.map(\.type)))
        }
        guard !entries.isEmpty, let stsz = MP4Box.child(data, stbl, "stsz"), let stsc = MP4Box.child(data, stbl, "stsc") else {
            throw MP4Error("no sample tables")
        }
        let sizes: [Int] = {
            let fixed = MP4Box.u32(data, stsz.body.lowerBound + 4), count = MP4Box.u32(data, stsz.body.lowerBound + 8)
            return (0..<count).map { fixed != 0 ? fixed : MP4Box.u32(data, stsz.body.lowerBound + 12 + 4 * $0) }
        }()
        var offsets: [Int] = []
        if let stco = MP4Box.child(data, stbl, "stco") {
            offsets = (0..<MP4Box.u32(data, stco.body.lowerBound + 4)).map { MP4Box.u32(data, stco.body.lowerBound + 8 + 4 * $0) }
        } else if let co64 = MP4Box.child(data, stbl, "co64") {
            offsets = (0..<MP4Box.u32(data, co64.body.lowerBound + 4)).map {
                MP4Box.u32(data, co64.body.lowerBound + 8 + 8 * $0) << 32 | MP4Box.u32(data, co64.body.lowerBound + 12 + 8 * $0)
            }
        }
        let runs = (0..<MP4Box.u32(data, stsc.body.lowerBound + 4)).map { index -> (first: Int, count: Int, entry: Int) in
            let at = stsc.body.lowerBound + 8 + 12 * index
            return (MP4Box.u32(data, at), MP4Box.u32(data, at + 4), MP4Box.u32(data, at + 8))
        }
        var entryIndices: [Int] = [], nalTypes: [[Int]] = [], slicePPS: [[Int?]] = [], rpus: [[UInt8]?] = []
        var sample = 0
        for (chunkIndex, chunkOffset) in offsets.enumerated() {
            guard let run = runs.last(where: { $0.first <= chunkIndex + 1 }) else { throw MP4Error("stsc does not cover chunk \(chunkIndex + 1)") }
            var at = chunkOffset
            for _ in 0..<run.count where sample < sizes.count {
                let entry = entries[max(0, min(entries.count - 1, run.entry - 1))]
                var types: [Int] = [], ppsIds: [Int?] = [], rpu: [UInt8]?
                let hevc = ["hvc1", "hev1"].contains(entry.type)
                if ["av01", "dav1"].contains(entry.type) {
                    rpus.append(Self.metadataRPU(Array(data[at..<min(at + sizes[sample], data.count)])))
                    entryIndices.append(run.entry)
                    nalTypes.append([])
                    slicePPS.append([])
                    at += sizes[sample]
                    sample += 1
                    continue
                }
                var nal = at
                while nal + entry.lengthSize < at + sizes[sample] {
                    let length = (0..<entry.lengthSize).reduce(0) { $0 << 8 | Int(data[nal + $1]) }
                    let header = data[nal + entry.lengthSize]
                    let type = hevc ? Int(header >> 1) & 0x3F : Int(header & 0x1F)
                    types.append(type)
                    if type == (hevc ? 62 : 28) { rpu = Array(data[(nal + entry.lengthSize)..<min(nal + entry.lengthSize + length, data.count)]) }
                    if hevc ? (0...9).contains(type) || (16...21).contains(type) : (1...5).contains(type) {
                        let start = nal + entry.lengthSize
                        ppsIds.append(NALSyntax.slicePPSId(Array(data[start..<min(start + length, start + 64, data.count)]), hevc: hevc))
                    }
                    nal += entry.lengthSize + length
                }
                entryIndices.append(run.entry)
                nalTypes.append(types)
                slicePPS.append(ppsIds)
                rpus.append(rpu)
                at += sizes[sample]
                sample += 1
            }
        }
        guard sample == sizes.count else { throw MP4Error("chunks hold \(sample) of \(sizes.count) samples") }
        var track = MP4VideoTrack(entries: entries, sampleEntryIndices: entryIndices, sampleNALTypes: nalTypes, sampleSlicePPSIds: slicePPS)
        track.sampleRPUs = rpus
        return track
    }

    /// An AV1 temporal unit's Dolby Vision metadata OBU (type 5, metadata_type 4, T.35 country 0xB5, provider 0x003B,
    /// oriented code 0x800), the whole OBU; nil when it has none or a size runs past the end.
    static func metadataRPU(_ unit: [UInt8]) -> [UInt8]? {
        var at = 0
        while at < unit.count {
            let header = unit[at], type = Int(header >> 3) & 0x0F
            var payload = at + 1 + (header & 0x04 != 0 ? 1 : 0)
            var size = 0, shift = 0
            guard header & 0x02 != 0 else { return nil }
            while payload < unit.count {
                let byte = unit[payload]
                size |= Int(byte & 0x7F) << shift
                shift += 7
                payload += 1
                if byte & 0x80 == 0 { break }
            }
            guard size <= unit.count - payload else { return nil }
            if type == 5, unit[payload..<(payload + size)].starts(with: [0x04, 0xB5, 0x00, 0x3B, 0x00, 0x00, 0x08, 0x00]) {
                return Array(unit[at..<(payload + size)])
            }
            at = payload + size
        }
        return nil
    }
}

public struct MP4Error: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

struct MP4Box {
    var type: String
    var body: Range<Int>

    static func u32(_ data: [UInt8], _ at: Int) -> Int {
        guard at + 4 <= data.count else { return 0 }
        return Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
    }

    static func children(_ data: [UInt8], _ range: Range<Int>) -> [MP4Box] {
        var boxes: [MP4Box] = [], at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = u32(data, at), header = 8
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            if size == 1 {
                size = u32(data, at + 8) << 32 | u32(data, at + 12)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, at + size <= range.upperBound else { break }
            boxes.append(MP4Box(type: type, body: (at + header)..<(at + size)))
            at += size
        }
        return boxes
    }

    static func child(_ data: [UInt8], _ box: MP4Box, _ type: String) -> MP4Box? {
        children(data, box.body).first { $0.type == type }
    }
}

/// Crafted copies of an MP4/MOV: one 32-bit field of a sample-table box changed, as a damaged or hostile
/// muxer would leave it.
public enum MP4Craft {
    /// The field of the first video track's `box` (`stts`, `ctts`, …) at `offset` bytes into its body
    /// (after size and type: version+flags at 0, entry count at 4, first entry at 8) set to `value`.
    public static func settingField(of path: String, box: String, offset: Int, to value: UInt32) throws -> [UInt8] {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let moov = MP4Box.children(data, 0..<data.count).first(where: { $0.type == "moov" }) else { throw MP4Error("no moov") }
        for trak in MP4Box.children(data, moov.body) where trak.type == "trak" {
            guard let mdia = MP4Box.child(data, trak, "mdia"), let hdlr = MP4Box.child(data, mdia, "hdlr"), hdlr.body.count >= 12,
                  String(decoding: data[(hdlr.body.lowerBound + 8)..<(hdlr.body.lowerBound + 12)], as: UTF8.self) == "vide",
                  let stbl = MP4Box.child(data, mdia, "minf").flatMap({ MP4Box.child(data, $0, "stbl") }) else { continue }
            guard let target = MP4Box.child(data, stbl, box) else { throw MP4Error("no \(box) in the video track") }
            let at = target.body.lowerBound + offset
            guard at + 4 <= target.body.upperBound else { throw MP4Error("\(box) is too short for a field at \(offset)") }
            for index in 0..<4 { data[at + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
            return data
        }
        throw MP4Error("no video track")
    }
}
