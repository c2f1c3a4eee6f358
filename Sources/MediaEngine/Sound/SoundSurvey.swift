import CAV

/// Reads what a cut of sound is planned from (`SoundFacts`): the input's main audio stream and the packets around each
/// range's edges — a second or so at each end, never the middle. Packet spans are the decoder's: from the packet's
/// timestamp, its samples before any trimming (Ogg's demuxer gives the last packet's duration already trimmed).
struct SoundSurvey {
    let input: InputFile
    let path: String

    /// Codecs whose decode is the source's samples exactly, so encoding them again loses nothing.
    static func isLossless(_ id: AVCodecID) -> Bool {
        if [AV_CODEC_ID_FLAC, AV_CODEC_ID_ALAC, AV_CODEC_ID_WAVPACK, AV_CODEC_ID_TTA, AV_CODEC_ID_APE, AV_CODEC_ID_TAK, AV_CODEC_ID_MLP,
            AV_CODEC_ID_TRUEHD].contains(id) { return true }
        return Probe.codecName(id).hasPrefix("pcm_")
    }

    /// `readable`: a truncated input's reason and how much of it can be read (seconds).
    func facts(outputName: String, container: SoundContainer, rangesSeconds: [(start: Double, end: Double)],
               readable: (why: String, seconds: Double)? = nil) throws(MediaError) -> (SoundFacts, [SoundPlan.SampleRange]) {
        let index = Int(av_find_best_stream(input.format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0))
        guard index >= 0, let stream = input.stream(index), let parameters = stream.pointee.codecpar?.pointee else {
            throw MediaError(.noAudio, path: path, operation: "av_find_best_stream", reason: "no audio stream to cut into \(outputName)")
        }
        let rate = Int(parameters.sample_rate), base = stream.pointee.time_base
        guard (1...768_000).contains(rate), base.num > 0, base.den > 0 else {
            throw MediaError(.notMedia, path: path, operation: "audio stream", reason: "the audio stream's sample rate (\(rate)) or time base is not valid")
        }
        let samples = AVRational(num: 1, den: Int32(rate)), micro = AVRational(num: 1, den: 1_000_000)
        let originMicro = input.originMicro
        let originSample = av_rescale_q(originMicro, micro, samples)
        var ranges: [SoundPlan.SampleRange] = []
        for range in rangesSeconds {
            guard let start = Micro.from(seconds: range.start), let end = Micro.from(seconds: range.end) else {
                throw MediaError(.invalidRange, path: path, operation: "plan sound", reason: "the range's times are out of bounds")
            }
            ranges.append(SoundPlan.SampleRange(start: originSample.plus(av_rescale_q(start, micro, samples)),
                                                end: originSample.plus(av_rescale_q(end, micro, samples))))
        }
        let id = parameters.codec_id
        var facts = SoundFacts(streamIndex: index, codec: Probe.codecName(id), sampleRate: rate, timeBaseNum: base.num, timeBaseDen: base.den,
                               originSample: originSample, endSample: .max, container: container, outputName: outputName,
                               lossless: Self.isLossless(id), encoders: Self.encoders, edges: [])
        facts.lowComplexity = id != AV_CODEC_ID_AAC || parameters.profile == FF_PROFILE_AAC_LOW || parameters.profile == FF_PROFILE_UNKNOWN
        facts.adts = id == AV_CODEC_ID_AAC && parameters.extradata_size <= 0
        facts.bitRate = parameters.bit_rate
        // `.m4a` is FFmpeg's ipod muxer, which takes fewer codecs than MP4 (no MP3 or Opus).
        facts.containerHolds = container.holds(codec: facts.codec) && (OutputFormat(fileName: outputName)?.canHold(id) ?? false)
        facts.fixedFrame = SoundCopyWriter.fixedFrameSize(stream)
        // FFmpeg's own Vorbis and Opus encoders are experimental: the libraries' are used.
        facts.ownEncoder = id == AV_CODEC_ID_VORBIS ? "libvorbis" : id == AV_CODEC_ID_OPUS ? "libopus"
            : avcodec_find_encoder(id).flatMap { FFmpegText.string($0.pointee.name) }
        facts.originMicro = originMicro
        facts.chapters = Chapters.read(input)
        for other in 0..<input.streamCount where other != index {
            guard let candidate = input.stream(other) else { continue }
            if candidate.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0, facts.coverArtIndex == nil {
                facts.coverArtIndex = other
            } else {
                facts.otherStreams += 1
            }
        }
        // Only the audio is read from here on.
        for other in 0..<input.streamCount where other != index { input.stream(other)?.pointee.discard = AVDISCARD_ALL }
        if let readable, let micro = Micro.from(seconds: readable.seconds) {
            facts.readableEnd = originSample.plus(av_rescale_q(micro, AVRational(num: 1, den: 1_000_000), samples))
            facts.truncation = readable.why
        }
        // Edges are read where the file can be read; the planner says what the range loses.
        let surveyed = ranges.map { range in
            facts.readableEnd.map { SoundPlan.SampleRange(start: range.start, end: min(range.end, max(range.start.plus(1), $0))) } ?? range
        }
        let reader = try reader(index: index, rate: rate, base: base)
        // A join is encoded again: its edges need no survey.
        if surveyed.count == 1, let range = surveyed.first {
            let edges = try reader.edges(of: range, origin: originSample)
            facts.edges = [edges.edges]
            if let end = edges.streamEnd { facts.endSample = end }
        } else if id == AV_CODEC_ID_MP3, container == .mp3 {
            // An MP3 join whose seams alone may be encoded again: every range's edges, in one pass from the start.
            let found = try reader.sequentialEdges(of: surveyed)
            facts.edges = found.edges
            if let end = found.streamEnd { facts.endSample = end }
        } else if id == AV_CODEC_ID_AAC, container == .mp4, !reader.sequential, base.num == 1, base.den == Int32(rate) {
            // A join whose seams alone may be encoded again (`SoundSeamPlanner`): every range's edges.
            for range in surveyed {
                let edges = try reader.edges(of: range, origin: originSample)
                facts.edges.append(edges.edges)
                if let end = edges.streamEnd { facts.endSample = end }
            }
        } else if let last = surveyed.last {
            facts.endSample = try reader.edges(of: last, origin: originSample).streamEnd ?? .max
        }
        return (facts, ranges)
    }

