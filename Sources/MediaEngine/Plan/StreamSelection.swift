/// Which of the source's streams the output keeps, decided once per edit from what the output's container holds:
/// the main video, audio the container holds, subtitles it holds (or text converted to one it does), GoPro telemetry
/// in MP4/MOV; the rest with a reason. A chapter track and a timecode track become the output's own chapters and
/// timecode where the container keeps them (`OutputPlanner`). Pure.
enum StreamSelection {
    static func choose(_ facts: CutFacts) throws(MediaError) -> (streams: [KeptStream], notices: [CutNotice]) {
        var streams: [KeptStream] = []
        var notices: [CutNotice] = []
        for stream in facts.streams {
            let (kept, notice) = choice(stream, facts: facts)
            if let kept { streams.append(kept) }
            if let notice { notices.append(notice) }
        }
        guard streams.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            throw MediaError(.noVideo, path: facts.path, operation: "streams",
                             reason: "has no video or audio stream to cut" + (streams.isEmpty ? "" : " (subtitles alone cannot be cut)"))
        }
        return (streams, notices)
    }

    /// One stream: kept (and how), or the note saying why not; both nil for a track the output writes afresh.
    private static func choice(_ stream: StreamFacts, facts: CutFacts) -> (KeptStream?, CutNotice?) {
        let container = facts.container
        func kept(_ kind: KeptStream.Kind) -> KeptStream {
            KeptStream(index: stream.index, kind: kind, codec: stream.codec, splitsAudioFrames: false)
        }
        switch stream.kind {
        case .video where stream.index == facts.video?.index:
            return (kept(.video), nil)
        case .video:
            return (nil, .streamLeftOut(index: stream.index, reason: stream.isAttachedPicture ? .coverArt : .secondVideo, codec: stream.codec, tag: nil))
        case .audio where stream.containerCanHold:
            let split = stream.isAMRNarrowband && container.editLists
            var audio = kept(.audio)
            audio.splitsAudioFrames = split
            audio.exactAudioEncoder = stream.exactAudioEncoder
            return (audio, split ? .audioPacketsSplit(codec: stream.codec) : nil)
        case .audio:
            return (nil, .streamDropped(index: stream.index, codec: stream.codec, container: container.formatName))
        case .subtitle where stream.containerCanHold:
            return (kept(.subtitle), nil)
        case .subtitle where stream.convertsTo != nil:
            var subtitle = kept(.subtitle)
            subtitle.convertsTo = stream.convertsTo
            return (subtitle, .subtitlesConverted(index: stream.index, from: stream.codec, to: stream.convertsTo ?? ""))
        case .subtitle:
            return (nil, .streamLeftOut(index: stream.index, reason: .subtitlesUnsupported, codec: stream.codec, tag: nil))
        case .data where stream.isChapterTrack && container.holdsChapters && facts.chapterPolicy != .none:
            return (nil, nil)  // Its chapters are the file's: written as the output's own chapters.
        case .data where stream.tag == "tmcd" && facts.startTimecode != nil && container.keepsTimecode:
            return (nil, nil)  // Its start is the file's timecode: written afresh from the first kept frame.
        case .data where stream.tag == "gpmd" && container.editLists:
            // GoPro telemetry: its samples in the range, retimed like cues (FFmpeg's MP4/MOV muxer writes gpmd).
            return (kept(.data), .telemetryKept(index: stream.index))
        case .data:
            return (nil, .streamLeftOut(index: stream.index, reason: stream.isChapterTrack ? .chapterTrack : .dataTrack,
                                        codec: stream.codec, tag: stream.tag))
        case .other:
            return (nil, .streamLeftOut(index: stream.index, reason: .otherTrack, codec: stream.codec, tag: stream.tag))
        }
    }
}
