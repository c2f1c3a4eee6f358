import CAV

/// The output an edit writes, set up from its `OutputPlan` before any range: the muxer with the source's metadata,
/// the chapters and the timecode; the kept streams in the source's order — the video's writer (made by the caller for
/// the first range, where the video stands), audio re-encoders, subtitle converters and stream copies — the header
/// written; and the companions' and cues' readers.
struct EditOutputSetup {
    let file: OutputFile
    /// The source's video stream, and the writer of the range being written (nil without video).
    private(set) var videoSource: UnsafeMutablePointer<AVStream>?
    var videoWriter: VideoWriter?
    var tracks: CompanionTracks
    private(set) var reencoders: [AudioReencoder] = []
    /// Cues and telemetry come through a reader of their own, from before each range's keyframe.
    let cues: CueReader?
    private let cueStreams: Set<Int>
    let keptIndices: Set<Int>
    /// Whether the audio whose seams are reported (the first) is re-encoded: then every seam is exact.
    let firstAudioReencoded: Bool

    init(input: InputFile, output: OutputPlan, path: String, temporaryPath: String, outputName: String,
         makeVideoWriter: (UnsafeMutablePointer<AVStream>, OutputFile) throws -> VideoWriter) throws {
        do {
            file = try OutputFile(temporaryPath: temporaryPath, finalName: outputName)
        } catch {
            throw MediaError(.writeFailed, path: path, operation: error.operation, reason: "no muxer for the output name \(outputName)")
        }
        file.copyContainerMetadata(from: input)
        try file.addChapters(output.chapters)
        if let timecode = output.timecode { file.setTimecode(timecode) }
        keptIndices = Set(output.streams.map(\.index))
        var companions: [CompanionTracks.Track] = []
        for kept in output.streams.sorted(by: { $0.index < $1.index }) {
            guard let stream = input.stream(kept.index) else {
                throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan's stream #\(kept.index) is not in the file")
            }
            if kept.kind == .video, output.video != nil {
                videoSource = stream
                videoWriter = try makeVideoWriter(stream, file)
            } else if let encoder = kept.audioEncoder {
                reencoders.append(try AudioReencoder(path: input.path, streamIndex: kept.index, encoderName: encoder, output: file))
            } else {
                companions.append(try Self.companion(kept, stream: stream, file: file))
            }
        }
        try file.writeHeader(options: Self.muxerOptions(output))
        tracks = CompanionTracks(tracks: companions, output: file, editLists: output.container.editLists)
        cueStreams = Set(companions.filter(\.retimedPerSample).map(\.input))
        cues = cueStreams.isEmpty ? nil : try CueReader(path: input.path, streams: cueStreams, video: output.video?.streamIndex)
        let firstAudio = output.streams.first { $0.kind == .audio }
        let made = reencoders
        firstAudioReencoded = firstAudio.map { audio in made.contains { $0.input == audio.index } } ?? false
    }

    /// A stream read by its own re-encoder or the cue reader, not by the range's pass.
    func readsOnItsOwn(_ streamIndex: Int) -> Bool {
        reencoders.contains { $0.input == streamIndex } || cueStreams.contains(streamIndex)
    }

    /// A subtitle, telemetry or audio stream copied (text subtitles converted to the codec the output holds).
    private static func companion(_ kept: KeptStream, stream: UnsafeMutablePointer<AVStream>, file: OutputFile) throws -> CompanionTracks.Track {
        guard let target = kept.convertsTo else {
            let copy = try file.addCopy(of: stream)
            return CompanionTracks.Track(input: kept.index, output: Int(copy.pointee.index), timeBase: stream.pointee.time_base,
                                         retimedPerSample: kept.kind == .subtitle || kept.kind == .data,
                                         codec: stream.pointee.codecpar.pointee.codec_id, splitsAMRFrames: kept.splitsAudioFrames)
        }
        let converter = try SubtitleConverter(stream: stream, to: target)
        let out = try file.addStream()
        try converter.describe(out)
        out.pointee.time_base = stream.pointee.time_base
        out.pointee.disposition = stream.pointee.disposition
        av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0)
        var track = CompanionTracks.Track(input: kept.index, output: Int(out.pointee.index), timeBase: stream.pointee.time_base,
                                          retimedPerSample: true, codec: stream.pointee.codecpar.pointee.codec_id, splitsAMRFrames: false)
        track.converter = converter
        return track
    }

    /// MP4/MOV: the video track's timescale (the edit grid's) and faststart.
    private static func muxerOptions(_ output: OutputPlan) -> [String: String] {
        var options: [String: String] = [:]
        guard output.container.editLists else { return options }
        if let video = output.video { options["movie_timescale"] = String(MovieHeaderPatch.trackTimescale(video.editTimeBase)) }
        if output.faststart { options["movflags"] = "+faststart" }
        return options
    }
}

/// What FFmpeg's muxer cannot write, patched into the finished MP4/MOV: the video's edit list ended where the plan
/// says (or one edit per range of a copy join), HEVC's record arrays marked complete, and the source's phone and
/// camera metadata.
enum MuxedFilePatches {
    static func apply(_ output: OutputPlan, path: String, videoOutputIndex: Int?) throws {
        if let video = output.video, let index = videoOutputIndex {
            if let edits = video.edits {
                try MovieHeaderPatch.writeEdits(path: path, videoTrackID: index + 1, edits: edits, timeBase: video.editTimeBase)
            } else if let edit = video.editDuration {
                try MovieHeaderPatch.endEdits(path: path, videoTrackID: index + 1, videoEditTicks: edit, timeBase: video.editTimeBase)
            }
        }
        if output.container.editLists, output.video?.codec == "hevc" { try HEVCRecordPatch.markArraysComplete(path: path) }
        if output.container.editLists, let vision = output.video?.dolbyVision, let index = videoOutputIndex {
            try vision.insert(into: path, trackID: index + 1)
        }
        try output.movieMetadata?.insert(into: path)
    }
}