    /// Whether packets of this input are found by reading from its start (MP3, ADTS: no timestamps in the file).
    static func readsFromStart(_ input: InputFile) -> Bool {
        ["mp3", "aac"].contains(FFmpegText.string(input.format.pointee.iformat?.pointee.name) ?? "")
    }

    /// The encoders a plan may choose, where this FFmpeg has them.
    static let encoders: Set<String> = Set(["libmp3lame", "aac", "flac", "libopus", "libvorbis", "pcm_s16le", "pcm_s24le", "pcm_s32le", "pcm_f32le",
                                            "pcm_u8", "pcm_s16be", "pcm_s24be", "pcm_f64le", "alac", "wavpack", "tta"].filter {
        avcodec_find_encoder_by_name($0) != nil
    })

    private func reader(index: Int, rate: Int, base: AVRational) throws(MediaError) -> EdgeReader {
        do { return try EdgeReader(input: input, index: index, rate: rate, base: base) } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "cannot read the audio (\(error.text))")
        }
    }
}

/// Reads the packets of one audio stream around a range's start and end.
private struct EdgeReader {
    let input: InputFile
    let index: Int
    let rate: Int
    let base: AVRational
    let packet: Packet
    let isOgg: Bool
    let isMP3: Bool
    /// MP3 and ADTS files hold no timestamps: FFmpeg times packets after a seek by the bit rate (or a 100-entry table of
    /// contents), so a variable-rate file would be cut in the wrong place. They are read from their start, counted.
    let sequential: Bool
    /// AAC, MP3, AC-3: the samples every packet decodes to (`SoundCopyWriter.fixedFrameSize`).
    let fixedFrame: Int64

