import CAV

/// How much media a file really holds, against what its header says: an MP4 whose sample tables point
/// past the end of the file (a half-copied upload), a Matroska file whose data stops before its stated
/// duration, a container duration that disagrees wildly with the streams. Cheap: MP4/MOV's sample
/// tables (the demuxer's index lists every sample, read from the header: no I/O), else the packets of
/// the file's last few MiB (other containers' indexes are sparse: Matroska's cues name a few keyframes).
struct Extent {
    /// Where each audio/video stream's readable media ends (container µs, origin included), by stream index.
    var readableEndMicro: [Int: Int64]
    /// The streams whose data stops before the index says (sample tables pointing past the end of the file).
    var truncatedStreams: Set<Int>
    /// Why the file's last packet or cluster is cut short, when it is.
    var cutShort: String?
    /// The container states its own length and the file has all of it (a finished Matroska file): then a
    /// duration beyond the data is a wrong duration, not missing data.
    var sizeConfirmed = false

    static let tailBytes: Int64 = 4 << 20

    static func measure(_ input: InputFile, sizeBytes: Int64) -> Extent {
        var extent = Extent(readableEndMicro: [:], truncatedStreams: [], cutShort: nil)
        var unindexed: [Int] = []
        let formatName = FFmpegText.string(input.format.pointee.iformat?.pointee.name) ?? ""
        let sampleTables = formatName.hasPrefix("mov,")
        if formatName.contains("matroska"),
           let expected = ContainerSize.matroskaExpectedBytes(header: ContainerSize.firstBytes(of: input.path)) {
            if expected > sizeBytes {
                extent.cutShort = "it ends \(expected - sizeBytes) bytes before its Segment header says"
            } else {
                extent.sizeConfirmed = true
            }
        } else if formatName == "mpegts", ContainerSize.transportStreamCutShort(sizeBytes: sizeBytes) {
            extent.cutShort = "it ends inside a transport packet"
        }
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), let type = stream.pointee.codecpar?.pointee.codec_type,
                  type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO,
                  stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            if sampleTables, let (end, truncated) = indexed(stream, sizeBytes: sizeBytes) {
                extent.readableEndMicro[index] = end
                if truncated { extent.truncatedStreams.insert(index) }
            } else {
                unindexed.append(index)
            }
        }
        if !unindexed.isEmpty { extent.tail(input, sizeBytes: sizeBytes, streams: Set(unindexed)) }
        return extent
    }

    /// From MP4/MOV's sample tables: where the samples stop, or the first sample whose bytes lie past the
    /// end of the file (its decode time: close enough to say how much can be read).
    private static func indexed(_ stream: UnsafeMutablePointer<AVStream>, sizeBytes: Int64) -> (Int64, Bool)? {
        let entries = avformat_index_get_entries_count(stream)
        guard entries > 1 else { return nil }
        var insideEnd = Int64.min, firstBeyond = Int64.max
        var lastDuration: Int64 = 0, previous = Int64.min
        for position in 0..<entries {
            guard let entry = avformat_index_get_entry(stream, position) else { continue }
            if entry.pointee.flags & AVINDEX_DISCARD_FRAME != 0 { continue }
            let timestamp = entry.pointee.timestamp
            if entry.pointee.pos >= 0, entry.pointee.pos.plus(Int64(entry.pointee.size)) > sizeBytes {
                firstBeyond = min(firstBeyond, timestamp)
            } else {
                if timestamp > insideEnd {
                    if previous != Int64.min, timestamp > previous { lastDuration = timestamp.minus(previous) }
                    insideEnd = timestamp
                }
                previous = timestamp
            }
        }
        if firstBeyond != Int64.max { return (stream.micro(firstBeyond), true) }
        guard insideEnd != Int64.min else { return nil }
        let samplesEnd = insideEnd.plus(max(0, lastDuration))
        // Whole: the stream's own end where it agrees with the samples (FFmpeg applies the edit list), else
        // the samples' (a fragmented file's header can state any duration).
        let start = stream.startTicksOrZero, duration = stream.pointee.duration
        if duration > 0, duration != CAV_NOPTS_VALUE {
            let stated = start.plus(duration)
            let slack = max(stream.ticks(micro: 1_000_000), samplesEnd / 20)
            if stated.minus(samplesEnd).magnitude <= slack.magnitude { return (stream.micro(stated), false) }
        }
        return (stream.micro(samplesEnd), false)
    }

    /// Without sample tables: the packets in the file's last few MiB say where each stream stops; a read
    /// error there means the data is cut short. When it is, each stream's last packet is taken as
    /// incomplete, and so is every frame decoded after it (B-frames shown before it): the media is
    /// readable up to that packet's decode time, as with MP4's first missing sample.
    private mutating func tail(_ input: InputFile, sizeBytes: Int64, streams: Set<Int>) {
        defer { try? input.seekToStart() }
        // A finished Matroska file is entered by time, through its cues: FFmpeg 5.1's Matroska demuxer resyncs a
        // byte seek from the last cluster it parsed, near the file's start, so "the last few MiB" were the whole
        // file (800 MB read to probe a 10-minute 1080p file). Where that finds nothing, or the file is not
        // finished (no cues at its end, perhaps), the bytes are read as before.
        if sizeConfirmed, let target = Self.matroskaTailTime(input),
           av_seek_frame(input.format, -1, target, AVSEEK_FLAG_BACKWARD) >= 0, readTail(input, streams: streams) {
            return
        }
        // MP3 and ADTS hold no timestamps: after a byte seek FFmpeg counts from where it landed (a 1-hour podcast
        // measured 262 s). They are entered by time (the Xing table of contents, or the constant bit rate) instead.
        if sizeBytes > Self.tailBytes, ["mp3", "aac"].contains(FFmpegText.string(input.format.pointee.iformat?.pointee.name) ?? ""),
           input.format.pointee.duration != CAV_NOPTS_VALUE, input.format.pointee.duration > Self.matroskaTailMicro {
            let start = input.format.pointee.start_time == CAV_NOPTS_VALUE ? 0 : input.format.pointee.start_time
            let target = start.plus(input.format.pointee.duration).minus(Self.matroskaTailMicro)
            if av_seek_frame(input.format, -1, target, AVSEEK_FLAG_BACKWARD) >= 0 {
                _ = readTail(input, streams: streams)
                return
            }
        }
        // A small file is read whole (a byte seek to its start can land before the first cluster).
        let positioned = sizeBytes <= Self.tailBytes ? (try? input.seekToStart()) != nil
            : av_seek_frame(input.format, -1, sizeBytes - Self.tailBytes, AVSEEK_FLAG_BYTE) >= 0
        guard positioned else { return }
        _ = readTail(input, streams: streams)
    }

    /// How far before its stated end a finished Matroska file's tail is read from: more than a cluster (a few
    /// seconds) and than any reorder delay.
    static let matroskaTailMicro: Int64 = 10_000_000

    /// Where a Matroska file's tail begins (AV_TIME_BASE, its start included); nil for other containers or
    /// a file without a stated duration.
    private static func matroskaTailTime(_ input: InputFile) -> Int64? {
        let format = input.format.pointee
        guard FFmpegText.string(format.iformat?.pointee.name)?.contains("matroska") == true,
              format.duration != CAV_NOPTS_VALUE, format.duration > 0 else { return nil }
        let start = format.start_time == CAV_NOPTS_VALUE ? 0 : format.start_time
        return max(start, start.plus(format.duration).minus(matroskaTailMicro))
    }

    /// Reads to the end from where the input is: each stream's end from its last packets. False when no packet
    /// of the streams was read (nothing is recorded then).
    private mutating func readTail(_ input: InputFile, streams: Set<Int>) -> Bool {
        guard let packet = try? Packet() else { return false }
        // Each stream's last packets (file order): its end is the latest of them that is not an outlier, so
        // one damaged timestamp (a PES PTS of 2^33 − 1 in a 4 s TS) cannot make a file hours long.
        var recent: [Int: [Int64]] = [:], lastDecodeTimes: [Int: Int64] = [:]
        var readError: String?
        while true {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch {
                readError = "its last packets cannot be read"
                break
            }
            guard result == .packet else { break }
            guard streams.contains(packet.streamIndex), !packet.isDiscarded, let stream = input.stream(packet.streamIndex) else { continue }
            let timing = packet.timing
            guard timing.pts != CAV_NOPTS_VALUE else { continue }
            var window = recent[packet.streamIndex] ?? []
            window.append(stream.micro(timing.pts.plus(max(0, timing.duration))))
            if window.count > Self.recentPackets { window.removeFirst() }
            recent[packet.streamIndex] = window
            lastDecodeTimes[packet.streamIndex] = stream.micro(timing.dts)
        }
        guard !recent.isEmpty || readError != nil else { return false }
        cutShort = cutShort ?? readError
        for (index, window) in recent {
            guard let end = Self.end(of: window) else { continue }
            readableEndMicro[index] = cutShort == nil ? end : min(end, lastDecodeTimes[index] ?? end)
        }
        return true
    }

    /// Packets per stream the end is judged on: more than any reorder delay.
    static let recentPackets = 32

    /// The latest end among a stream's last packets that lies within `outlierMicro` of their median (a
    /// stream's last packets span a second or two; a timestamp far beyond them is damage).
    static let outlierMicro: Int64 = 10_000_000

    static func end(of window: [Int64]) -> Int64? {
        let sorted = window.sorted()
        guard !sorted.isEmpty else { return nil }
        let median = sorted[sorted.count / 2]
        return sorted.last { $0.minus(median) <= outlierMicro }
    }
}
