import CAV

/// Audio and subtitle packets of a cut, copied: from the presented start (with an edit list, from the
/// packet that spans it; the muxer hides the part before) to the end of the video actually kept, so
/// audio and video stay together.
struct CompanionTracks {
    private struct Track {
        let input: Int
        let output: Int
        let timeBase: AVRational
        let shift: Int64
        let lower: Int64
        let isSubtitle: Bool
        var held: [Packet] = []
        var done = false
    }

    private var tracks: [Int: Track] = [:]
    private let output: OutputFile
    private let trimsWithEditList: Bool
    private let provisionalEndMicro: Int64
    /// The furthest timestamp read (µs): once well past the video's end, nothing relevant remains.
    private var furthestMicro = Int64.min

    init(streams: [CutStreams.Kept], input: InputFile, output: OutputFile, shiftMicro: Int64, lowerMicro: Int64,
         trimsWithEditList: Bool, provisionalEndMicro: Int64) {
        self.output = output
        self.trimsWithEditList = trimsWithEditList
        self.provisionalEndMicro = provisionalEndMicro
        for kept in streams {
            guard let stream = input.stream(kept.input) else { continue }
            let base = stream.pointee.time_base
            tracks[kept.input] = Track(input: kept.input, output: kept.output, timeBase: base,
                                       shift: av_rescale_q(shiftMicro, cav_time_base_q(), base),
                                       lower: av_rescale_q(lowerMicro, cav_time_base_q(), base),
                                       isSubtitle: kept.kind == .subtitle)
        }
    }

    func allDone(after videoEndMicro: Int64) -> Bool {
        tracks.values.allSatisfy { $0.done || $0.isSubtitle } || furthestMicro > videoEndMicro + 10 * Int64(AV_TIME_BASE)
    }

    mutating func consume(_ packet: Packet, videoEndMicro: Int64?) throws {
        // Read the index first: writing hands the packet to the muxer, which blanks it.
        let index = packet.streamIndex
        guard var track = tracks[index], !track.done else { return }
        defer { tracks[index] = track }
        let timestamp = packet.pts != CAV_NOPTS_VALUE ? packet.pts : packet.dts
        guard timestamp != CAV_NOPTS_VALUE else { return }
        furthestMicro = max(furthestMicro, av_rescale_q(timestamp, track.timeBase, cav_time_base_q()))
        let spansLower = trimsWithEditList ? timestamp + max(0, packet.duration) > track.lower : timestamp >= track.lower
        guard spansLower else { return }
        if let videoEndMicro {
            if timestamp >= av_rescale_q(videoEndMicro, cav_time_base_q(), track.timeBase) {
                track.done = true
                return
            }
            try write(packet, track)
        } else if timestamp < av_rescale_q(provisionalEndMicro, cav_time_base_q(), track.timeBase) {
            try write(packet, track)
        } else {
            // Past `end` before the video has finished: keep it until we know where the video ends.
            track.held.append(try packet.clone())
        }
    }

    mutating func videoEnded(at videoEndMicro: Int64) throws {
        for key in tracks.keys.sorted() {
            guard var track = tracks[key] else { continue }
            let end = av_rescale_q(videoEndMicro, cav_time_base_q(), track.timeBase)
            for held in track.held {
                let timestamp = held.pts != CAV_NOPTS_VALUE ? held.pts : held.dts
                if timestamp < end { try write(held, track) } else { track.done = true }
            }
            track.held = []
            tracks[key] = track
        }
    }

    mutating func flush(videoEndMicro: Int64) throws {
        try videoEnded(at: videoEndMicro)
    }

    private func write(_ packet: Packet, _ track: Track) throws {
        if packet.pts != CAV_NOPTS_VALUE { packet.pointer.pointee.pts -= track.shift }
        if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts -= track.shift }
        try output.write(packet, stream: track.output, timeBase: track.timeBase)
    }
}