    init(input: InputFile, index: Int, rate: Int, base: AVRational) throws(AVFailure) {
        self.input = input
        self.index = index
        self.rate = rate
        self.base = base
        packet = try Packet()
        isOgg = FFmpegText.string(input.format.pointee.iformat?.pointee.name) == "ogg"
        isMP3 = input.stream(index)?.pointee.codecpar?.pointee.codec_id == AV_CODEC_ID_MP3
        fixedFrame = input.stream(index).map(SoundCopyWriter.fixedFrameSize) ?? 0
        sequential = SoundSurvey.readsFromStart(input)
    }

    /// How far before a range's start the head is read: a second, then more where the seek lands late.
    static let margins: [Int64] = [1, 4, 30]

    func edges(of range: SoundPlan.SampleRange, origin: Int64) throws(MediaError) -> (edges: SoundFacts.RangeEdges, streamEnd: Int64?) {
        if sequential { return try sequentialEdges(of: range) }
        var head: [SoundFacts.PacketSpan] = []
        var fromFirst = false
        for margin in Self.margins + [-1] {
            let from = range.start.minus(margin.times(Int64(rate)))
            // Within reach of the stream's start (or every margin fell short): from its first packet.
            fromFirst = margin < 0 || from <= origin
            // A few frames past the start too: where a join's copy resumes after its seam.
            head = try packets(from: fromFirst ? .min : from, until: range.start.plus(4 * max(fixedFrame, 1))).packets
            // Enough when the packet holding the start has 12 before it (Opus's 200 ms of 20 ms packets; 3 MP3 frames).
            if fromFirst || (head.lastIndex(where: { $0.start <= range.start }) ?? 0) >= 12 { break }
        }
        let tail = try packets(from: range.end.minus(Int64(rate)), until: range.end)
        return (SoundFacts.RangeEdges(head: head, tail: tail.packets, headFromFirst: fromFirst), tail.streamEnd)
    }

    /// The packets from the one at or before sample `from` until the first starting after `until`; at the end of the
    /// stream, the sample after its last one too.
    private func packets(from: Int64, until: Int64) throws(MediaError) -> (packets: [SoundFacts.PacketSpan], streamEnd: Int64?) {
        let samples = AVRational(num: 1, den: Int32(rate))
        do {
            if from == .min || sequential { try input.seekToStart() } else {
                try input.seek(streamIndex: index, timestamp: av_rescale_q(from, samples, base))
            }
        } catch {
            try? input.seekToStart()
        }
        var spans: [SoundFacts.PacketSpan] = []
        var next: Int64?
        var lastTrim: Int64 = 0
        while let span = try nextSpan(after: &next, trim: &lastTrim) {
            if span.start > until, !spans.isEmpty { return (spans, nil) }
            if span.end <= from, !spans.isEmpty { spans.removeAll() }
            spans.append(span)
        }
        return (spans, spans.last.map { $0.end.minus(lastTrim) })
    }

    /// Read from the start in one pass (MP3, ADTS): the last packets up to the one holding the start, and those up to
    /// the one holding the end.
    private func sequentialEdges(of range: SoundPlan.SampleRange) throws(MediaError) -> (edges: SoundFacts.RangeEdges, streamEnd: Int64?) {
        do { try input.seekToStart() } catch {
            throw MediaError(.decodeFailed, path: input.path, operation: error.operation, reason: "cannot read the audio (\(error.text))")
        }
        let kept = 64
        var head: [SoundFacts.PacketSpan] = [], tail: [SoundFacts.PacketSpan] = []
        var next: Int64?, lastTrim: Int64 = 0, beforeStart = 0
        while let span = try nextSpan(after: &next, trim: &lastTrim) {
            if span.start <= range.start {
                head.append(span)
                beforeStart += 1
                if head.count > 2 * kept { head.removeFirst(kept) }
            }
            if span.start > range.end { return (SoundFacts.RangeEdges(head: head, tail: tail, headFromFirst: beforeStart == head.count), nil) }
            tail.append(span)
            if tail.count > 2 * kept { tail.removeFirst(kept) }
        }
        return (SoundFacts.RangeEdges(head: head, tail: tail, headFromFirst: beforeStart == head.count), tail.last.map { $0.end.minus(lastTrim) })
    }

