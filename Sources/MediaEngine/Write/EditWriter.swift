import CAV

/// Executes an `EditPlan` in three steps: sets the output up from its `OutputPlan` (`EditOutputSetup`), writes each
/// range — read once from the range's keyframe, the video packets to the mode's writer, the audio and subtitles to
/// `CompanionTracks` — and after muxing patches what FFmpeg's muxer cannot write (`MuxedFilePatches`). It decides
/// nothing; what it finds while reading (damaged frames, an input that ends early) comes back as run-time notices.
/// Writers get the output's plan and their own range's, never another range's.
final class EditWriter {
    private let input: InputFile
    private let output: OutputPlan
    /// The ranges written one after another, each moved to where it begins on the output's timeline.
    private let ranges: [RangePlan]
    private let plan: EditPlan
    private let path: String
    private let temporaryPath: String
    private let outputName: String
    private let shouldStop: @Sendable () -> Bool
    private let progress: (@Sendable (Double) -> Void)?
    /// Copies: how samples are put in the sample entry's form, shared by the ranges.
    private var copyRepackager: SampleRepackager?
    /// Smart edits: the next range's edges, started while the current range is written. Owned here until that
    /// range's writer takes them; cancelled if the edit fails first.
    private var nextEdges: SmartVideoWriter.Edges?
    /// Edges encoding at once across the ranges, and the threads each gets (`EdgeSlots`).
    private let edgeSlots: EdgeSlots
    private let edgeFrames: EdgeFrames?

    deinit {
        nextEdges?.cancel()
    }

    init(input: InputFile, plan: EditPlan, path: String, temporaryPath: String, outputName: String, edgeFrames: EdgeFrames? = nil,
         shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) {
        self.edgeFrames = edgeFrames
        self.input = input
        self.plan = plan
        output = plan.output
        ranges = plan.ranges
        self.path = path
        self.temporaryPath = temporaryPath
        self.outputName = outputName
        self.shouldStop = shouldStop
        self.progress = progress
        edgeSlots = EdgeSlots(encoderThreads: plan.output.threads.encoder, threadsPerEdge: plan.output.reencoding?.threads ?? 1)
        if plan.output.mode == .smart { _ = LargeBlockReturn.installed }
    }

    func run() throws(MediaError) -> CutRun {
        do {
            return try write()
        } catch let error as MediaError {
            throw error
        } catch let failure as SampleEntryFailure {
            throw MediaError(.decodeFailed, path: path, operation: "sample entry", reason: failure.reason, remedy: failure.remedy)
        } catch is CutInterrupted {
            throw MediaError(.interrupted, path: path, operation: "signal", reason: "interrupted; nothing written")
        } catch let failure as AVFailure {
            let writing = ["avio_open", "avformat_write_header", "av_interleaved_write_frame", "av_write_trailer", "avio_closep",
                           "avio_flush", "write header patch"].contains(failure.operation)
            throw MediaError(writing ? .writeFailed : .decodeFailed, path: path, operation: failure.operation,
                             reason: writing ? "cannot write the output \(outputName) (\(failure.text))"
                                             : "\(failure.operation) failed (\(failure.text))")
        } catch {
            throw MediaError(.writeFailed, path: path, operation: "cut", reason: "cannot write the output \(outputName) (\(error))")
        }
    }

