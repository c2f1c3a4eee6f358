import CAV

/// The decode loop for one video stream: reads packets, feeds the decoder, tracks the two frames
/// around the current target (`shown`: last with pts ≤ target; `ahead`: first with pts > target).
struct DecodeSession {
    let input: InputFile
    let decoder: Decoder
    let packet: Packet
    let streamIndex: Int
    private var shown: Frame?
    private var ahead: Frame?
    private var spare: Frame?
    private var pendingPacket = false
    private var endOfInput = false
    private var drained = false
    private var positioned = false
    /// The time being decoded towards; packets that end before it may skip non-reference frames.
    private var target = Int64.max
    /// Backing up from a seek found no clean start, not even at the stream's beginning (a capture that
    /// starts mid-broadcast): every frame is then decoded forward from the beginning, as a player does,
    /// instead of seeking back to the beginning for every sample.
    private var noCleanStartInStream = false
    /// The video track's composition offsets, once looked for (`.some(nil)`: none usable).
    private var composition: CompositionTable??
    /// Damaged data: what the decoder counted and the reads that failed mid-file.
    var decodeErrors: Int { decoder.errors + readErrors }
    private var readErrors = 0
    private(set) var framesDecoded = 0
    /// Without an index, decode forward rather than seek when the next target is this close (ticks).
    private var forwardWindowTicks: Int64 {
        let base = input.stream(streamIndex)?.pointee.time_base ?? AVRational(num: 1, den: 1)
        return av_rescale_q(2, AVRational(num: 1, den: 1), base)
    }

    /// Checked after every frame: true abandons the decode (an interrupt; the caller stops too).
    let shouldStop: () -> Bool

    init(input: InputFile, decoder: Decoder, packet: Packet, streamIndex: Int, shouldStop: @escaping () -> Bool = { false }) {
        self.input = input
        self.decoder = decoder
        self.packet = packet
        self.streamIndex = streamIndex
        self.shouldStop = shouldStop
    }

    /// The last frame returned is the stream's last: nothing followed it before the input ended.
    var reachedEnd: Bool { drained && ahead == nil }

    /// Forget the position (next request seeks).
    mutating func reset() {
        positioned = false
        shown = nil
        ahead = nil
    }

    /// The frame a player shows at `target`: the last frame with pts ≤ target, the first frame when
    /// target precedes it, the last frame when target is past the end.
    mutating func frameShown(at target: Int64, keyframeBefore keyframe: Int64?) throws(AVFailure) -> Frame? {
        let decodedUpTo = ahead?.timestamp ?? shown?.timestamp
        var mustSeek = !positioned
        if positioned, let decodedUpTo {
            if target < (shown?.timestamp ?? decodedUpTo) {
                mustSeek = true
            } else if noCleanStartInStream {
                mustSeek = false
            } else if let keyframe {
                mustSeek = keyframe > decodedUpTo
            } else {
                mustSeek = target.minus(decodedUpTo) > forwardWindowTicks
            }
        }
        if mustSeek {
            do {
                try seek(to: target)
            } catch {
                // Not seekable (no index, damaged): samples come in ascending order, so decode forward
                // from where the demuxer is, unless that is already past the target.
                if let current = shown ?? ahead, current.timestamp > target { throw error }
                positioned = true
            }
            try advance(to: target)
            // The demuxer landed after the target (imprecise index) or past the readable data
            // (truncated file): decode from the start instead.
            if shown == nil, ahead.map({ !startsStream($0) }) ?? true, (try? seekToStart()) != nil {
                try advance(to: target)
            }
        } else {
            try advance(to: target)
        }
        return shown ?? ahead
    }

    /// The frame after the one `frameShown` returned (which becomes the one shown), or nil at the end.
    mutating func nextFrame() throws(AVFailure) -> Frame? {
        if let next = ahead {
            recycle(shown)
            shown = next
            ahead = nil
            return next
        }
        guard !shouldStop(), let frame = try decodeNext() else { return nil }
        recycle(shown)
        shown = frame
        return frame
    }

