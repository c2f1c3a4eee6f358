import CAV

/// Executes an `EditPlan`: sets up the output's streams from its `OutputPlan`, then for each range reads once from
/// the range's keyframe, hands the video packets to the mode's writer and the audio and subtitles to
/// `CompanionTracks`, and — in MP4/MOV — ends the edit lists where the plan says. It decides nothing; what it finds
/// while reading (damaged frames, an input that ends early) comes back as run-time notices.
final class EditWriter {
    private let input: InputFile
    private let output: OutputPlan
    /// The ranges written one after another, each moved to where it begins on the output's timeline.
    private let ranges: [RangePlan]
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

    deinit {
        nextEdges?.cancel()
    }

    init(input: InputFile, plan: EditPlan, path: String, temporaryPath: String, outputName: String,
         shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) {
        self.input = input
        output = plan.output
        ranges = plan.ranges
        self.path = path
        self.temporaryPath = temporaryPath
        self.outputName = outputName
        self.shouldStop = shouldStop
        self.progress = progress
        let first = plan.ranges.first?.cut
        edgeSlots = EdgeSlots(encoderThreads: first?.threads.encoder ?? 1, threadsPerEdge: first?.video?.reencoding?.threads ?? 1)
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
        let file: OutputFile
        do {
            file = try OutputFile(temporaryPath: temporaryPath, finalName: outputName)
        } catch {
            throw MediaError(.writeFailed, path: path, operation: error.operation, reason: "no muxer for the output name \(outputName)")
        }
        file.copyContainerMetadata(from: input)
        try file.addChapters(output.chapters)
        if let timecode = output.timecode { file.setTimecode(timecode) }
        guard let first = ranges.first?.cut else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan has no range to write")
        }
        var videoStream: UnsafeMutablePointer<AVStream>?
        var videoWriter: VideoWriter?
        var companions: [CompanionTracks.Track] = []
        var reencoders: [AudioReencoder] = []
        let keptIndices = Set(output.streams.map(\.index))
        // Output streams in the source's order: the video's writer (whose first range adds its stream; later
        // ones write to it) is made where the video stands.
        for kept in output.streams.sorted(by: { $0.index < $1.index }) {
            guard let stream = input.stream(kept.index) else {
                throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan's stream #\(kept.index) is not in the file")
            }
            if kept.kind == .video, output.video != nil {
                videoStream = stream
                videoWriter = try makeVideoWriter(first, number: 0, stream: stream, output: file, joining: nil)
            } else if let encoder = kept.audioEncoder {
                reencoders.append(try AudioReencoder(path: input.path, streamIndex: kept.index, encoderName: encoder, output: file))
            } else if let target = kept.convertsTo {
                let converter = try SubtitleConverter(stream: stream, to: target)
                let out = try file.addStream()
                try converter.describe(out)
                out.pointee.time_base = stream.pointee.time_base
                out.pointee.disposition = stream.pointee.disposition
                av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
                var track = CompanionTracks.Track(input: kept.index, output: Int(out.pointee.index), timeBase: stream.pointee.time_base,
                                                  retimedPerSample: true, codec: stream.pointee.codecpar.pointee.codec_id, splitsAMRFrames: false)
                track.converter = converter
                companions.append(track)
            } else {
                let copy = try file.addCopy(of: stream)
                companions.append(CompanionTracks.Track(input: kept.index, output: Int(copy.pointee.index),
                                                        timeBase: stream.pointee.time_base, retimedPerSample: kept.kind == .subtitle || kept.kind == .data,
                                                        codec: stream.pointee.codecpar.pointee.codec_id,
                                                        splitsAMRFrames: kept.splitsAudioFrames))
            }
        }
        let videoOutputIndex = videoWriter?.outputIndex
        var muxerOptions: [String: String] = [:]
        if output.container.editLists {
            if let video = output.video { muxerOptions["movie_timescale"] = String(MovieHeaderPatch.trackTimescale(video.editTimeBase)) }
            if output.faststart { muxerOptions["movflags"] = "+faststart" }
        }
        try file.writeHeader(options: muxerOptions)
        var tracks = CompanionTracks(tracks: companions, output: file, editLists: output.container.editLists)
        // Cues and telemetry come through a reader of their own, from before each range's keyframe.
        let cueStreams = Set(companions.filter(\.retimedPerSample).map(\.input))
        let cues = cueStreams.isEmpty ? nil : try CueReader(path: input.path, streams: cueStreams, video: output.video?.streamIndex)

