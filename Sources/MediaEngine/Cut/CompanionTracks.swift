import CAV

/// Audio and subtitle packets of a cut, copied over the span the video presents (the plan's companion
/// range), so audio and video stay together. With edit lists, from the packet that spans the start to
/// the last one that begins before the end (the edits hide the overhang at both ends); without them,
/// only packets that lie inside the span, so the audio never outlasts the video (it may end up to one
/// audio frame early instead). Subtitles are retimed cue by cue onto the output's timeline (`SubtitleCue`).
struct CompanionTracks {
    struct Track {
        let input: Int
        let output: Int
        let timeBase: AVRational
        let isSubtitle: Bool
        let codec: AVCodecID
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
        if track.isSubtitle {
            guard let cue = SubtitleCue.clip(startMicro: start, endMicro: end, windowStartMicro: shiftMicro, windowEndMicro: endMicro),
                  !SubtitleCue.isEmptyText(packet, codec: track.codec) else { return }
            packet.pointer.pointee.pts = av_rescale_q(cue.startMicro, cav_time_base_q(), track.timeBase)
            packet.pointer.pointee.dts = packet.pts
            packet.pointer.pointee.duration = max(0, av_rescale_q(cue.endMicro, cav_time_base_q(), track.timeBase).minus(packet.pts))
            try output.write(packet, stream: track.output, timeBase: track.timeBase)
            return
        }
        if editLists {
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

/// A subtitle cue on the output's timeline: clipped to the part of the source the output shows, so that
/// nothing outside the cut shows and nothing runs past the output's end, and shifted to start from the
/// output's 0. Each cue is written with its own time and length (and no edit of the track offsets it).
struct SubtitleCue: Equatable {
    /// Output µs (0 = the output's start).
    var startMicro: Int64
    var endMicro: Int64

    /// The cue `[start, end)` (source µs) inside the window `[windowStart, windowEnd)` the output shows,
    /// or nil when no part of it is; a cue without a length is kept when it begins inside the window.
    static func clip(startMicro: Int64, endMicro: Int64, windowStartMicro: Int64, windowEndMicro: Int64) -> SubtitleCue? {
        guard startMicro < windowEndMicro else { return nil }
        if endMicro <= startMicro {
            guard startMicro >= windowStartMicro else { return nil }
            return SubtitleCue(startMicro: startMicro.minus(windowStartMicro), endMicro: startMicro.minus(windowStartMicro))
        }
        let from = max(startMicro, windowStartMicro), to = min(endMicro, windowEndMicro)
        guard to > from else { return nil }
        return SubtitleCue(startMicro: from.minus(windowStartMicro), endMicro: to.minus(windowStartMicro))
    }

    /// A QuickTime text sample with no text (a length of 0): MP4's way of clearing the screen between cues,
    /// which the muxer writes again wherever the retimed cues leave a gap.
    static func isEmptyText(_ packet: Packet, codec: AVCodecID) -> Bool {
        guard codec == AV_CODEC_ID_MOV_TEXT else { return false }
        let bytes = packet.bytes
        return bytes.count < 2 || (bytes[0] == 0 && bytes[1] == 0)
    }
}