    /// Fast mode: the last clean start (`CleanStart`, the rule accurate mode and cuts use) shown at or
    /// before `target` — or, before the first, the first — decoded alone. Positioned as accurate mode is
    /// (back up to a clean start; from the beginning where the demuxer lands late or cannot seek), then the
    /// packets up to the target are read, not decoded. Returns `.same` without decoding when it is the
    /// keyframe decoded last time (`previous`, its pts).
    mutating func keyframe(atOrBefore target: Int64, previous: Int64?) throws(AVFailure) -> KeyframeResult {
        guard let stream = input.stream(streamIndex) else { return .none }
        let access = CleanStart(stream: stream)
        positioned = false
        defer {
            decoder.flush()
            restart()
            positioned = false
        }
        // Where the demuxer lands past the target (no index: MPEG-TS) or on nothing usable, further back:
        // 5 s, 60 s, then the beginning (the seek ladder cuts use).
        var candidates: (starts: [CleanStartPackets], landedLate: Bool) = ([], true)
        for attempt in stream.seekLadder(toReach: target) {
            do {
                if let ticks = attempt { try seek(to: ticks) } else { try seekToStart() }
            } catch {
                continue
            }
            candidates = try cleanKeyframes(upTo: target, access: access)
            if !candidates.landedLate, !candidates.starts.isEmpty { break }
        }
        for start in candidates.starts.reversed() {
            if let previous, start.keyframe.pts == previous { return .same }
            decoder.flush()
            if let frame = try firstFrame(of: start) { return .frame(frame) }
            // Not decodable (damaged): the clean start before it.
        }
        return .none
    }

    /// A clean start's keyframe. The packets after it are read only where it alone gives no picture (a field-coded
    /// keyframe, interlaced AVCHD: its second field is the next packet), so a fast thumbnail reads its keyframe's
    /// bytes and no more — what a URL's range requests fetch.
    private struct CleanStartPackets {
        let keyframe: Packet
    }

    private static let followingKept = 8
    /// Packets read at most, after a seek, to find a keyframe met before (a bound for files whose times are broken).
    private static let searchedPackets = 4096

    /// The clean starts read from the current position while they are shown at or before `target` (the
    /// last few), or the first one after it when none is; `landedLate` when the very first packet read is
    /// past the target.
    private mutating func cleanKeyframes(upTo target: Int64, access: CleanStart) throws(AVFailure) -> (starts: [CleanStartPackets], landedLate: Bool) {
        var found: [CleanStartPackets] = []
        var first = true, landedLate = false, chosen = false
        // Keyframes jumped to (each once: where a landing misses, the packets between are read instead).
        var jumped: Set<Int64> = []
        while true {
            if pendingPacket {
                pendingPacket = false
            } else {
                guard try firstPacketOfStream() != nil else { break }
            }
            let timing = packet.timing
            if first {
                first = false
                landedLate = timing.pts > target && timing.dts > target
            }
            let clean = packet.isKeyframe && (noCleanStartInStream || access.isClean(bytes: packet.bytes))
            if !chosen, clean, timing.pts <= target || found.isEmpty {
                found.append(CleanStartPackets(keyframe: try packet.clone()))
                if found.count > 4 { found.removeFirst() }
                // The first after the target (none before it), or — with a full index — the next keyframe lies past it.
                if timing.pts > target { chosen = true }
                if let (next, nextEntry) = nextIndexedKeyframe(after: timing.dts) {
                    if next > target {
                        chosen = true
                    } else if !chosen, let shown = shownTime(ofEntry: nextEntry, from: timing), shown > target {
                        // Decoded before the target but shown after it (its sample table says): not it, and not read.
                        chosen = true
                    } else if !chosen, !jumped.contains(next) {
                        // Decoded at or before the target, it may still be shown after it (a decode delay): read alone,
                        // its own time decides, not the group of pictures between (a URL fetches what is read).
                        jumped.insert(next)
                        if try landOnKeyframe(decodedAt: next, shownAbout: next.plus(timing.pts.minus(timing.dts))) {
                            pendingPacket = true
                            continue
                        }
                        try readOn(after: timing)
                    }
                }
                if chosen { break }
                continue
            }
            // A clean keyframe shown after the target, with one before it found: nothing later is shown sooner.
            if clean, timing.pts > target, !found.isEmpty { break }
            if timing.dts > target, !found.isEmpty { break }
        }
        return (found, landedLate)
    }

