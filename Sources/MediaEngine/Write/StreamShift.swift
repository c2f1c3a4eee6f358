import CAV

/// A manifest cut's edge put back on its source's timeline: the cut (written from 0, as every cut) copied into an
/// MPEG-TS whose every timestamp is moved by one amount — the first frame shown where the source shows it, decode
/// times with the same delay — and whose streams keep the source's PIDs, so a player goes from the edge to the
/// source's next segment, and back, as through the source.
public enum StreamShift {
    /// The first video frame's presentation time in the file at `path` (its own ticks), and the stream's time base.
    /// `name`: what errors name (the input; nil: `path`).
    public static func firstVideoTime(path: String, naming name: String? = nil) throws(MediaError) -> (ticks: Int64, timeBase: Rational) {
        let input = try InputFile.open(path, naming: name ?? path)
        guard let index = VideoStreamChoice.best(in: input), let stream = input.stream(index) else {
            throw MediaError(.noVideo, path: name ?? path, operation: "edge", reason: "has no video stream")
        }
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        var earliest: Int64?
        // The first frame shown is among the first few decoded (a reorder window).
        var seen = 0
        while seen < 16, (try? input.read(into: packet)) == .packet {
            guard packet.streamIndex == index, packet.pts != CAV_NOPTS_VALUE else { continue }
            earliest = min(earliest ?? packet.pts, packet.pts)
            seen += 1
        }
        guard let earliest else { throw MediaError(.decodeFailed, path: name ?? path, operation: "edge", reason: "its video has no timestamps") }
        return (earliest, Rational(Int(stream.pointee.time_base.num), Int(stream.pointee.time_base.den)))
    }

