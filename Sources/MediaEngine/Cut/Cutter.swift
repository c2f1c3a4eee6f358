import CAV

/// What to cut: a range on the source's presentation timeline (seconds, 0 = container start).
public struct CutSpec: Sendable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var mode: CutPlan.Mode
    /// Exact mode: encoder quality (CRF) and speed preset.
    public var crf: Int
    public var preset: String
    public var encoderThreads: Int
    /// Checked as packets go by: true stops the cut (an interrupt).
    public var shouldStop: @Sendable () -> Bool
    /// Called with the fraction of the range written so far.
    public var progress: (@Sendable (Double) -> Void)?

    public init(startSeconds: Double, endSeconds: Double, mode: CutPlan.Mode, crf: Int = 20, preset: String = "veryfast",
                encoderThreads: Int = 0, shouldStop: @escaping @Sendable () -> Bool = { false },
                progress: (@Sendable (Double) -> Void)? = nil) {
        self.shouldStop = shouldStop
        self.progress = progress
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.mode = mode
        self.crf = crf
        self.preset = preset
        self.encoderThreads = encoderThreads
    }
}

/// The plan as it will run (also what `--dry-run` prints). Seconds on the source's timeline.
public struct CutReport: Sendable {
    public var mode: CutPlan.Mode
    public var keyframeSeconds: Double?
    public var presentedStartSeconds: Double
    /// The expected presented end: `end` for an exact cut; for a stream copy the end of the last frame
    /// kept (frames that B-frames before `end` depend on run a little past it). Nil until measured.
    public var presentedEndSeconds: Double?
    public var preRollSeconds: Double
    /// Subtracted from source times to get output times.
    public var shiftSeconds: Double
    public var encoder: String?
    public var notes: [String] = []
    public var warnings: [MediaWarning] = []
    public var streamsKept: [Int] = []
    /// For a smart cut: what is re-encoded and what is copied.
    public var smart: SmartCutSummary?
}

/// `vtrim cut` on one file: opened and probed once, then planned from the packets and written by
/// stream copy (copy/keyframe) or with the video re-encoded (exact). Not for use across threads.
public final class CutSource {
    public let info: MediaInfo
    let input: InputFile

    public init(path: String) throws(MediaError) {
        let size = try InputCheck.regularFile(path)
        input = try InputFile(path: path)
        info = try Probe.inspect(input, sizeBytes: size)
    }

    /// The plan without writing (`--dry-run`), with the expected end from the packets.
    public func plan(_ spec: CutSpec, finalName: String) throws(MediaError) -> CutReport {
        let context = try CutContext(input: input, path: info.path, spec: spec, finalName: finalName, temporaryPath: nil)
        var report = context.report
        report.presentedEndSeconds = try context.scanPresentedEnd()
        return report
    }

    /// Writes the cut into `temporaryPath`, the muxer chosen from `finalName`.
    public func cut(_ spec: CutSpec, temporaryPath: String, finalName: String) throws(MediaError) -> CutReport {
        let context = try CutContext(input: input, path: info.path, spec: spec, finalName: finalName, temporaryPath: temporaryPath)
        return try context.run()
    }
}

public enum Cutter {
    /// Whether FFmpeg has a muxer for this output name (its extension).
    public static func canWrite(fileName: String) -> Bool {
        av_guess_format(nil, fileName, nil) != nil
    }
}

/// One cut of one file: the input, the chosen streams, the plan, and the output being written.
private final class CutContext {
    let path: String
    let spec: CutSpec
    let input: InputFile
    let output: OutputFile
    let videoIndex: Int?
    var streams: CutStreams
    let plan: CutPlan?
    var smartPlan: SmartCutPlan?
    var report: CutReport
    /// Container-level µs of the source's timeline origin.
    let originMicro: Int64
    let startMicro: Int64
    let endMicro: Int64
    let shiftMicro: Int64