    /// Seeks to the keyframe the index lists at decode time `dts` (by its presentation time, about `shown`: the
    /// demuxer seeks by those) and reads it: true when the packet read is that keyframe.
    private mutating func landOnKeyframe(decodedAt dts: Int64, shownAbout shown: Int64) throws(AVFailure) -> Bool {
        try input.seek(streamIndex: streamIndex, timestamp: shown)
        restart()
        guard try firstPacketOfStream() != nil else { return false }
        return packet.isKeyframe && packet.timing.dts == dts
    }

    /// Back to just after the packet `current` (a landing that missed): a seek to it, then the packets up to it.
    private mutating func readOn(after current: VideoPacket) throws(AVFailure) {
        try input.seek(streamIndex: streamIndex, timestamp: current.pts)
        restart()
        var read = 0
        while read < Self.searchedPackets, try firstPacketOfStream() != nil {
            read += 1
            if packet.timing.dts >= current.dts { return }
        }
    }

    /// The first picture shown from `start.keyframe` on: the keyframe decoded alone; where that gives no
    /// picture (a field-coded keyframe), again with the packets after it. Pictures before the keyframe (an
    /// open GOP's leading ones) are not it.
    private mutating func firstFrame(of start: CleanStartPackets) throws(AVFailure) -> Frame? {
        if let alone = try firstFrame(from: [start.keyframe], shownFrom: start.keyframe.timing.pts) { return alone }
        let following = try packets(following: start.keyframe)
        decoder.flush()
        return try firstFrame(from: [start.keyframe] + following, shownFrom: start.keyframe.timing.pts)
    }

    /// Up to `followingKept` packets of the stream after `keyframe`, read again from a seek to it (the seek ladder
    /// where the demuxer lands past it); none where it is not met again.
    private mutating func packets(following keyframe: Packet) throws(AVFailure) -> [Packet] {
        guard let stream = input.stream(streamIndex) else { return [] }
        let wanted = keyframe.timing
        // By its presentation time, as the demuxer seeks (by its decode time an MP4 lands a keyframe early).
        for attempt in stream.seekLadder(toReach: wanted.pts) {
            do {
                if let ticks = attempt { try input.seek(streamIndex: streamIndex, timestamp: ticks) } else { try seekToStart() }
            } catch {
                continue
            }
            restart()
            var met = false, first = true, landedLate = false, read = 0
            var following: [Packet] = []
            while read < Self.searchedPackets, let next = try firstPacketOfStream() {
                read += 1
                let timing = next.timing
                if met {
                    following.append(try next.clone())
                    if following.count == Self.followingKept { break }
                    continue
                }
                if next.isKeyframe, timing.pts == wanted.pts, timing.dts == wanted.dts {
                    met = true
                } else if timing.dts > wanted.dts {
                    landedLate = first
                    break
                }
                first = false
            }
            if met { return following }
            if !landedLate { return [] }
        }
        return []
    }

    private mutating func firstFrame(from packets: [Packet], shownFrom: Int64) throws(AVFailure) -> Frame? {
        let frame = try Frame()
        func received(_ session: inout DecodeSession) -> Bool {
            while session.decoder.nextFrame(into: frame) == .frame {
                session.framesDecoded += 1
                if frame.timestamp >= shownFrom { return true }
            }
            return false
        }
        for next in packets {
            var attempts = 0
            while decoder.feed(next) == .full, attempts < 64 {
                if received(&self) { return frame }
                attempts += 1
            }
            if received(&self) { return frame }
        }
        _ = decoder.feed(nil)
        return received(&self) ? frame : nil
    }

