import Foundation

/// A test's own reading of an MPEG-2 video stream (ISO/IEC 13818-2 §6.2), independent of vtrim's parser: the file's
/// video remuxed by FFmpeg into an elementary stream, then split at its start codes.
public enum MPEG2Stream {
    public struct Group: Equatable, Sendable {
        public var closed: Bool
        public var brokenLink: Bool
        /// The temporal_reference of each picture in the group, in decode order (a field pair counted once).
        public var references: [Int]
    }

    public struct Reading: Sendable {
        /// Each picture (from its start code to the next picture, GOP or sequence header) with its temporal_reference
        /// zeroed, as a 64-bit FNV-1a hash: equal for a copied picture whatever number it was given.
        public var pictures: [String]
        public var groups: [Group]
        /// Every distinct sequence header with its sequence extension, as bytes.
        public var sequenceHeaders: Set<[UInt8]>
    }

    public static func read(_ path: String) async throws -> Reading {
        let result = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy", "-f", "mpeg2video", "-"])
        guard result.status == 0 else { throw ReferenceError(message: "remuxing \(path): \(result.stderr)") }
        return read(bytes: [UInt8](result.stdoutData))
    }

    public static func read(bytes: [UInt8]) -> Reading {
        var starts: [Int] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 { starts.append(index); index += 4 } else { index += 1 }
        }
        func code(_ at: Int) -> UInt8 { bytes[starts[at] + 3] }
        func end(_ at: Int) -> Int { at + 1 < starts.count ? starts[at + 1] : bytes.count }
        var reading = Reading(pictures: [], groups: [], sequenceHeaders: [])
        var lastReference: Int?
        for unit in starts.indices {
            let offset = starts[unit]
            switch code(unit) {
            case 0xB3:
                var last = unit
                if unit + 1 < starts.count, code(unit + 1) == 0xB5, starts[unit + 1] + 4 < bytes.count, bytes[starts[unit + 1] + 4] >> 4 == 1 {
                    last = unit + 1
                }
                reading.sequenceHeaders.insert(Array(bytes[offset..<end(last)]))
            case 0xB8 where offset + 7 < bytes.count:
                reading.groups.append(Group(closed: bytes[offset + 7] & 0x40 != 0, brokenLink: bytes[offset + 7] & 0x20 != 0, references: []))
                lastReference = nil
            case 0x00 where offset + 5 < bytes.count:
                let reference = Int(bytes[offset + 4]) << 2 | Int(bytes[offset + 5] >> 6)
                // The second field of a pair repeats its frame's number.
                if reference != lastReference, !reading.groups.isEmpty { reading.groups[reading.groups.count - 1].references.append(reference) }
                lastReference = reference
                var next = unit + 1
                while next < starts.count, ![0x00, 0xB3, 0xB8, 0xB7].contains(code(next)) { next += 1 }
                var picture = Array(bytes[offset..<(next < starts.count ? starts[next] : bytes.count)])
                picture[4] = 0
                picture[5] &= 0x3F
                reading.pictures.append(String(fnv1a(picture), radix: 16))
            default:
                continue
            }
        }
        return reading
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
