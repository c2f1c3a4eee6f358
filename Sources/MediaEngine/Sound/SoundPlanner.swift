/// Plans a cut of sound (`SoundPlan`) from `SoundFacts`: pure. One range of a lossy codec the container holds is
/// copied — from a preroll of packets before the range (what the decoder needs to give the source's own samples) to
/// the packet holding its last sample — with the container told to hide the rest (`SoundCopy.Signal`); lossless codecs,
/// a codec the container cannot hold and joins are decoded and encoded again, to the sample.
enum SoundPlanner {
    /// MP3's decoder delay, which the LAME tag's encoder delay leaves out (FFmpeg adds it back).
    static let mp3DecoderDelay: Int64 = 529
    /// The LAME tag's delay and padding fields are 12 bits.
    static let lameFieldLimit: Int64 = 4095
    /// Opus needs at least this much decoded before a range to match the source's decode (80 ms gave 22–34 dB).
    static let opusPrerollSamples: Int64 = 9600

    static func plan(_ facts: SoundFacts, ranges requested: [SoundPlan.SampleRange], path: String) throws(MediaError) -> SoundPlan {
        guard facts.sampleRate > 0, facts.timeBaseNum > 0, facts.timeBaseDen > 0 else {
            throw MediaError(.notMedia, path: path, operation: "plan sound", reason: "the audio stream has no valid sample rate or time base")
        }
        var notices: [SoundNotice] = []
        var requested = requested
        if let readable = facts.readableEnd {
            let seconds = { (sample: Int64) in Double(sample.minus(facts.originSample)) / Double(facts.sampleRate) }
            for index in requested.indices where requested[index].end > readable {
                if requested[index].start >= readable {
                    throw MediaError(.invalidRange, path: path, operation: "range",
                                     reason: "the range starts at \(Words.seconds(seconds(requested[index].start))), past what can be read: the file is truncated (\(facts.truncation)) and about \(Words.seconds(seconds(readable))) of it can be read")
                }
                requested[index].end = readable
                notices.append(.truncated(readableSeconds: seconds(readable), why: facts.truncation))
            }
        }
        let ranges = try clamped(requested, facts: facts, path: path)
        if facts.otherStreams > 0 { notices.append(.otherStreamsLeftOut(count: facts.otherStreams)) }
        var plan = SoundPlan(streamIndex: facts.streamIndex, codec: facts.codec, sampleRate: facts.sampleRate, container: facts.container,
                             originSample: facts.originSample, ranges: ranges, method: .reencode(SoundReencode(encoder: "", bitRate: 0, why: .lossless)),
                             coverArtIndex: facts.container.holdsCoverArt ? facts.coverArtIndex : nil,
                             chapters: [], decodedStartErrorSamples: 0, decodedSamples: 0, notices: [])
        if facts.coverArtIndex != nil, !facts.container.holdsCoverArt { notices.append(.coverArtLeftOut(container: facts.container.rawValue)) }
        plan.chapters = chapters(facts, ranges: ranges)
        if !facts.container.holdsChapters, !plan.chapters.isEmpty {
            notices.append(.chaptersLeftOut(count: plan.chapters.count, container: facts.container.rawValue))
            plan.chapters = []
        }
        if let reencode = try reencoding(facts, ranges: ranges, path: path), reencode.why == .join,
           let seams = SoundSeamPlanner.plan(facts, ranges: ranges) {
            plan.method = .seams(seams)
            // MP4: FFmpeg 5.1 plays the last frame whole (it ignores the edit list's end); MP3's LAME tag it honours.
            let playsPadding = facts.container == .mp4
            plan.decodedSamples = playsPadding ? seams.endSamples.plus(seams.paddingSamples) : seams.endSamples
            plan.ranges = ranges
            notices.append(.seamsReencoded(count: seams.shifts.count, encoder: seams.encoder,
                                           largestShift: seams.shifts.map { abs($0) }.max() ?? 0, sampleRate: facts.sampleRate))
            if playsPadding, seams.paddingSamples > 0 {
                notices.append(.signalledOnly(startSamples: 0, extraSamples: seams.paddingSamples, sampleRate: facts.sampleRate,
                                              why: "it ignores the end of an MP4 edit list; players that honour it stop at the join's end"))
            }
        } else if let reencode = try reencoding(facts, ranges: ranges, path: path) {
            plan.method = .reencode(reencode)
            plan.decodedSamples = plan.plannedSamples
            // AAC into MP4: FFmpeg 5.1 decodes the last frame whole, past the edit list's end.
            if facts.container == .mp4, reencode.encoder == "aac", case let rest = plan.plannedSamples % 1024, rest > 0 {
                plan.decodedSamples = plan.plannedSamples.plus(1024 - rest)
                notices.append(.signalledOnly(startSamples: 0, extraSamples: 1024 - rest, sampleRate: facts.sampleRate,
                                              why: "it ignores the end of an MP4 edit list; players that honour it stop at the end"))
            }
            notices.append(.reencoded(encoder: reencode.encoder, why: reencode.why, from: facts.codec))
        } else if let range = ranges.first, let edges = facts.edges.first {
            let copy = try copying(facts, range: range, edges: edges, path: path)
            plan.method = .copy(copy.plan)
            plan.decodedStartErrorSamples = copy.startError
            plan.decodedSamples = copy.decoded
            notices += copy.notices
        }
        plan.notices = notices
        return plan
    }

