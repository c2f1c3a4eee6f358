import CAV

/// Executes a `CutPlan`: sets up the output's streams, reads once from the plan's keyframe, hands the video
/// packets to the mode's writer and the audio and subtitles to `CompanionTracks`, and — in MP4/MOV — ends
/// the edit lists where the plan says. It decides nothing; what it finds while reading (damaged frames, an
/// input that ends early) comes back as run-time notices.
final class CutWriter {
    private let input: InputFile
    private let plan: CutPlan
    private let path: String
    private let temporaryPath: String
    private let outputName: String
    private let shouldStop: @Sendable () -> Bool
    private let progress: (@Sendable (Double) -> Void)?

    init(input: InputFile, plan: CutPlan, path: String, temporaryPath: String, outputName: String,
         shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) {
        self.input = input
        self.plan = plan
        self.path = path
        self.temporaryPath = temporaryPath
        self.outputName = outputName
        self.shouldStop = shouldStop
        self.progress = progress
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
        let output: OutputFile
        do {
            output = try OutputFile(temporaryPath: temporaryPath, finalName: outputName)
        } catch {
            throw MediaError(.writeFailed, path: path, operation: error.operation, reason: "no muxer for the output name \(outputName)")
        }
        output.copyContainerMetadata(from: input)
        try output.addChapters(plan.chapters)
        var videoWriter: VideoWriter?
        var videoOutputIndex: Int?
        var companions: [CompanionTracks.Track] = []
        for kept in plan.streams {
            guard let stream = input.stream(kept.index) else {
                throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan's stream #\(kept.index) is not in the file")
            }
            if kept.kind == .video, let video = plan.video {
                let writer: VideoWriter
                switch plan.mode {
                case .smart:
                    guard let smart = plan.smart else {
                        throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the smart plan has no edges; nothing written")
                    }
                    writer = try SmartVideoWriter(input: input, stream: stream, output: output, plan: plan, video: video, smart: smart,
                                                  shouldStop: shouldStop)
                case .exact:
                    writer = try ExactVideoWriter(stream: stream, output: output, plan: plan, video: video, shouldStop: shouldStop)
                case .copy, .keyframe:
                    let out = try output.addCopy(of: stream)
                    writer = CopyVideoWriter(output: output, outputIndex: Int(out.pointee.index), stream: stream, video: video,
                                             repackager: try CopyVideoWriter.applySampleEntry(plan.sampleEntry, to: out))
                }
                videoWriter = writer
                videoOutputIndex = writer.outputIndex
            } else {
                let copy = try output.addCopy(of: stream)
                companions.append(CompanionTracks.Track(input: kept.index, output: Int(copy.pointee.index),
                                                        timeBase: stream.pointee.time_base, isSubtitle: kept.kind == .subtitle,
                                                        codec: stream.pointee.codecpar.pointee.codec_id,
                                                        splitsAMRFrames: kept.splitsAudioFrames))
            }
        }
        var muxerOptions: [String: String] = [:]
        if plan.container.editLists {
            if let video = plan.video { muxerOptions["movie_timescale"] = String(MovieHeaderPatch.trackTimescale(video.editTimeBase)) }
            if plan.faststart { muxerOptions["movflags"] = "+faststart" }
        }
        try output.writeHeader(options: muxerOptions)
        var tracks = CompanionTracks(tracks: companions, output: output, plan: plan)

        var buffered: [Packet] = []
        if let video = plan.video {
            buffered = try positioned(at: video.keyframe, stream: video.streamIndex)
        } else if let first = plan.streams.first, let stream = input.stream(first.index) {
            try input.seek(streamIndex: first.index, timestamp: stream.ticks(micro: plan.companionsStartMicro))
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
            if let video = plan.video, packet.streamIndex == video.streamIndex, let writer = videoWriter {
                reportProgress(packet, video: video)
                if !videoDone { videoDone = try writer.consume(packet) }
            } else {
                try tracks.consume(packet)
            }
        }
        var notices: [CutNotice] = []
        if let writer = videoWriter {
            try writer.finish()
            notices += writer.notices
            if let video = plan.video, !writer.reachedPlannedEnd {
                notices.append(.truncated(plannedEndSeconds: plan.presentedEndSeconds,
                                          writtenEndSeconds: plan.seconds(micro: video.micro(writer.latestPresentedEnd))))
            }
        }
        try output.finish()
        if let video = plan.video, let edit = video.editDuration, let index = videoOutputIndex {
            try MovieHeaderPatch.endEdits(path: temporaryPath, videoTrackID: index + 1, videoEditTicks: edit, timeBase: video.editTimeBase)
        }
        if plan.container.editLists, plan.video?.codec == "hevc" { try HEVCRecordPatch.markArraysComplete(path: temporaryPath) }
        try plan.movieMetadata?.insert(into: temporaryPath)
        let writtenVideoStart = videoOutputIndex.flatMap { output.earliestPtsMicroByStream[$0] }.map(Micro.seconds)
        return CutRun(notices: notices, muxerShiftSeconds: Micro.seconds(output.muxerShiftMicro), writtenVideoStartSeconds: writtenVideoStart)
    }

    private func reportProgress(_ packet: Packet, video: VideoCut) {
        guard let progress, packet.pts != CAV_NOPTS_VALUE else { return }
        let span = max(1, video.presentedEnd.minus(video.firstShown))
        progress(min(1, max(0, Double(packet.pts.minus(video.firstShown)) / Double(span))))
    }

    /// Puts the demuxer where the keyframe will be read and returns the packets read up to and including
    /// it that may belong to the cut (kept streams' packets that end at or after the companions' start;
    /// a long way back, held in memory, nothing else is).
    private func positioned(at keyframe: VideoPacket, stream index: Int) throws -> [Packet] {
        let companions = Set(plan.streams.map(\.index)).subtracting([index])
        if let packets = try input.position(at: keyframe, streamIndex: index, keep: {
            companions.contains($0.streamIndex) && self.endsAtOrAfterCompanionsStart($0)
        }) {
            return packets
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe at \(Words.seconds(plan.keyframeSeconds ?? 0)) to cut from it")
    }

    private func endsAtOrAfterCompanionsStart(_ packet: Packet) -> Bool {
        guard let stream = input.stream(packet.streamIndex) else { return false }
        let timestamp = packet.presentationTime
        guard timestamp != CAV_NOPTS_VALUE else { return true }
        return stream.micro(timestamp.plus(max(0, packet.duration))) >= plan.companionsStartMicro
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
