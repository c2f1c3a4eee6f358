/// How an edit's re-encoded frames are made, decided once for the output. Pure.
enum ReencodingChoice {
    /// The encoder of the re-encoded video: an exact edit's, or a smart edit's edges' (MPEG-2's mpeg2video, where an
    /// exact cut would use libx264); nil for copies.
    static func encoder(_ video: VideoFacts, mode: CutMode) -> String? {
        switch mode {
        case .exact: video.exactEncoder
        case .smart: video.smartMatch?.encoder ?? video.exactEncoder
        case .copy, .keyframe: nil
        }
    }

    /// The exact edit's encoder with its options on the picture the survey read; or a smart edit's edges matching the
    /// source — each edge with half the threads where a range has a head and a tail encoded at once, looking no
    /// further ahead than the longest edge — with x264's own set id where the sets go into the record.
    static func make(_ video: VideoFacts, mode: CutMode, smart: [SmartCutPlan], sampleEntry: SampleEntryPlan?,
                     facts: CutFacts) -> Reencoding? {
        guard let picture = video.exactPicture else { return nil }
        switch mode {
        case .exact:
            let encoder = video.exactEncoder
            var options = EncoderChoice.withHDRMetadata(EncoderChoice.options(for: encoder, crf: facts.exactCRF, preset: facts.preset,
                                                                              threads: facts.threads.encoder),
                                                        encoder: encoder, hdr: picture.hdrParameters)
            // AVI keeps frames in decode order, one per slot: no B-frames, whose reordered decode times
            // would make the muxer shift the file by the gap before the first of them.
            if facts.container.storesDecodeTimesOnly { options["bf"] = "0" }
            return Reencoding(encoder: encoder, options: options, threads: facts.threads.encoder, pixelFormat: picture.pixelFormat,
                              tagsLimitedRange: picture.tagsLimitedRange, bakedOrientation: picture.bakedOrientation)
        case .smart:
            guard let match = video.smartMatch, !smart.isEmpty else { return nil }
            let parts = smart.map { ($0.hasHead ? 1 : 0) + ($0.hasTail ? 1 : 0) }.max() ?? 1
            let threads = max(1, facts.threads.encoder / max(1, parts))
            let options = SmartEncoding.options(match, crf: facts.crf, preset: facts.preset, threads: threads,
                                                spsId: match.encoder == "libx264" ? sampleEntry?.encoderIds?.sps : nil,
                                                edgeFrames: smart.map { max($0.headFrames, $0.tailFrames) }.max())
            return Reencoding(encoder: match.encoder, options: options, threads: threads, pixelFormat: picture.sourcePixelFormat,
                              tagsLimitedRange: false, bakedOrientation: nil)
        case .copy, .keyframe:
            return nil
        }
    }
}