    /// The decode time of the index's first keyframe after `timestamp`, or nil. MP4/MOV only: their sample
    /// tables list every keyframe (Matroska's cues may name only some, and other indexes grow as packets are read).
    private func nextIndexedKeyframe(after timestamp: Int64) -> (timestamp: Int64, entry: Int32)? {
        guard FFmpegText.string(input.format.pointee.iformat?.pointee.name)?.hasPrefix("mov,") == true,
              let stream = input.stream(streamIndex), timestamp != CAV_NOPTS_VALUE, timestamp < Int64.max,
              avformat_index_get_entries_count(stream) > 0 else { return nil }
        let position = av_index_search_timestamp(stream, timestamp + 1, 0)
        guard position >= 0, let entry = avformat_index_get_entry(stream, position) else { return nil }
        return (entry.pointee.timestamp, position)
    }

    /// When the index entry `entry` (a keyframe after the packet just read, `current`) is shown, from the track's
    /// composition offsets: FFmpeg reads a sample's presentation time as its index time plus the track's one shift plus
    /// its offset, so the current packet's gives the shift. Nil where the table cannot be matched to the index (an edit
    /// list that dropped samples, a table FFmpeg reads otherwise) or the packet to its entry: the caller reads.
    private mutating func shownTime(ofEntry entry: Int32, from current: VideoPacket) -> Int64? {
        guard let stream = input.stream(streamIndex), current.pts != CAV_NOPTS_VALUE, current.dts != CAV_NOPTS_VALUE else { return nil }
        if composition == nil {
            let table = MovieBoxes.movieBox(path: input.path).flatMap { CompositionTable.read(moov: $0, trackID: Int(stream.pointee.id)) }
            composition = .some(table.flatMap { Self.indexIsEverySample(stream, of: $0) ? $0 : nil })
        }
        guard let table = composition ?? nil else { return nil }
        // The current packet's entry: the one at its byte position, at or just before its decode time.
        let position = packet.pointer.pointee.pos
        let around = av_index_search_timestamp(stream, current.dts, AVSEEK_FLAG_ANY | AVSEEK_FLAG_BACKWARD)
        guard position >= 0, around >= 0 else { return nil }
        let found = (max(0, around - 2)...(around + 2)).first { avformat_index_get_entry(stream, $0)?.pointee.pos == position }
        guard let currentEntry = found, let currentIndexed = avformat_index_get_entry(stream, currentEntry)?.pointee.timestamp,
              let nextIndexed = avformat_index_get_entry(stream, entry)?.pointee.timestamp,
              let currentOffset = table.offset(sample: Int(currentEntry)), let nextOffset = table.offset(sample: Int(entry)) else { return nil }
        return nextIndexed.plus(current.pts.minus(currentIndexed).minus(currentOffset)).plus(nextOffset)
    }

    /// Whether the index's entry n is the track's sample n: as many entries as samples, at byte positions that only
    /// grow. An edit list FFmpeg builds its index from edit by edit (samples repeated or dropped, positions going back),
    /// or samples sharing a position, fail it.
    private static func indexIsEverySample(_ stream: UnsafeMutablePointer<AVStream>, of table: CompositionTable) -> Bool {
        let count = avformat_index_get_entries_count(stream)
        guard Int(count) == table.sampleCount, count > 0 else { return false }
        var last = Int64.min
        for entry in 0..<count {
            guard let position = avformat_index_get_entry(stream, entry)?.pointee.pos, position > last else { return false }
            last = position
        }
        return true
    }

    enum KeyframeResult {
        case frame(Frame)
        case same
        case none
    }

    private func startsStream(_ frame: Frame) -> Bool {
        guard let stream = input.stream(streamIndex) else { return true }
        let start = stream.pointee.start_time
        return start == CAV_NOPTS_VALUE || frame.timestamp <= start
    }

    private mutating func seek(to target: Int64) throws(AVFailure) {
        try input.seek(streamIndex: streamIndex, timestamp: target)
        restart()
        // A stream known to have no clean start anywhere: any keyframe will do (fast mode), nothing to look for.
        if noCleanStartInStream { return }
        try backUpToCleanStart(before: target)
    }

