import CAV

/// Audio and subtitle packets of a cut, copied over the span the video presents (the plan's companion
/// range), so audio and video stay together. With edit lists, from the packet that spans the start to
/// the last one that begins before the end (the edits hide the overhang at both ends); without them,
/// only packets that lie inside the span, so the audio never outlasts the video (it may end up to one
/// audio frame early instead).
struct CompanionTracks {
    struct Track {
        let input: Int
        let output: Int
        let timeBase: AVRational
        let isSubtitle: Bool
        let splitsAMRFrames: Bool
        var done = false
    }

    private var tracks: [Int: Track] = [:]
    private let output: OutputFile
    private let editLists: Bool
    private let startMicro: Int64
    private let endMicro: Int64
    private let shiftMicro: Int64
    /// The furthest timestamp read (µs): once well past the end, nothing relevant remains.
    private var furthestMicro = Int64.min

    init(tracks: [Track], output: OutputFile, plan: CutPlan) {
        for track in tracks { self.tracks[track.input] = track }
        self.output = output
        editLists = plan.container.editLists
        startMicro = plan.companionsStartMicro
        endMicro = plan.companionsEndMicro
        shiftMicro = plan.companionsShiftMicro
    }

    var allDone: Bool {
        tracks.values.allSatisfy { $0.done || $0.isSubtitle } || furthestMicro > endMicro.plus(10 * Int64(AV_TIME_BASE))
    }

    mutating func consume(_ packet: Packet) throws {
        // Read the index first: writing hands the packet to the muxer, which blanks it.
        let index = packet.streamIndex
        guard var track = tracks[index], !track.done else { return }
        defer { tracks[index] = track }
        let timestamp = packet.presentationTime
        guard timestamp != CAV_NOPTS_VALUE else { return }
        let start = av_rescale_q(timestamp, track.timeBase, cav_time_base_q())
        let end = av_rescale_q(timestamp.plus(max(0, packet.duration)), track.timeBase, cav_time_base_q())
        furthestMicro = max(furthestMicro, start)
        if start >= endMicro {
            track.done = true
            return
        }
        if editLists || track.isSubtitle {
            guard end > startMicro || (end == start && start >= startMicro) else { return }
        } else {
            guard start >= startMicro, end <= endMicro.plus(1) else { return }
        }
        let shift = av_rescale_q(shiftMicro, cav_time_base_q(), track.timeBase)
        if track.splitsAMRFrames {
            for frame in try AMRFrames.split(packet, timeBase: track.timeBase) {
                frame.shift(by: shift)
                try output.write(frame, stream: track.output, timeBase: track.timeBase)
            }
        } else {
            packet.shift(by: shift)
            try output.write(packet, stream: track.output, timeBase: track.timeBase)
        }
    }
}