    /// The PIDs (stream ids) of the file's video and audio streams, in stream order.
    public static func streamIDs(path: String, naming name: String? = nil) throws(MediaError) -> (video: Int32?, audio: [Int32]) {
        let input = try InputFile.open(path, naming: name ?? path, analyze: false)
        var video: Int32?, audio: [Int32] = []
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), let parameters = stream.pointee.codecpar else { continue }
            if parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO, video == nil { video = stream.pointee.id }
            if parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO { audio.append(stream.pointee.id) }
        }
        return (video, audio)
    }

    /// The edge `path`'s video, its timestamps moved by `ticks` of `timeBase`, and the source's own sound from the file
    /// `source` (the spool of the edge's segments, on the source's clock) — its packets from the one playing at
    /// `soundFromMicro` to the last starting before `soundToMicro` (container µs; nil: from the first, to the last) —
    /// written into the MPEG-TS `output` with the source's PIDs. The source's packets, not the cut's: the sound then
    /// runs into the source's next segment, and from its previous one, without a hole. `name` is what errors name.
    /// Returns the source's streams the edge leaves out (`leftOut`).
    @discardableResult
    public static func write(edge path: String, source: String, into output: String, by ticks: Int64, of timeBase: Rational,
                             soundFromMicro: Int64?, soundToMicro: Int64?, name: String) throws(MediaError) -> [String] {
        let edge = try InputFile.open(path, naming: name), sound = try InputFile.open(source, naming: name)
        let ids = try streamIDs(path: source, naming: name)
        guard let videoIndex = VideoStreamChoice.best(in: edge), let video = edge.stream(videoIndex) else {
            throw MediaError(.noVideo, path: name, operation: "edge", reason: "the edge has no video stream")
        }
        let audioIndex = (0..<sound.streamCount).first { sound.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        do throws(AVFailure) {
            let file = try OutputFile(temporaryPath: output, finalName: "edge.ts")
            let videoCopy = try file.addCopy(of: video)
            if let id = ids.video { videoCopy.pointee.id = id }
            if let audioIndex, let audio = sound.stream(audioIndex) {
                let audioCopy = try file.addCopy(of: audio)
                if let id = ids.audio.first { audioCopy.pointee.id = id }
            }
            try file.writeHeader()
            let shiftBase = AVRational(num: Int32(clamping: timeBase.numerator), den: Int32(clamping: max(1, timeBase.denominator)))
            let videoShift = av_rescale_q(ticks, shiftBase, video.pointee.time_base)
            var videoPackets = PacketQueue(input: edge, index: videoIndex, shift: videoShift, window: nil)
            var soundPackets = PacketQueue(input: sound, index: audioIndex, shift: 0, window: (soundFromMicro, soundToMicro))
            try interleave(&videoPackets, &soundPackets, into: file)
            try file.finish()
        } catch {
            throw MediaError(.writeFailed, path: name, operation: error.operation, reason: "cannot put the edge on the source's timeline (\(error.text))")
        }
        return leftOut(sound, video: VideoStreamChoice.best(in: sound), audio: audioIndex)
    }

    /// The source's streams an edge does not carry — all but its video and first sound (a second sound track, timed
    /// metadata, captions) — each as `#index (type, codec)`, for a warning: the reused segments keep them, the edges not.
    static func leftOut(_ source: InputFile, video: Int?, audio: Int?) -> [String] {
        (0..<source.streamCount).compactMap { index in
            guard index != video, index != audio, let parameters = source.stream(index)?.pointee.codecpar else { return nil }
            let kind = av_get_media_type_string(parameters.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            let codec = avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            return "#\(index) (\(kind), \(codec))"
        }
    }
}

extension StreamShift {
    /// Writes both queues into `file` (video as stream 0, sound as 1) in decode-time order.
    static func interleave(_ video: inout PacketQueue, _ sound: inout PacketQueue, into file: OutputFile) throws(AVFailure) {
        while true {
            let nextVideo = try video.peek(), nextSound = try sound.peek()
            let takeVideo: Bool
            switch (nextVideo, nextSound) {
            case (nil, nil): return
            case (_?, nil): takeVideo = true
            case (nil, _?): takeVideo = false
            case let (first?, second?): takeVideo = first.micro <= second.micro
            }
            if takeVideo, let packet = video.take() {
                try file.write(packet, stream: 0, timeBase: video.timeBase)
            } else if let packet = sound.take() {
                try file.write(packet, stream: 1, timeBase: sound.timeBase)
            }
        }
    }
}

/// One stream's packets in file order, their timestamps mapped (`retime`, into `timeBase`), inside a window of the
/// input's presentation time (µs): a packet is in it when it is still playing at its start and starts before its end.
struct PacketQueue {
    let input: InputFile
    let index: Int?
    let window: (from: Int64?, to: Int64?)?
    /// The time base the mapped timestamps are in.
    let timeBase: AVRational
    let retime: (Packet) -> Void
    private var pending: (packet: Packet, micro: Int64)?
    private var done = false

    init(input: InputFile, index: Int?, window: (from: Int64?, to: Int64?)?, timeBase: AVRational, retime: @escaping (Packet) -> Void) {
        self.input = input
        self.index = index
        self.window = window
        self.timeBase = timeBase
        self.retime = retime
        done = index == nil
    }

    /// Moved by `ticks` of the stream's own time base.
    init(input: InputFile, index: Int?, shift ticks: Int64, window: (from: Int64?, to: Int64?)?) {
        let timeBase = index.flatMap { input.stream($0)?.pointee.time_base } ?? AVRational(num: 1, den: 1)
        self.init(input: input, index: index, window: window, timeBase: timeBase) { packet in
            if packet.pts != CAV_NOPTS_VALUE { packet.pointer.pointee.pts = packet.pts.plus(ticks) }
            if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts = packet.dts.plus(ticks) }
        }
    }

    /// The next packet and its mapped decode time (µs), without taking it.
    mutating func peek() throws(AVFailure) -> (packet: Packet, micro: Int64)? {
        if let pending { return pending }
        guard !done, let index, let stream = input.stream(index) else { return nil }
        while true {
            let packet = try Packet()
            guard try input.read(into: packet) == .packet else { done = true; return nil }
            guard packet.streamIndex == index, packet.pts != CAV_NOPTS_VALUE else { continue }
            let start = stream.micro(packet.pts), end = stream.micro(packet.pts.plus(max(packet.duration, 0)))
            if let from = window?.from, end <= from { continue }
            if let to = window?.to, start >= to { done = true; return nil }
            retime(packet)
            let decode = packet.dts != CAV_NOPTS_VALUE ? packet.dts : packet.pts
            pending = (packet, av_rescale_q(decode, timeBase, cav_time_base_q()))
            return pending
        }
    }

    mutating func take() -> Packet? {
        defer { pending = nil }
        return pending?.packet
    }
}