    /// After a seek: the first clean start (`CleanStart`) read from where the demuxer landed, if it is shown
    /// at or before `target`; else (none before the target: a landing mid-group, or past the target where
    /// there is no index) further back each time, then from the beginning. The packet found is sent first.
    private mutating func backUpToCleanStart(before target: Int64) throws(AVFailure) {
        guard let stream = input.stream(streamIndex) else { return }
        let access = CleanStart(stream: stream)
        let second = stream.secondTicks
        for attempt in 1...12 {
            var landing: Int64?
            while try firstPacketOfStream() != nil {
                let timing = packet.timing
                if landing == nil { landing = timing.dts }
                if packet.isKeyframe, access.isClean(bytes: packet.bytes) {
                    if timing.pts <= target {
                        pendingPacket = true
                        return
                    }
                    break
                }
                if timing.dts > target { break }
            }
            guard let landing, landing != CAV_NOPTS_VALUE, landing > stream.startTicksOrZero else { break }
            try input.seek(streamIndex: streamIndex, timestamp: landing.minus(second.times(Int64(attempt))))
            decoder.flush()
        }
        try seekToStart()
        if let first = try firstPacketOfStream() {
            noCleanStartInStream = !access.isClean(bytes: first.bytes)
            pendingPacket = true
        }
    }

    /// Reads up to the stream's next packet (into `packet`), or nil at the end of the input.
    private mutating func firstPacketOfStream() throws(AVFailure) -> Packet? {
        while try input.read(into: packet) == .packet {
            if packet.streamIndex == streamIndex { return packet }
        }
        return nil
    }

    private mutating func seekToStart() throws(AVFailure) {
        guard let stream = input.stream(streamIndex) else { return }
        var first = stream.startTicksOrZero
        if avformat_index_get_entries_count(stream) > 0, let entry = avformat_index_get_entry(stream, 0) {
            first = min(first, entry.pointee.timestamp)
        }
        try input.seek(streamIndex: streamIndex, timestamp: first)
        restart()
    }

    private mutating func restart() {
        decoder.flush()
        shown = nil
        ahead = nil
        pendingPacket = false
        endOfInput = false
        drained = false
        positioned = true
    }

    /// Decodes until `ahead` is past `target` or the stream ends.
    private mutating func advance(to target: Int64) throws(AVFailure) {
        self.target = target
        while true {
            if let next = ahead {
                if next.timestamp > target { return }
                recycle(shown)
                shown = next
                ahead = nil
            }
            guard !shouldStop(), let frame = try decodeNext() else { return }
            if frame.timestamp <= target {
                recycle(shown)
                shown = frame
            } else {
                ahead = frame
            }
        }
    }

    private mutating func recycle(_ frame: Frame?) {
        guard let frame else { return }
        frame.unref()
        spare = frame
    }

    private mutating func spareFrame() throws(AVFailure) -> Frame {
        if let spare {
            self.spare = nil
            return spare
        }
        return try Frame()
    }

    /// The next decoded frame in presentation order, or nil when the stream is exhausted.
    /// Damaged packets are skipped and counted, as players do.
    private mutating func decodeNext() throws(AVFailure) -> Frame? {
        if drained { return nil }
        let frame = try spareFrame()
        while true {
            switch decoder.nextFrame(into: frame) {
            case .frame:
                framesDecoded += 1
                return frame
            case .drained:
                drained = true
                spare = frame
                return nil
            case .needsInput:
                try feed()
            }
        }
    }

    /// Sends the next packet of the stream (or the drain signal at the end of the input).
    private mutating func feed() throws(AVFailure) {
        if endOfInput {
            _ = try? decoder.send(nil)
            return
        }
        if !pendingPacket {
            while true {
                let result: InputFile.ReadResult
                do {
                    result = try input.read(into: packet)
                } catch {
                    // A read error mid-file (truncated or damaged data): decode what we have.
                    readErrors += 1
                    result = .endOfFile
                }
                if result == .endOfFile {
                    endOfInput = true
                    _ = try? decoder.send(nil)
                    return
                }
                if packet.streamIndex == streamIndex { break }
            }
        }
        // A frame that ends at or before the target is followed by one that starts by then, so it is never
        // the frame shown; if nothing references it, the decoder need not decode it (B-frames, mostly).
        let ends = packet.duration > 0 && packet.pts != CAV_NOPTS_VALUE ? packet.pts.plus(packet.duration) : Int64.max
        decoder.skipNonReferenceFrames(ends <= target)
        pendingPacket = decoder.feed(packet) == .full
    }
}
