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
        /// Subtitles and telemetry: each sample clipped to the window and placed at its own time (they do not
        /// follow on at seams, nor hold up the end of reading).
        let retimedPerSample: Bool
        let codec: AVCodecID
        let splitsAMRFrames: Bool
        var done = false
        /// Where the last packet written ends (output ticks), for the next range of a join to follow on.
        var writtenEnd: Int64?
        /// This range's audio is placed this many ticks from where its own timeline puts it (a join's seam).
        var correction: Int64?
        /// Text subtitles into a codec the output holds (`KeptStream.convertsTo`).
        var converter: SubtitleConverter?
        /// A cue without a length (a bitmap display set: it shows until the stream's next one) that began before
        /// the range: still showing at its start unless another comes before, so written there once one does.
        var showing: Packet?
        /// Reading goes on until this track's first packet past the range — audio only: subtitles and telemetry
        /// come through the cue reader (`CueReader`), from before the range's keyframe.
        var holdsReading: Bool { !retimedPerSample }
    }

    private var tracks: [Int: Track] = [:]
    private let output: OutputFile
    private let editLists: Bool
    private var startMicro: Int64
    private var endMicro: Int64
    private var shiftMicro: Int64
    private var outputStartMicro: Int64
    /// A join's range before the last: its audio ends at the packet nearest the range's end.
    private var joinsNext = false
    /// Which range of a join is being written (0 for a single cut).
    private var rangeIndex = 0
    /// The furthest timestamp read (µs): once well past the end, nothing relevant remains.
    private var furthestMicro = Int64.min
    /// Each join seam's audio offset (seconds; positive: the audio is later than the video), one per range
    /// after the first.
    private(set) var seamOffsetsSeconds: [Double] = []
    private var recordedRanges: Set<Int> = []

    /// The tracks; each range's window comes with `begin`.
    init(tracks: [Track], output: OutputFile, editLists: Bool) {
        for track in tracks { self.tracks[track.input] = track }
        self.output = output
        self.editLists = editLists
        startMicro = 0
        endMicro = 0
        shiftMicro = 0
        outputStartMicro = 0
    }

    /// Range `index`: its window and where it lands; after the first, audio follows on from what was written.
    mutating func begin(_ window: CompanionWindow, index: Int, joinsNext: Bool) throws {
        if index > 0 { try endRange() }
        rangeIndex = index
        startMicro = window.startMicro
        endMicro = window.endMicro
        shiftMicro = window.zeroSourceMicro
        outputStartMicro = window.zeroOutputMicro
        self.joinsNext = joinsNext
        furthestMicro = .min
        for key in tracks.keys {
            tracks[key]?.done = false
            tracks[key]?.correction = nil
        }
    }

    /// Records the offset of the seam before the range that ends (the first audio track's).
    mutating func endRange() throws {
        for key in tracks.keys {
            guard var track = tracks[key], track.showing != nil else { continue }
            try writeShowing(&track)
            tracks[key] = track
        }
        guard rangeIndex > 0, !recordedRanges.contains(rangeIndex) else { return }
        recordedRanges.insert(rangeIndex)
        // Without audio there is no seam offset to report.
        guard let audio = tracks.values.filter({ !$0.retimedPerSample }).min(by: { $0.input < $1.input }) else { return }
        seamOffsetsSeconds.append(audio.correction.map { Double($0) * Double(audio.timeBase.num) / Double(audio.timeBase.den) } ?? 0)
    }

    var allDone: Bool {
        tracks.values.allSatisfy { $0.done || !$0.holdsReading } || furthestMicro > endMicro.plus(10 * Int64(AV_TIME_BASE))
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
        if track.retimedPerSample, end <= start || start >= endMicro {
            // A display set with no length replaces the one before: the last before the range shows at its start.
            if start >= shiftMicro || start >= endMicro { try writeShowing(&track) }
            if start < shiftMicro {
                track.showing = try packet.clone()
                return
            }
        }
        if start >= endMicro {
            track.done = true
            return
        }
        if track.retimedPerSample {
            try writeCue(packet, track: track, startMicro: start, endMicro: end)
        } else {
            try writeAudio(packet, track: &track, startMicro: start, endMicro: end)
        }
    }

    /// A subtitle cue or telemetry sample: clipped to the window and placed at its own time on the output.
    private func writeCue(_ packet: Packet, track: Track, startMicro start: Int64, endMicro end: Int64) throws {
        guard let cue = SubtitleCue.clip(startMicro: start, endMicro: end, windowStartMicro: shiftMicro, windowEndMicro: endMicro),
              !SubtitleCue.isEmptyText(packet, codec: track.codec) else { return }
        if let converter = track.converter {
            guard let bytes = try converter.convert(packet) else { return }
            try packet.setBytes(bytes)
        }
        packet.pointer.pointee.pts = av_rescale_q(cue.startMicro.plus(outputStartMicro), cav_time_base_q(), track.timeBase)
        packet.pointer.pointee.dts = packet.pts
        packet.pointer.pointee.duration = max(0, av_rescale_q(cue.endMicro.plus(outputStartMicro), cav_time_base_q(), track.timeBase).minus(packet.pts))
        try output.write(packet, stream: track.output, timeBase: track.timeBase)
    }

    /// An audio packet: kept where it lies in the window (a join's later range follows on from what was written, with
    /// the seam's offset), moved onto the output.
    private mutating func writeAudio(_ packet: Packet, track: inout Track, startMicro start: Int64, endMicro end: Int64) throws {
        let timestamp = packet.presentationTime
        // Output ticks = source ticks − shift (+ a join's seam correction).
        let shift = av_rescale_q(shiftMicro.minus(outputStartMicro), cav_time_base_q(), track.timeBase)
        let duration = max(0, packet.duration)
        if rangeIndex == 0 {
            if editLists {
                guard end > startMicro || (end == start && start >= startMicro) else { return }
            } else {
                guard start >= startMicro, joinsNext || end <= endMicro.plus(1) else { return }
            }
        } else if track.correction == nil {
            if let writtenEnd = track.writtenEnd {
                // A join's later range: audio follows on from the last packet written, from the packet whose
                // own place is nearest (within half a packet): the seam's offset, reported.
                let place = timestamp.minus(shift)
                guard place.plus(duration / 2) >= writtenEnd else { return }
                // Audio that starts well after what was written (a gap in the source, or a range that wrote
                // none) keeps its own place: a gap, never audio pulled early.
                track.correction = place.minus(duration / 2) > writtenEnd ? 0 : writtenEnd.minus(place)
            } else {
                guard start >= startMicro else { return }
                track.correction = 0
            }
        }
        let correction = track.correction ?? 0
        if joinsNext {
            // Up to the packet nearest the range's end, where the next range's audio follows on.
            let rangeEnd = av_rescale_q(endMicro.minus(shiftMicro).plus(outputStartMicro), cav_time_base_q(), track.timeBase)
            guard timestamp.minus(shift).plus(correction).plus(duration / 2) <= rangeEnd else {
                track.done = true
                return
            }
        } else if rangeIndex > 0, !editLists {
            // A join's last range without edit lists: no audio past the output's end (where its own place is).
            let rangeEnd = av_rescale_q(endMicro.minus(shiftMicro).plus(outputStartMicro), cav_time_base_q(), track.timeBase)
            let tolerance = av_rescale_q(1, cav_time_base_q(), track.timeBase)
            guard timestamp.minus(shift).plus(correction).plus(duration) <= rangeEnd.plus(tolerance) else {
                track.done = true
                return
            }
        }
        let moved = shift.minus(correction)
        if track.splitsAMRFrames {
            for frame in try AMRFrames.split(packet, timeBase: track.timeBase) {
                frame.shift(by: moved)
                track.writtenEnd = frame.presentationTime.plus(max(0, frame.duration))
                try output.write(frame, stream: track.output, timeBase: track.timeBase)
            }
        } else {
            packet.shift(by: moved)
            track.writtenEnd = packet.presentationTime.plus(duration)
            try output.write(packet, stream: track.output, timeBase: track.timeBase)
        }
    }
}

extension CompanionTracks {
    /// The display set still showing at the range's start, written there (it lasts until the stream's next one).
    private mutating func writeShowing(_ track: inout Track) throws {
        guard let held = track.showing else { return }
        track.showing = nil
        if let converter = track.converter {
            guard let bytes = try converter.convert(held) else { return }
            try held.setBytes(bytes)
        }
        held.pointer.pointee.pts = av_rescale_q(outputStartMicro, cav_time_base_q(), track.timeBase)
        held.pointer.pointee.dts = held.pts
        held.pointer.pointee.duration = 0
        try output.write(held, stream: track.output, timeBase: track.timeBase)
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