    /// The ranges inside the stream (an end past it is its end); an empty one refused.
    static func clamped(_ ranges: [SoundPlan.SampleRange], facts: SoundFacts, path: String) throws(MediaError) -> [SoundPlan.SampleRange] {
        guard !ranges.isEmpty else { throw MediaError(.invalidRange, path: path, operation: "plan sound", reason: "no range to keep") }
        var result: [SoundPlan.SampleRange] = []
        for range in ranges {
            let start = max(range.start, facts.originSample), end = min(range.end, facts.endSample)
            guard end > start else {
                throw MediaError(.invalidRange, path: path, operation: "plan sound", reason: "the range holds no sound (the audio ends at \(Words.seconds(Double(facts.endSample.minus(facts.originSample)) / Double(facts.sampleRate))))")
            }
            if let last = result.last, start < last.end {
                throw MediaError(.invalidRange, path: path, operation: "plan sound", reason: "the ranges overlap")
            }
            result.append(SoundPlan.SampleRange(start: start, end: end))
        }
        return result
    }

    /// Decoded and encoded again when the codec is lossless, the container cannot hold it, or ranges are joined; nil:
    /// copied. Refused when no encoder here can do it.
    static func reencoding(_ facts: SoundFacts, ranges: [SoundPlan.SampleRange], path: String) throws(MediaError) -> SoundReencode? {
        let holds = facts.containerHolds ?? facts.container.holds(codec: facts.codec)
        let why: SoundReencode.Why
        if !holds { why = .otherCodec } else if facts.lossless { why = .lossless } else if ranges.count > 1 { why = .join } else { return nil }
        let encoder = holds ? facts.ownEncoder : facts.container.encoder(outputName: facts.outputName)
        guard let encoder, facts.encoders.contains(encoder) else {
            throw MediaError(.unsupportedCodec, path: path, operation: "plan sound",
                             reason: "no encoder here writes \(holds ? facts.codec : facts.container.rawValue) sound for \(facts.outputName)")
        }
        // Lossy encoders keep the source's rate where it is known and sane; libopus and libvorbis choose their own.
        let bitRate = why == .lossless || !(32000...512_000).contains(facts.bitRate) ? 0 : facts.bitRate
        return SoundReencode(encoder: encoder, bitRate: encoder == "libvorbis" ? 0 : bitRate, why: why)
    }

    struct Copying {
        var plan: SoundCopy
        var startError: Int64
        var decoded: Int64
        var notices: [SoundNotice]
    }

    /// How the container signals the range, and how many packets (or samples) are decoded before it.
    static func signal(_ facts: SoundFacts) -> (SoundCopy.Signal, packets: Int, samples: Int64) {
        switch (facts.container, facts.codec) {
        case (.mp3, "mp3"): (.lameTag, 1, 0)
        case (.mp4, "opus"): (.editList, 1, opusPrerollSamples)
        // Matroska: pre-skip as CodecDelay, the end as DiscardPadding.
        case (.ogg, "opus"), (.matroska, "opus"): (.preSkip, 1, opusPrerollSamples)
        case (.mp4, "mp3"): (.editList, 3, 0)
        case (.mp4, "aac"): (.editList, facts.lowComplexity ? 1 : 2, 0)
        case (.mp4, _): (.editList, 1, 0)
        case (.ogg, "vorbis"): (.granule, 1, 0)
        default: (.none, 0, 0)
        }
    }