        var notices: [CutNotice] = []
        for (number, range) in ranges.enumerated() {
            let segment = range.cut
            let isLast = number == ranges.count - 1
            for reencoder in reencoders {
                try reencoder.begin(sourceStartMicro: segment.companionsZeroSourceMicro, outputStartMicro: segment.companionsZeroOutputMicro,
                                    durationMicro: range.durationMicro)
            }
            try tracks.begin(segment, index: number, joinsNext: !isLast)
            try cues?.read(windowStartMicro: segment.companionsZeroSourceMicro, windowEndMicro: segment.companionsEndMicro) { try tracks.consume($0) }
            if number > 0, let stream = videoStream, let writer = videoWriter {
                if output.sharesEncoder, let exact = writer as? ExactVideoWriter, let video = segment.video {
                    try exact.begin(video)
                } else {
                    videoWriter = try makeVideoWriter(segment, number: number, stream: stream, output: file, joining: writer.outputIndex)
                }
            }
            var buffered: [Packet] = []
            if let video = segment.video {
                buffered = try positioned(at: video.keyframe, stream: video.streamIndex, segment: segment)
            } else if let stream = output.streams.first.flatMap({ input.stream($0.index) }) {
                try input.seek(streamIndex: Int(stream.pointee.index), timestamp: stream.ticks(micro: segment.companionsStartMicro))
            }
            let reader = try Packet()
            var videoDone = videoWriter == nil
            buffered.reverse()
            while !(videoDone && tracks.allDone) {
                let packet: Packet
                if let next = buffered.popLast() {
                    packet = next
                } else {
                    guard try input.read(into: reader) == .packet else { break }
                    packet = reader
                }
                if shouldStop() { throw CutInterrupted() }
                // Re-encoded audio kept a second ahead of what is written, so the file interleaves.
                if !reencoders.isEmpty, keptIndices.contains(packet.streamIndex), let time = packetMicro(packet) {
                    for reencoder in reencoders { try reencoder.advance(untilMicro: time.plus(1_000_000)) }
                }
                if let video = segment.video, packet.streamIndex == video.streamIndex, let writer = videoWriter {
                    reportProgress(packet, video: video, segment: number)
                    if !videoDone { videoDone = try writer.consume(packet) }
                } else if reencoders.contains(where: { $0.input == packet.streamIndex }) || cueStreams.contains(packet.streamIndex) {
                    continue  // Read by its own re-encoder or the cue reader.
                } else {
                    try tracks.consume(packet)
                }
            }
            for reencoder in reencoders { try reencoder.advance(untilMicro: .max) }
            if let writer = videoWriter {
                // One encoder spanning the ranges is flushed after the last.
                if isLast || !output.sharesEncoder {
                    try writer.finish()
                    notices += writer.notices
                }
                if let video = segment.video, !writer.reachedPlannedEnd {
                    notices.append(.truncated(plannedEndSeconds: segment.presentedEndSeconds,
                                              writtenEndSeconds: segment.seconds(micro: video.micro(writer.latestPresentedEnd))))
                }
            }
        }
        try tracks.endRange()
        for reencoder in reencoders {
            try reencoder.finish()
            if reencoder.errors > 0 { notices.append(.decodeErrors(count: reencoder.errors)) }
        }
        try file.finish()
        if let video = output.video, let edits = video.edits, let index = videoOutputIndex {
            try MovieHeaderPatch.writeEdits(path: temporaryPath, videoTrackID: index + 1, edits: edits, timeBase: video.editTimeBase)
        } else if let video = output.video, let edit = video.editDuration, let index = videoOutputIndex {
            try MovieHeaderPatch.endEdits(path: temporaryPath, videoTrackID: index + 1, videoEditTicks: edit, timeBase: video.editTimeBase)
        }
        if output.container.editLists, output.video?.codec == "hevc" { try HEVCRecordPatch.markArraysComplete(path: temporaryPath) }
        try output.movieMetadata?.insert(into: temporaryPath)
        let writtenVideoStart = videoOutputIndex.flatMap { file.earliestPtsMicroByStream[$0] }.map(Micro.seconds)
        return CutRun(notices: notices, muxerShiftSeconds: Micro.seconds(file.muxerShiftMicro), writtenVideoStartSeconds: writtenVideoStart,
                      audioSeamOffsetsSeconds: firstAudioReencoded(reencoders) ? Array(repeating: 0, count: max(0, ranges.count - 1))
                                                                                : tracks.seamOffsetsSeconds)
    }

    /// The video writer of a range: the mode's, on the output stream an earlier range set up (`joining`) or a new one.
    private func makeVideoWriter(_ segment: CutPlan, number: Int, stream: UnsafeMutablePointer<AVStream>, output: OutputFile,
                                 joining: Int?) throws -> VideoWriter {
        guard let video = segment.video else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "a range of the plan has no video")
        }
        switch segment.mode {
        case .smart:
            guard let smart = segment.smart else {
                throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the smart plan has no edges; nothing written")
            }
            // The next range's edges start now (as edge slots free up), so they are encoded while this range is written.
            let started = nextEdges
            nextEdges = nil
            let writer = try SmartVideoWriter(input: input, stream: stream, output: output, plan: segment, video: video, smart: smart,
                                              joining: joining, startedEdges: started, slots: edgeSlots, shouldStop: shouldStop)
            if let next = ranges[safe: number + 1]?.cut, next.mode == .smart {
                nextEdges = try SmartVideoWriter.startEdges(path: input.path, plan: next, slots: edgeSlots, shouldStop: shouldStop)
            }
            return writer
        case .exact:
            return try ExactVideoWriter(stream: stream, output: output, plan: segment, video: video, shouldStop: shouldStop)
        case .copy, .keyframe:
            if let joining {
                // Every range's samples take the form of the one sample entry, set up with the first range's writer
                // (the planner checks that the ranges' entries are one).
                return CopyVideoWriter(output: output, outputIndex: joining, stream: stream, video: video, repackager: copyRepackager)
            }
            let out = try output.addCopy(of: stream)
            copyRepackager = try CopyVideoWriter.applySampleEntry(segment.sampleEntry, to: out)
            return CopyVideoWriter(output: output, outputIndex: Int(out.pointee.index), stream: stream, video: video,
                                   repackager: copyRepackager)
        }
    }

    /// Whether the audio whose seams are reported (the first) is re-encoded: then every seam is exact.
    private func firstAudioReencoded(_ reencoders: [AudioReencoder]) -> Bool {
        guard let first = output.streams.first(where: { $0.kind == .audio }) else { return false }
        return reencoders.contains { $0.input == first.index }
    }

    private func packetMicro(_ packet: Packet) -> Int64? {
        guard packet.presentationTime != CAV_NOPTS_VALUE, let stream = input.stream(packet.streamIndex) else { return nil }
        return stream.micro(packet.presentationTime)
    }

    private func reportProgress(_ packet: Packet, video: VideoCut, segment: Int) {
        guard let progress, packet.pts != CAV_NOPTS_VALUE else { return }
        let span = max(1, video.presentedEnd.minus(video.firstShown))
        let fraction = min(1, max(0, Double(packet.pts.minus(video.firstShown)) / Double(span)))
        progress((Double(segment) + fraction) / Double(max(1, ranges.count)))
    }

    /// Puts the demuxer where the keyframe will be read and returns the packets read up to and including
    /// it that may belong to the cut (kept streams' packets that end at or after the companions' start;
    /// a long way back, held in memory, nothing else is).
    private func positioned(at keyframe: VideoPacket, stream index: Int, segment: CutPlan) throws -> [Packet] {
        let companions = Set(output.streams.filter { $0.audioEncoder == nil && $0.kind != .subtitle && $0.kind != .data }.map(\.index))
            .subtracting([index])
        if let packets = try input.position(at: keyframe, streamIndex: index, keep: {
            companions.contains($0.streamIndex) && self.endsAtOrAfter(segment.companionsStartMicro, $0)
        }) {
            return packets
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe at \(Words.seconds(segment.keyframeSeconds ?? 0)) to cut from it")
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
}
