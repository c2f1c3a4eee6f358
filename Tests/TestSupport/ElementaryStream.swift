import Foundation

/// An H.264/HEVC video stream as the NAL units a reader gets, read independently of vtrim: FFmpeg's
/// `*_mp4toannexb` filter puts a record's sets (MP4's sample entry, Matroska's CodecPrivate) in band before each
/// IDR, as players do, and leaves an Annex B stream (MPEG-TS) as it is.
public struct ElementaryStream: Sendable {
    public let hevc: Bool
    /// Every NAL unit in decode order (header included, start codes removed).
    public let units: [[UInt8]]

    public init(_ path: String) async throws {
        let codec = try await Reference.videoCodec(path)
        hevc = codec == "hevc"
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "\(codec)_mp4toannexb",
                                          "-f", codec, "-"])
        guard run.status == 0 else { throw ReferenceError(message: "extracting \(path)'s video: \(run.stderr)") }
        units = Self.split([UInt8](run.stdoutData))
    }

    public func type(_ unit: [UInt8]) -> Int { hevc ? Int(unit[0] >> 1) & 0x3f : Int(unit[0]) & 0x1f }
    public func isSlice(_ unit: [UInt8]) -> Bool { hevc ? type(unit) <= 21 : [1, 5].contains(type(unit)) }
    public func isSet(_ unit: [UInt8]) -> Bool { hevc ? (32...34).contains(type(unit)) : [7, 8].contains(type(unit)) }
    public var slices: [[UInt8]] { units.filter(isSlice) }

    /// What is wrong with the stream's parameter sets, as a reader meets them: a set id given two different
    /// contents, or a slice whose PPS (or that PPS's SPS, or that SPS's VPS) has not been seen before it.
    public var setProblems: [String] {
        var seen: [String: [UInt8]] = [:]
        var ids: [Int: [Int: NALSyntax.SetIds]] = [:]
        var problems: [String] = []
        for (position, unit) in units.enumerated() {
            if isSet(unit) {
                guard let set = NALSyntax.setIds(unit, hevc: hevc) else { problems.append("unit \(position): unreadable set"); continue }
                let key = "\(set.type):\(set.id)"
                if let earlier = seen[key], earlier != unit { problems.append("unit \(position): set \(key) redefined") }
                seen[key] = unit
                ids[set.type, default: [:]][set.id] = set
            } else if isSlice(unit) {
                guard let pps = NALSyntax.slicePPSId(unit, hevc: hevc), let picture = ids[hevc ? 34 : 8]?[pps] else {
                    problems.append("unit \(position): slice refers to a PPS not seen"); continue
                }
                guard let spsId = picture.parent, let sequence = ids[hevc ? 33 : 7]?[spsId] else {
                    problems.append("unit \(position): PPS \(pps)'s SPS not seen"); continue
                }
                if hevc, sequence.parent.flatMap({ ids[32]?[$0] }) == nil { problems.append("unit \(position): SPS \(spsId)'s VPS not seen") }
            }
        }
        return Array(Set(problems)).sorted().prefix(5).map { $0 }
    }

    /// The longest run of this stream's slices that are byte for byte a run of `source`'s, in order.
    public func longestRunOfSlices(in source: ElementaryStream) -> Int {
        let ours = slices, theirs = source.slices
        var positions: [[UInt8]: [Int]] = [:]
        for (index, slice) in theirs.enumerated() { positions[slice, default: []].append(index) }
        var best = 0, index = 0
        while index < ours.count {
            var run = 0
            for start in positions[ours[index]] ?? [] {
                var length = 0
                while index + length < ours.count, start + length < theirs.count, ours[index + length] == theirs[start + length] { length += 1 }
                run = max(run, length)
            }
            best = max(best, run)
            index += max(1, run)
        }
        return best
    }

    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let begin = start {
                    var end = index
                    while end > begin, bytes[end - 1] == 0 { end -= 1 }
                    units.append(Array(bytes[begin..<end]))
                }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let begin = start, begin < bytes.count { units.append(Array(bytes[begin...])) }
        return units.filter { !$0.isEmpty }
    }
}