    private func write() throws -> CutRun {
        guard let first = ranges.first else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan has no range to write")
        }
        var setup = try EditOutputSetup(input: input, output: output, path: path, temporaryPath: temporaryPath, outputName: outputName) {
            source, file in try self.makeVideoWriter(first, number: 0, source: source, file: file, joining: nil)
        }
        var notices: [CutNotice] = []
        for (number, range) in ranges.enumerated() {
            notices += try write(range, number: number, into: &setup)
        }
        try setup.tracks.endRange()
        for reencoder in setup.reencoders {
            try reencoder.finish()
            if reencoder.errors > 0 { notices.append(.decodeErrors(count: reencoder.errors)) }
        }
        try setup.file.finish()
        let videoOutputIndex = setup.videoWriter?.outputIndex
        try MuxedFilePatches.apply(output, path: temporaryPath, videoOutputIndex: videoOutputIndex)
        let writtenVideoStart = videoOutputIndex.flatMap { setup.file.earliestPtsMicroByStream[$0] }.map(Micro.seconds)
        return CutRun(notices: notices, muxerShiftSeconds: Micro.seconds(setup.file.muxerShiftMicro), writtenVideoStartSeconds: writtenVideoStart,
                      audioSeamOffsetsSeconds: setup.firstAudioReencoded ? Array(repeating: 0, count: max(0, ranges.count - 1))
                                                                          : setup.tracks.seamOffsetsSeconds)
    }

    /// Range `number`: its audio re-encoders and companions started on its window, its video writer (the first
    /// range's was made with the output; an exact join's one encoder begins the next range), its packets read from
    /// its keyframe, and its writer finished.
    private func write(_ range: RangePlan, number: Int, into setup: inout EditOutputSetup) throws -> [CutNotice] {
        let isLast = number == ranges.count - 1
        for reencoder in setup.reencoders {
            try reencoder.begin(sourceStartMicro: range.companions.zeroSourceMicro, outputStartMicro: range.companions.zeroOutputMicro,
                                durationMicro: range.durationMicro)
        }
        try setup.tracks.begin(range.companions, index: number, joinsNext: !isLast)
        try setup.cues?.read(windowStartMicro: range.companions.zeroSourceMicro, windowEndMicro: range.companions.endMicro) {
            try setup.tracks.consume($0)
        }
        if number > 0, let source = setup.videoSource, let writer = setup.videoWriter {
            if output.sharesEncoder, let exact = writer as? ExactVideoWriter {
                try exact.begin(range)
            } else {
                setup.videoWriter = try makeVideoWriter(range, number: number, source: source, file: setup.file, joining: writer.outputIndex)
            }
        }
        try read(range, number: number, into: &setup)
        var notices: [CutNotice] = []
        if let writer = setup.videoWriter {
            // One encoder spanning the ranges is flushed after the last.
            if isLast || !output.sharesEncoder {
                try writer.finish()
                notices += writer.notices
            }
            // MPEG-TS decoders buffer by decode time: say where copied frames decode earlier than the source's did.
            if output.container.formatName == "mpegts", let stream = output.video, let growth = writer.decodeAheadGrowth {
                notices.append(.decodeAheadGrows(range: ranges.count > 1 ? number + 1 : nil, seconds: output.seconds(micro: stream.micro(growth.ticks)),
                                                 atSeconds: output.seconds(micro: stream.micro(growth.atOutputTicks))))
            }
            if range.video != nil, let stream = output.video, !writer.reachedPlannedEnd {
                notices.append(.truncated(plannedEndSeconds: plan.times(of: range).presentedEndSeconds,
                                          writtenEndSeconds: output.seconds(micro: stream.micro(writer.latestPresentedEnd))))
            }
        }
        return notices
    }

    /// Reads the range's packets from its keyframe (audio alone: from its window's start) until its video and
    /// companions need no more, handing each to its writer.
    private func read(_ range: RangePlan, number: Int, into setup: inout EditOutputSetup) throws {
        var buffered: [Packet] = []
        if let video = range.video, let stream = output.video {
            buffered = try positioned(at: video.keyframe, stream: stream, range: range)
        } else if let stream = output.streams.first.flatMap({ input.stream($0.index) }) {
            try input.seek(streamIndex: Int(stream.pointee.index), timestamp: stream.ticks(micro: range.companions.startMicro))
        }
        let reader = try Packet()
        var videoDone = setup.videoWriter == nil
        buffered.reverse()
        while !(videoDone && setup.tracks.allDone) {
            let packet: Packet
            if let next = buffered.popLast() {
                packet = next
            } else {
                guard try input.read(into: reader) == .packet else { break }
                packet = reader
            }
            if shouldStop() { throw CutInterrupted() }
            // Re-encoded audio kept a second ahead of what is written, so the file interleaves.
            if !setup.reencoders.isEmpty, setup.keptIndices.contains(packet.streamIndex), let time = packetMicro(packet) {
                for reencoder in setup.reencoders { try reencoder.advance(untilMicro: time.plus(1_000_000)) }
            }
            if let video = range.video, packet.streamIndex == output.video?.streamIndex, let writer = setup.videoWriter {
                reportProgress(packet, video: video, range: number)
                if !videoDone { videoDone = try writer.consume(packet) }
            } else if !setup.readsOnItsOwn(packet.streamIndex) {
                try setup.tracks.consume(packet)
            }
        }
        for reencoder in setup.reencoders { try reencoder.advance(untilMicro: .max) }
    }

    /// The video writer of a range: the mode's, on the output stream an earlier range set up (`joining`) or a new one.
    private func makeVideoWriter(_ range: RangePlan, number: Int, source: UnsafeMutablePointer<AVStream>, file: OutputFile,
                                 joining: Int?) throws -> VideoWriter {
        guard let video = range.video, let stream = output.video else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "a range of the plan has no video")
        }
        switch output.mode {
        case .smart:
            // The next range's edges start now (as edge slots free up), so they are encoded while this range is written.
            let started = nextEdges
            nextEdges = nil
            let writer = try SmartVideoWriter(input: input, source: source, file: file, output: output, range: range, joining: joining,
                                              startedEdges: started, slots: edgeSlots, edgeFrames: edgeFrames, shouldStop: shouldStop)
            if let next = ranges[safe: number + 1], next.smart != nil {
                nextEdges = try SmartVideoWriter.startEdges(path: input.path, output: output, range: next, slots: edgeSlots, edgeFrames: edgeFrames,
                                                            shouldStop: shouldStop)
            }
            return writer
        case .exact:
            return try ExactVideoWriter(source: source, file: file, output: output, range: range, shouldStop: shouldStop)
        case .copy, .keyframe:
            if let joining {
                // Every range's samples take the form of the one sample entry, set up with the first range's writer.
                return CopyVideoWriter(file: file, outputIndex: joining, source: source, stream: stream, video: video, repackager: copyRepackager,
                                       opensOutput: false)
            }
            let out = try file.addCopy(of: source)
            copyRepackager = try CopyVideoWriter.applySampleEntry(output.sampleEntry, to: out)
            return CopyVideoWriter(file: file, outputIndex: Int(out.pointee.index), source: source, stream: stream, video: video,
                                   repackager: copyRepackager, opensOutput: true)
        }
    }

    private func packetMicro(_ packet: Packet) -> Int64? {
        guard packet.presentationTime != CAV_NOPTS_VALUE, let stream = input.stream(packet.streamIndex) else { return nil }
        return stream.micro(packet.presentationTime)
    }

    private func reportProgress(_ packet: Packet, video: VideoCut, range: Int) {
        guard let progress, packet.pts != CAV_NOPTS_VALUE else { return }
        let span = max(1, video.presentedEnd.minus(video.firstShown))
        let fraction = min(1, max(0, Double(packet.pts.minus(video.firstShown)) / Double(span)))
        progress((Double(range) + fraction) / Double(max(1, ranges.count)))
    }

    /// Puts the demuxer where the keyframe will be read and returns the packets read up to and including
    /// it that may belong to the cut (kept streams' packets that end at or after the companions' start;
    /// a long way back, held in memory, nothing else is).
    private func positioned(at keyframe: VideoPacket, stream: OutputVideo, range: RangePlan) throws -> [Packet] {
        let companions = Set(output.streams.filter { $0.audioEncoder == nil && $0.kind != .subtitle && $0.kind != .data }.map(\.index))
            .subtracting([stream.streamIndex])
        let startMicro = range.companions.startMicro
        if let packets = try input.position(at: keyframe, streamIndex: stream.streamIndex, keep: {
            companions.contains($0.streamIndex) && self.endsAtOrAfter(startMicro, $0)
        }) {
            return packets
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe at \(Words.seconds(output.seconds(micro: stream.micro(keyframe.pts)))) to cut from it")
    }

    private func endsAtOrAfter(_ micro: Int64, _ packet: Packet) -> Bool {
        guard let stream = input.stream(packet.streamIndex) else { return false }
        let timestamp = packet.presentationTime
        guard timestamp != CAV_NOPTS_VALUE else { return true }
        return stream.micro(timestamp.plus(max(0, packet.duration))) >= micro
    }
}

/// Thrown by the writers when `shouldStop` says so; `run` reports it as the interrupt. Checked per packet
/// read and per packet an encoder gives back, so an encoder's flush (x264's lookahead at 1080p `slow` takes
/// seconds) stops promptly too.
struct CutInterrupted: Error {}

/// Receives a cut's video packets in decode order, from the plan's keyframe on.
protocol VideoWriter: AnyObject {
    var outputIndex: Int { get }
    /// Takes the next packet; true once the video needs no more.
    func consume(_ packet: Packet) throws -> Bool
    /// At the end of the input, or once complete: flush.
    func finish() throws
    /// Whether the last packet the plan needs came by (else the input ended early).
    var reachedPlannedEnd: Bool { get }
    /// The end of the latest frame written (source ticks), for an early end's report.
    var latestPresentedEnd: Int64 { get }
    var notices: [CutNotice] { get }
    /// Copies: how much further ahead of presentation a copied packet decodes than in the source, at most (source ticks),
    /// and the output time (ticks) of the first that does; nil where none does.
    var decodeAheadGrowth: (ticks: Int64, atOutputTicks: Int64)? { get }
}

extension VideoWriter {
    var decodeAheadGrowth: (ticks: Int64, atOutputTicks: Int64)? { nil }
}
