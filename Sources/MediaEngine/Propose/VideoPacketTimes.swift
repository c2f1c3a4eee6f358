import CAV

/// What a proposal needs of the video without decoding it, read from its packets: when each frame starts being shown,
/// and its clean starts with the leading pictures that are shown before them (µs, vtrim's timeline).
struct VideoPacketTimes {
    let stream: UnsafeMutablePointer<AVStream>
    let rule: CleanStart
    let origin: Int64
    private(set) var cleanStarts: [CleanPoint] = []
    private(set) var frameStarts: [Int64] = []
    /// The packets read since the last clean start are its group (until the next keyframe).
    private var inGroup = false

    init(stream: UnsafeMutablePointer<AVStream>, origin: Int64) {
        self.stream = stream
        self.origin = origin
        rule = CleanStart(stream: stream)
    }

    mutating func take(_ packet: Packet) {
        guard packet.pts != CAV_NOPTS_VALUE else { return }
        let micro = stream.micro(packet.pts).minus(origin)
        if !packet.isDiscarded { frameStarts.append(micro) }
        if packet.isKeyframe {
            inGroup = false
            if rule.isSplicePoint(packet) {
                cleanStarts.append(CleanPoint(micro: micro, shownFromMicro: micro))
                inGroup = true
            }
        } else if inGroup, let last = cleanStarts.last, micro < last.micro {
            // A leading picture of the clean start just read (decoded after it, shown before).
            cleanStarts[cleanStarts.count - 1] = CleanPoint(micro: last.micro, shownFromMicro: min(last.shownFromMicro, micro))
        }
    }

    /// After a seek the next packet belongs to no group read so far.
    mutating func restart() { inGroup = false }

    var sortedCleanStarts: [CleanPoint] { Array(Set(cleanStarts)).sorted() }
    var sortedFrameStarts: [Int64] { Array(Set(frameStarts)).sorted() }
}

/// The video's packets read only around the silences (a silence-only proposal decodes no video, and reading every
/// video packet of a long file costs more than decoding its audio): from the keyframe at or before each window's start
/// until a packet decodes a second past its end. Times inside each window are complete — every packet shown there
/// decodes no later — which is all the planner asks of them: clean starts in a gap's slack, frame starts around its
/// seams (where none is known past a window, the planner merges ranges: it keeps more, never less).
enum VideoWindows {
    /// False when a seek cannot place the reader at or before a window (the caller reads everything instead).
    static func read(_ input: InputFile, videoIndex: Int, windows: [(start: Int64, end: Int64)], into times: inout VideoPacketTimes) throws(AVFailure) -> Bool {
        let stream = times.stream, origin = times.origin
        let packet = try Packet()
        // Where reading stands: the decode time (µs) of the last packet read, nil before the first seek.
        var position: Int64?
        for window in windows.sorted(by: { $0.start < $1.start }) {
            let stop = window.end.plus(1_000_000)
            if position.map({ $0 < window.start.minus(2_000_000) }) ?? true {
                var placed = false
                for attempt in stream.seekLadder(toReach: stream.ticks(micro: window.start.plus(origin))) {
                    do {
                        if let timestamp = attempt { try input.seek(streamIndex: videoIndex, timestamp: timestamp) } else { try input.seekToStart() }
                    } catch {
                        continue
                    }
                    times.restart()
                    guard let first = try nextVideoPacket(input, packet, videoIndex) else { position = .max; placed = true; break }
                    let firstMicro = stream.micro(first.dts != CAV_NOPTS_VALUE ? first.dts : first.pts).minus(origin)
                    if firstMicro <= window.start || attempt == nil {
                        times.take(first)
                        position = firstMicro
                        placed = true
                        break
                    }
                }
                guard placed else { return false }
            }
            while let current = position, current <= stop, let read = try nextVideoPacket(input, packet, videoIndex) {
                times.take(read)
                let decode = read.dts != CAV_NOPTS_VALUE ? read.dts : read.pts
                if decode != CAV_NOPTS_VALUE { position = max(current, stream.micro(decode).minus(origin)) }
            }
            if let current = position, current <= stop { position = .max }  // the end of the file
        }
        return true
    }

    /// The next packet of the video stream, or nil at the end of the file.
    private static func nextVideoPacket(_ input: InputFile, _ packet: Packet, _ index: Int) throws(AVFailure) -> Packet? {
        while try input.read(into: packet) == .packet {
            if packet.streamIndex == index { return packet }
        }
        return nil
    }
}