    /// The packets copied for `range` and what FFmpeg 5.1 will decode of them.
    static func copying(_ facts: SoundFacts, range: SoundPlan.SampleRange, edges: SoundFacts.RangeEdges, path: String) throws(MediaError) -> Copying {
        let missing = MediaError(.decodeFailed, path: path, operation: "plan sound", reason: "no audio packet holds the range's edges")
        guard let holding = edges.head.lastIndex(where: { $0.start <= range.start }) ?? (edges.headFromFirst ? edges.head.indices.first : nil),
              let last = edges.tail.firstIndex(where: { $0.end >= range.end }) ?? edges.tail.indices.last else { throw missing }
        let (signal, packets, samples) = signal(facts)
        var first = max(0, holding - packets)
        while samples > 0, first > 0, range.start.minus(edges.head[first].start) < samples { first -= 1 }
        let head = edges.head[first], kept = edges.head[holding]
        var tail = edges.tail[last]
        // Fixed frames are written one after another from the first (`SoundCopyWriter`): the last ends on that grid,
        // whatever a container's rounded timestamps say (Matroska's milliseconds).
        if facts.fixedFrame > 0, tail.start >= head.start {
            let frames = tail.start.minus(head.start).plus(facts.fixedFrame / 2) / facts.fixedFrame
            tail.start = head.start.plus(frames.times(facts.fixedFrame))
            tail.count = facts.fixedFrame
        }
        let end = min(range.end, tail.end)
        var skipStart = max(0, range.start.minus(head.start))
        let skipEnd = max(0, tail.end.minus(end))
        var startError: Int64 = 0
        var decoded = end.minus(range.start)
        var notices: [SoundNotice] = []
        switch signal {
        case .lameTag:
            // Below the decoder's own delay the tag cannot start the sound (a source with no LAME tag, cut near its start).
            if skipStart < mp3DecoderDelay || skipStart.minus(mp3DecoderDelay) > lameFieldLimit {
                startError = max(0, mp3DecoderDelay.minus(skipStart))
                decoded = decoded.minus(startError)
                notices.append(.inexact(startSamples: -startError, extraSamples: 0, sampleRate: facts.sampleRate, container: "this MP3's LAME tag"))
            }
        case .editList:
            decoded = decoded.plus(skipEnd)
            if skipEnd > 0 {
                notices.append(.signalledOnly(startSamples: 0, extraSamples: skipEnd, sampleRate: facts.sampleRate,
                                              why: "it ignores the end of an MP4 edit list; players that honour it stop at the range's end"))
            }
        case .preSkip:
            break
        case .granule:
            // FFmpeg 5.1 plays Ogg Vorbis from the first whole packet after the preroll (libvorbisfile from the granule).
            startError = -max(0, range.start.minus(kept.start))
            decoded = end.minus(kept.start)
            if startError != 0 {
                notices.append(.signalledOnly(startSamples: -startError, extraSamples: 0, sampleRate: facts.sampleRate,
                                              why: "it ignores Ogg Vorbis start trimming; libvorbisfile players start at the range's start"))
            }
        case .none:
            first = holding
            skipStart = max(0, range.start.minus(kept.start))
            startError = -skipStart
            decoded = tail.end.minus(kept.start)
            if skipStart > 0 || skipEnd > 0 {
                notices.append(.inexact(startSamples: skipStart, extraSamples: skipStart.plus(skipEnd),
                                        sampleRate: facts.sampleRate, container: facts.container.rawValue))
            }
        }
        let firstPacket = edges.head[first]
        // MP3: a frame of silence before the copied ones carries the bit reservoir they reach back for (as pcutmp3 does), so
        // the frame after the one preroll frame decodes as the source's, whatever the bit rate.
        var carrier: SoundSeams.Entry?
        if signal == .lameTag, first > 0 || !edges.headFromFirst, facts.fixedFrame > 0 {
            let from = edges.head[max(0, first - 16)]
            carrier = SoundSeams.Entry(pts: from.pts, position: from.position)
            skipStart = skipStart.plus(facts.fixedFrame)
            decoded = end.minus(range.start)
            startError = 0
            notices.removeAll { if case .inexact = $0 { true } else { false } }
        }
        if signal != .none {
            notices.insert(.copied(signal: signal, preroll: skipStart, padding: skipEnd), at: 0)
        }
        // Where the range starts before the stream's first packet the output starts with that packet.
        if range.start < firstPacket.start { startError = firstPacket.start.minus(range.start) }
        var copy = SoundCopy(firstPts: firstPacket.pts, lastPts: tail.pts, timeBaseNum: facts.timeBaseNum, timeBaseDen: facts.timeBaseDen,
                             signal: signal, prerollPackets: holding - first, skipStart: skipStart, skipEnd: skipEnd,
                             adtsToMP4: facts.adts && facts.container == .mp4)
        copy.firstPosition = firstPacket.position
        copy.carrierFrom = carrier
        return Copying(plan: copy, startError: startError, decoded: max(0, decoded), notices: notices)
    }

    /// The source's chapters clipped to each range and moved onto the output's timeline (µs).
    static func chapters(_ facts: SoundFacts, ranges: [SoundPlan.SampleRange]) -> [Chapter] {
        guard !facts.chapters.isEmpty, facts.sampleRate > 0 else { return [] }
        var chapters: [Chapter] = []
        var outputSamples: Int64 = 0
        let micro = { (samples: Int64) in samples.times(1_000_000) / Int64(facts.sampleRate) }
        for range in ranges {
            let windowStart = facts.originMicro.plus(micro(range.start.minus(facts.originSample)))
            let windowEnd = facts.originMicro.plus(micro(range.end.minus(facts.originSample)))
            chapters += Chapters.clip(facts.chapters, windowStartMicro: windowStart, windowEndMicro: windowEnd, outputStartMicro: micro(outputSamples))
            outputSamples = outputSamples.plus(range.count)
        }
        return OutputPlanner.merged(chapters)
    }
}