    init(input: InputFile, path: String, spec: CutSpec, finalName: String, temporaryPath: String?) throws(MediaError) {
        self.path = path
        self.spec = spec
        self.input = input
        do {
            output = try OutputFile(temporaryPath: temporaryPath ?? "/dev/null", finalName: finalName)
        } catch {
            throw MediaError(.writeFailed, path: path, operation: error.operation,
                             reason: "no muxer for the output name \(finalName) (\(error.text))")
        }
        let format = input.format.pointee
        originMicro = format.start_time == CAV_NOPTS_VALUE ? 0 : format.start_time
        // A damaged header can claim a start time near Int64's limits: refuse rather than overflow.
        let start = originMicro.addingReportingOverflow(Int64((spec.startSeconds * Double(AV_TIME_BASE)).rounded()))
        let end = originMicro.addingReportingOverflow(Int64((spec.endSeconds * Double(AV_TIME_BASE)).rounded()))
        guard !start.overflow, !end.overflow, end.partialValue < Int64.max / 4 else {
            throw MediaError(.notMedia, path: path, operation: "plan cut",
                             reason: "the file claims a start time (\(originMicro) µs) too large to cut from")
        }
        startMicro = start.partialValue
        endMicro = end.partialValue

        var video = VideoStreamChoice.best(in: input)
        var mode = spec.mode
        var notes: [String] = []
        var pendingWarnings: [MediaWarning] = []
        if let index = video, let parameters = input.stream(index)?.pointee.codecpar?.pointee {
            let reencodes = mode == .exact || mode == .smart
            if reencodes, Int(parameters.width) * Int(parameters.height) > Limits.maximumPixels {
                throw MediaError(.tooLarge, path: path, operation: "picture size",
                                 reason: "its picture is \(parameters.width)x\(parameters.height), larger than vtrim decodes (\(Limits.maximumSideText)); use --mode copy")
            }
            if reencodes, avcodec_find_decoder(parameters.codec_id) == nil {
                throw MediaError(.unsupportedCodec, path: path, operation: "avcodec_find_decoder",
                                 reason: "this FFmpeg cannot decode the video (\(Probe.codecName(parameters.codec_id))), so it cannot be cut exactly; use --mode copy")
            }
            if mode != .exact, !output.canHold(parameters.codec_id) {
                if mode == .smart {
                    throw MediaError(.unsupportedCodec, path: path, operation: "avformat_query_codec",
                                     reason: "\(output.formatName) cannot hold \(Probe.codecName(parameters.codec_id)) video; keep the container or use --mode exact")
                }
                throw MediaError(.unsupportedCodec, path: path, operation: "avformat_query_codec",
                                 reason: "\(output.formatName) cannot hold \(Probe.codecName(parameters.codec_id)) video without re-encoding; keep the container or use --mode exact")
            }
        } else {
            video = nil
            if mode == .exact || mode == .smart {
                mode = .copy
                notes.append("no video stream: audio is cut by stream copy")
            }
        }
        videoIndex = video
        streams = CutStreams.choose(input: input, video: video, output: output)
        if streams.kept.isEmpty {
            throw MediaError(.noVideo, path: path, operation: "streams", reason: "has no video or audio stream to cut")
        }
        notes += streams.notes

        var orientationNote: String?
        if let index = video, let stream = input.stream(index) {
            var ignored: [MediaWarning] = []
            let orientation = Probe.readOrientation(stream, warnings: &ignored)
            if orientation != .upright, !output.carriesDisplayMatrix {
                if mode != .exact, mode != .smart {
                    throw MediaError(.unsupportedContainer, path: path, operation: "orientation",
                                     reason: "\(output.formatName) cannot carry the video's orientation (rotated \(orientation.rotationDegrees)°\(orientation.mirrored ? ", mirrored" : "")) in a stream copy; keep the container or use --mode exact, which turns the picture")
                }
                orientationNote = "the picture is turned upright while re-encoding (\(output.formatName) cannot carry a display matrix)"
            }
        }
        if let orientationNote { notes.append(orientationNote) }

        // Plan the start from the packets around it.
        if let index = video, let stream = input.stream(index) {
            let timeBase = stream.pointee.time_base
            let startTicks = StreamTime.startTicks(startMicro, timeBase)
            let packets = try Self.packets(before: startTicks, stream: index, input: input, path: path)
            guard var made = CutPlan.make(packets: packets, start: startTicks, mode: mode, editLists: output.supportsEditLists) else {
                throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "no keyframe found in the video to start from")
            }
            if made.presentedStart >= StreamTime.endTicks(endMicro, timeBase) {
                let first = Double(av_rescale_q(made.keyframe.pts, timeBase, cav_time_base_q()) - originMicro) / Double(AV_TIME_BASE)
                throw MediaError(.invalidRange, path: path, operation: "plan",
                                 reason: "no video starts in \(FrameSampler.text(spec.startSeconds))–\(FrameSampler.text(spec.endSeconds)) s: the first keyframe from there is at \(FrameSampler.text(first)) s")
            }
            var smartWarning: MediaWarning?
            if mode == .smart, let parameters = stream.pointee.codecpar?.pointee {
                let endTicks = StreamTime.endTicks(endMicro, timeBase)
                var reason = SmartEncoding.refusal(parameters, output: output)
                if reason == nil {
                    let scanned = try Self.smartPackets(from: made.keyframe, to: endTicks, stream: index, input: input, path: path)
                    // Frames the source's edit list hides at its end are not shown, so the cut ends before them.
                    let shownEnd = min(endTicks, scanned.hiddenFrom ?? .max)
                    switch SmartCutPlan.make(packets: scanned.packets, clean: scanned.clean, start: startTicks, end: shownEnd,
                                             reachesEndOfStream: scanned.endOfStream) {
                    case let .success(smart):
                        if let name = SmartEncoding.encoder(for: parameters.codec_id) {
                            reason = SegmentEncoder.trialRefusal(name: name, source: parameters, stream: stream, crf: spec.crf,
                                                                preset: spec.preset)
                        }
                        if reason == nil { smartPlan = smart }
                    case let .failure(fallback): reason = fallback.description
                    }
                }
                if let reason {
                    mode = .exact
                    made = CutPlan.make(packets: packets, start: startTicks, mode: .exact, editLists: output.supportsEditLists) ?? made
                    smartWarning = MediaWarning(code: "smart_fallback", message: "cut exactly instead of smartly: \(reason)")
                }
            }
            plan = made
            shiftMicro = av_rescale_q(made.shift, timeBase, cav_time_base_q())
            let origin = originMicro
            let seconds = { (ticks: Int64) in Double(av_rescale_q(ticks, timeBase, cav_time_base_q()) - origin) / Double(AV_TIME_BASE) }
            report = CutReport(mode: mode, keyframeSeconds: seconds(made.keyframe.pts),
                               presentedStartSeconds: seconds(made.presentedStart),
                               presentedEndSeconds: nil, preRollSeconds: seconds(made.presentedStart) - seconds(made.keyframe.pts),
                               shiftSeconds: Double(shiftMicro - originMicro) / Double(AV_TIME_BASE))
            if made.startsAfterRequest {
                notes.append("no keyframe at or before \(FrameSampler.text(spec.startSeconds)) s: the video starts at the first keyframe, \(FrameSampler.text(seconds(made.keyframe.pts))) s")
            }
            switch mode {
            case .copy where output.supportsEditLists && !made.startsAfterRequest:
                if made.presentedStart != made.keyframe.pts {
                    notes.append("stream copy from the keyframe at \(FrameSampler.text(seconds(made.keyframe.pts))) s; an edit list hides the \(FrameSampler.text(report.preRollSeconds)) s lead-in, so players that honour it start with the frame shown at \(FrameSampler.text(spec.startSeconds)) s (\(FrameSampler.text(seconds(made.presentedStart))) s)")
                }
            case .copy:
                if made.presentedStart > startTicks || made.keyframe.pts < startTicks {
                    notes.append("\(output.formatName) has no edit lists: the output starts at the keyframe at \(FrameSampler.text(seconds(made.keyframe.pts))) s, \(FrameSampler.text(max(0, spec.startSeconds - seconds(made.keyframe.pts)))) s before --start")
                }
            case .keyframe:
                notes.append("starts at the keyframe at \(FrameSampler.text(seconds(made.keyframe.pts))) s (lead-in shown, no edit list)")
            case .exact, .smart:
                break
            }
            if let smartPlan {
                // Ends as asked (the plan's end ticks round up to the stream's grid).
                func time(_ ticks: Int64) -> Double { min(seconds(ticks), spec.endSeconds) }
                func span(_ from: Double, _ to: Double) -> ClosedRange<Double> { min(from, to)...max(from, to) }
                let copiedUntil = smartPlan.tailStart ?? (smartPlan.copiesToEnd ? smartPlan.end : smartPlan.copyEnd.pts)
                report.smart = SmartCutSummary(
                    headSeconds: smartPlan.hasHead ? span(time(smartPlan.frameAtStart), time(smartPlan.firstCopied.pts)) : nil,
                    copiedSeconds: span(time(smartPlan.firstCopied.pts), time(copiedUntil)),
                    tailSeconds: smartPlan.tailStart.map { span(time($0), time(smartPlan.end)) },
                    firstCopiedKeyframeSeconds: seconds(smartPlan.firstCopied.pts), lastKeyframeSeconds: seconds(smartPlan.copyEnd.pts),
                    sampleEntry: stream.pointee.codecpar?.pointee.codec_id == AV_CODEC_ID_HEVC ? "hev1" : "avc3")
            }
            if let smartWarning { pendingWarnings.append(smartWarning) }
        } else {
            plan = nil
            shiftMicro = startMicro
            report = CutReport(mode: mode, keyframeSeconds: nil, presentedStartSeconds: spec.startSeconds, presentedEndSeconds: nil,
                               preRollSeconds: 0, shiftSeconds: spec.startSeconds)
        }
        report.notes = notes
        report.warnings = streams.warnings + pendingWarnings
        report.streamsKept = streams.kept.map(\.input)
    }

    /// Video packets (decode order) from a keyframe before `start` until every frame shown at or
    /// before `start` has been seen; further back, or to the first keyframe after, when needed.
    static func packets(before start: Int64, stream index: Int, input: InputFile, path: String) throws(MediaError) -> [CutPlan.VideoPacket] {
        guard let stream = input.stream(index) else { return [] }
        let second = av_rescale_q(1, AVRational(num: 1, den: 1), stream.pointee.time_base)
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        var backoff: Int64 = 0
        for attempt in 0..<4 {
            let fromStart = attempt == 3
            do {
                if fromStart {
                    try input.seek(streamIndex: index, timestamp: Int64.min + 1)
                } else {
                    try input.seek(streamIndex: index, timestamp: start - backoff)
                }
            } catch {
                if !fromStart { backoff = backoff == 0 ? 2 * second : backoff * 4; continue }
            }
            var collected: [CutPlan.VideoPacket] = []
            var sawKeyframeAfter = false
            while true {
                let result: InputFile.ReadResult
                do { result = try input.read(into: packet) } catch { break }
                if result == .endOfFile { break }
                guard packet.streamIndex == index else { continue }
                let pts = packet.pts != CAV_NOPTS_VALUE ? packet.pts : packet.dts
                let dts = packet.dts != CAV_NOPTS_VALUE ? packet.dts : pts
                guard pts != CAV_NOPTS_VALUE else { continue }
                collected.append(CutPlan.VideoPacket(pts: pts, dts: dts, duration: packet.duration, isKeyframe: packet.isKeyframe))
                if dts > start {
                    if collected.contains(where: { $0.isKeyframe && $0.pts <= start }) { break }
                    if packet.isKeyframe { sawKeyframeAfter = true }
                    if sawKeyframeAfter && fromStart { break }
                    if dts > start + 30 * second && !fromStart { break }
                }
            }
            if collected.contains(where: { $0.isKeyframe && $0.pts <= start }) || (fromStart && !collected.isEmpty) {
                return collected
            }
            backoff = backoff == 0 ? 2 * second : backoff * 4
        }
        return []
    }

    /// Video packets (decode order, with whether each keyframe is a clean random-access point) from the
    /// keyframe to past `end`: through the first keyframe at or after `end` and the group after it.
    static func smartPackets(from keyframe: CutPlan.VideoPacket, to end: Int64, stream index: Int, input: InputFile,
                             path: String) throws(MediaError) -> (packets: [CutPlan.VideoPacket], clean: [Bool], endOfStream: Bool, hiddenFrom: Int64?) {
        guard let stream = input.stream(index), let parameters = stream.pointee.codecpar?.pointee,
              let extradata = parameters.extradata else { return ([], [], false, nil) }
        let codec: NALUnits.Codec = parameters.codec_id == AV_CODEC_ID_HEVC ? .hevc : .h264
        let record = Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.extradata_size)))
        let lengthSize = NALUnits.configuration(record, codec: codec)?.lengthSize ?? 4
        let past = end.addingReportingOverflow(av_rescale_q(30, AVRational(num: 1, den: 1), stream.pointee.time_base))
        let limit = past.overflow ? Int64.max : past.partialValue
        var packets: [CutPlan.VideoPacket] = [], clean: [Bool] = []
        var endOfStream = true
        var hiddenFrom: Int64?
        do {
            try input.seek(streamIndex: index, timestamp: keyframe.pts)
            let packet = try Packet()
            var started = false, keyframesAfterEnd = 0
            while try input.read(into: packet) == .packet {
                guard packet.streamIndex == index else { continue }
                let timing = packet.timing
                if !started {
                    guard packet.isKeyframe, timing.pts == keyframe.pts else { continue }
                    started = true
                }
                if packet.isKeyframe, timing.pts >= end {
                    keyframesAfterEnd += 1
                    if keyframesAfterEnd > 1 { endOfStream = false; break }
                }
                if timing.dts > limit { endOfStream = false; break }
                packets.append(timing)
                if packet.isDiscarded, timing.pts > keyframe.pts { hiddenFrom = min(hiddenFrom ?? .max, timing.pts) }
                var isClean = false
                if packet.isKeyframe, let units = NALUnits.splitLengthPrefixed(packet.bytes, lengthSize: lengthSize) {
                    isClean = NALUnits.isInstantaneousRefresh(units, codec: codec) || NALUnits.isCleanRandomAccessCandidate(units, codec: codec)
                }
                clean.append(isClean)
            }
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "cannot read the packets (\(error.text))")
        }
        return (packets, clean, endOfStream, hiddenFrom)
    }

    /// Dry run: the end of the last video frame a stream copy keeps (dts before `end`), or `end`.
    func scanPresentedEnd() throws(MediaError) -> Double {
        guard report.mode == .copy || report.mode == .keyframe, let index = videoIndex, let stream = input.stream(index), let plan else {
            return spec.endSeconds
        }
        let timeBase = stream.pointee.time_base
        let endTicks = StreamTime.endTicks(endMicro, timeBase)
        do {
            try input.seek(streamIndex: index, timestamp: plan.keyframe.pts)
            let packet = try Packet()
            var tail = CopyTail<Void>(end: endTicks)
            var started = false
            while try input.read(into: packet) == .packet {
                guard packet.streamIndex == index else { continue }
                let timing = packet.timing
                if !started {
                    guard packet.isKeyframe, timing.pts == plan.keyframe.pts else { continue }
                    started = true
                }
                if timing.pts < plan.keyframe.pts { continue }
                if tail.offer(timing, ()) == nil { break }
            }
            _ = tail.finish()
            let latest = tail.latestEnd
            guard latest != Int64.min else { return spec.endSeconds }
            return Double(av_rescale_q(latest, timeBase, cav_time_base_q()) - originMicro) / Double(AV_TIME_BASE)
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "cannot read the packets (\(error.text))")
        }
    }

    func run() throws(MediaError) -> CutReport {
        do {
            return try write()
        } catch let error as MediaError {
            throw error
        } catch let failure as AVFailure {
            let isWrite = ["avio_open", "avformat_write_header", "av_interleaved_write_frame", "av_write_trailer", "avio_closep", "avio_flush"].contains(failure.operation)
            throw MediaError(isWrite ? .writeFailed : .decodeFailed, path: path, operation: failure.operation,
                             reason: isWrite ? "cannot write the output (\(failure.text))" : "\(failure.operation) failed (\(failure.text))")
        } catch {
            throw MediaError(.writeFailed, path: path, operation: "cut", reason: "\(error)")
        }
    }

    private func write() throws -> CutReport {
        output.copyContainerMetadata(from: input)
        var videoSink: VideoSink?
        for position in streams.kept.indices {
            let kept = streams.kept[position]
            guard let stream = input.stream(kept.input) else { continue }
            if kept.kind == .video, report.mode == .smart, let plan, let smartPlan, let parameters = stream.pointee.codecpar?.pointee,
               let encoder = SmartEncoding.encoder(for: parameters.codec_id) {
                let sink = try SmartVideoSink(input: input, stream: stream, output: output, plan: plan, smart: smartPlan,
                                              spec: spec, encoderName: encoder)
                streams.kept[position].output = sink.outputIndex
                report.encoder = encoder
                videoSink = sink
            } else if kept.kind == .video, report.mode == .exact, let plan {
                let encoderSink = try EncodingVideoSink(input: input, stream: stream, output: output, plan: plan,
                                                        startMicro: startMicro, endMicro: endMicro, spec: spec, path: path)
                streams.kept[position].output = encoderSink.outputIndex
                report.encoder = encoderSink.encoderName
                videoSink = encoderSink
            } else {
                let copy = try output.addCopy(of: stream)
                streams.kept[position].output = Int(copy.pointee.index)
                if kept.kind == .video, let plan {
                    videoSink = CopyVideoSink(output: output, outputIndex: Int(copy.pointee.index), stream: stream, plan: plan,
                                              endTicks: StreamTime.endTicks(endMicro, stream.pointee.time_base))
                }
            }
        }
        try output.writeHeader()
        var buffered: [Packet] = []
        if let plan, let index = videoIndex {
            buffered = try positioned(at: plan.keyframe, stream: index)
        } else if let first = streams.kept.first, let stream = input.stream(first.input) {
            try input.seek(streamIndex: first.input, timestamp: av_rescale_q(startMicro, cav_time_base_q(), stream.pointee.time_base))
        }
        let editLists = output.supportsEditLists
        // Audio and subtitles: from the presented start (or, with an edit list, the packet that spans it)
        // to the end of the video actually kept.
        let lowerMicro = report.mode == .exact ? startMicro : originMicro + Int64((report.presentedStartSeconds * Double(AV_TIME_BASE)).rounded())
        var companions = CompanionTracks(streams: streams.kept.filter { $0.kind != .video }, input: input, output: output,
                                         shiftMicro: shiftMicro, lowerMicro: lowerMicro, trimsWithEditList: editLists,
                                         provisionalEndMicro: endMicro)
        let reader = try Packet()
        var videoEndMicro: Int64? = videoSink == nil ? endMicro : nil
        buffered.reverse()
        while true {
            if let end = videoEndMicro, companions.allDone(after: end) { break }
            let packet: Packet
            if let next = buffered.popLast() {
                packet = next
            } else {
                guard try input.read(into: reader) == .packet else { break }
                packet = reader
            }
            if spec.shouldStop() {
                throw MediaError(.interrupted, path: path, operation: "signal", reason: "interrupted; nothing written")
            }
            if let progress = spec.progress, packet.streamIndex == videoIndex, packet.pts != CAV_NOPTS_VALUE,
               let stream = input.stream(packet.streamIndex) {
                let micro = av_rescale_q(packet.pts, stream.pointee.time_base, cav_time_base_q())
                progress(min(1, max(0, Double(micro - startMicro) / Double(max(1, endMicro - startMicro)))))
            }
            if packet.streamIndex == videoIndex, let sink = videoSink {
                if videoEndMicro == nil, let end = try sink.consume(packet) {
                    videoEndMicro = end
                    try companions.videoEnded(at: end)
                }
            } else {
                try companions.consume(packet, videoEndMicro: videoEndMicro)
            }
        }
        if let sink = videoSink, videoEndMicro == nil {
            videoEndMicro = try sink.finish()
            try companions.videoEnded(at: videoEndMicro ?? endMicro)
        }
        try companions.flush(videoEndMicro: videoEndMicro ?? endMicro)
        try output.finish()
        if let sink = videoSink { report.warnings += sink.warnings; report.notes += sink.notes }
        report.presentedEndSeconds = videoEndMicro.map { Double($0 - originMicro) / Double(AV_TIME_BASE) }
        return report
    }
}