    /// Several ranges' edges in one pass from the start (an MP3 join): each range's packets up to a few frames after its
    /// start (where its copy resumes after a seam) and up to its end.
    func sequentialEdges(of ranges: [SoundPlan.SampleRange]) throws(MediaError) -> (edges: [SoundFacts.RangeEdges], streamEnd: Int64?) {
        do { try input.seekToStart() } catch {
            throw MediaError(.decodeFailed, path: input.path, operation: error.operation, reason: "cannot read the audio (\(error.text))")
        }
        let kept = 64, after = 4 * max(fixedFrame, 1)
        var recent: [SoundFacts.PacketSpan] = []
        var heads = [[SoundFacts.PacketSpan]?](repeating: nil, count: ranges.count)
        var tails = [[SoundFacts.PacketSpan]?](repeating: nil, count: ranges.count)
        var next: Int64?, lastTrim: Int64 = 0, read = 0
        var firsts = [Bool](repeating: false, count: ranges.count)
        while let span = try nextSpan(after: &next, trim: &lastTrim) {
            for (index, range) in ranges.enumerated() {
                if heads[index] == nil, span.start > range.start.plus(after) { heads[index] = recent; firsts[index] = read == recent.count }
                if tails[index] == nil, span.start > range.end { tails[index] = recent }
            }
            if tails.last.map({ $0 != nil }) == true { break }
            recent.append(span)
            read += 1
            if recent.count > 2 * kept { recent.removeFirst(kept) }
        }
        let end = tails.last.map { $0 == nil } == true ? recent.last.map { $0.end.minus(lastTrim) } : nil
        let edges = ranges.indices.map { index in
            SoundFacts.RangeEdges(head: heads[index] ?? recent, tail: tails[index] ?? recent,
                                  headFromFirst: heads[index] == nil ? read == recent.count : firsts[index])
        }
        return (edges, end)
    }

    /// The next packet of the stream as a span (its samples before any trimming); nil at the end of the file.
    private func nextSpan(after next: inout Int64?, trim lastTrim: inout Int64) throws(MediaError) -> SoundFacts.PacketSpan? {
        let samples = AVRational(num: 1, den: Int32(rate))
        while true {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch {
                throw MediaError(.decodeFailed, path: input.path, operation: error.operation, reason: "cannot read the audio (\(error.text))")
            }
            guard result == .packet else { return nil }
            guard packet.streamIndex == index, packet.duration > 0 else { continue }
            let pts = packet.pts != CAV_NOPTS_VALUE ? av_rescale_q(packet.pts, base, samples) : next ?? 0
            var count = av_rescale_q(packet.duration, base, samples)
            // Ogg gives the last packet's duration trimmed already; its decoder gives the whole packet.
            let trim = trimmedAtEnd
            if isOgg { count = count.plus(trim) }
            if fixedFrame > 0 { count = fixedFrame }
            next = pts.plus(count)
            lastTrim = trim
            var span = SoundFacts.PacketSpan(pts: packet.pts != CAV_NOPTS_VALUE ? packet.pts : av_rescale_q(pts, samples, base), start: pts, count: count)
            span.position = packet.pointer.pointee.pos
            if isMP3 { packet.withData { (span.reservoirBytes, span.mainDataBytes) = MP3Frame.reservoir($0) } }
            return span
        }
    }

    /// The samples the packet just read says to drop at its end (`AV_PKT_DATA_SKIP_SAMPLES`).
    private var trimmedAtEnd: Int64 {
        var size = 0
        guard let data = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return 0 }
        let value = UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24
        return Int64(min(value, 1 << 20))
    }
}