extension CutContext {
    /// Puts the demuxer where the keyframe will be read and returns the packets read up to and
    /// including it (other streams' packets there may belong to the cut). A seek that lands past the
    /// keyframe (files without an index, e.g. MPEG-TS) is retried further back, then from the start.
    func positioned(at keyframe: CutPlan.VideoPacket, stream index: Int) throws -> [Packet] {
        guard let stream = input.stream(index) else { return [] }
        let second = av_rescale_q(1, AVRational(num: 1, den: 1), stream.pointee.time_base)
        let attempts: [Int64?] = [keyframe.pts, keyframe.pts - 5 * second, keyframe.pts - 60 * second, nil]
        for attempt in attempts {
            do {
                if let timestamp = attempt {
                    try input.seek(streamIndex: index, timestamp: timestamp)
                } else {
                    try input.seekToStart()
                }
            } catch {
                continue
            }
            var read: [Packet] = []
            let packet = try Packet()
            while try input.read(into: packet) == .packet {
                let copy = try Packet()
                av_packet_move_ref(copy.pointer, packet.pointer)
                read.append(copy)
                guard copy.streamIndex == index else { continue }
                let pts = copy.pts != CAV_NOPTS_VALUE ? copy.pts : copy.dts
                if copy.isKeyframe, pts == keyframe.pts { return read }
                let dts = copy.dts != CAV_NOPTS_VALUE ? copy.dts : pts
                if dts > keyframe.dts, dts > keyframe.pts { break }
            }
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe at \(FrameSampler.text(report.keyframeSeconds ?? 0)) s to cut from it")
    }
}

