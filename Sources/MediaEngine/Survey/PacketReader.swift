import CAV

/// Reads one video stream's packets (timing and keyframe kind only) in decode order.
struct PacketReader {
    let input: InputFile
    let index: Int
    let stream: UnsafeMutablePointer<AVStream>
    let path: String

    struct Window {
        var packets: [VideoPacket]
        var reachesEndOfStream: Bool
        /// The first packet the source's edit list hides after the range's keyframe (pts), if any.
        var hiddenFrom: Int64?
        /// No clean start lies at or before the start: the window's flagged keyframes count as starts.
        var startsUnclean = false
        /// Start windows: the edge found in them (the window begins at its keyframe).
        var edge: StartEdge?
        /// Some packets came without a decode time (Matroska): the reader derived theirs, unreliably for the
        /// first packets after a seek.
        var decodeTimesDerived = false
    }

    private var second: Int64 { stream.secondTicks }

    /// Packets from the clean start shown at or before `start` (or, with none, the first one after it) until
    /// `StartEdge.isSettled`. Files without a precise index make the demuxer land late: it backs off, then
    /// reads from the beginning. A stream with no clean start at or before `start` at all (a capture that
    /// begins mid-broadcast) starts at the flagged keyframe before it (`startsUnclean`) rather than late.
    func startWindow(start: Int64, end: Int64, smart: Bool) throws(MediaError) -> Window {
        if let window = try startWindow(start: start, end: end, smart: smart, acceptingUnclean: false) { return window }
        if var window = try startWindow(start: start, end: end, smart: smart, acceptingUnclean: true) {
            window.startsUnclean = true
            return window
        }
        return Window(packets: [], reachesEndOfStream: true, hiddenFrom: nil)
    }

    /// Nil when no clean start lies at or before `start` but a flagged keyframe does.
    private func startWindow(start: Int64, end: Int64, smart: Bool, acceptingUnclean: Bool) throws(MediaError) -> Window? {
        var backoff: Int64 = 0
        for attempt in 0..<5 {
            let fromBeginning = attempt == 4
            let target: Int64? = fromBeginning ? nil : start.minus(backoff)
            backoff = backoff == 0 ? second.times(2) : backoff.plus(backoff.plus(backoff))
            var sawKeyframeBefore = false, sawUncleanBefore = false, sawClean = false
            let window = try read(from: target, acceptingUnclean: acceptingUnclean) { packets, latest in
                if latest.isKeyframe, latest.isClean { sawClean = true }
                if latest.isKeyframe, latest.pts <= start {
                    if latest.isClean { sawKeyframeBefore = true } else { sawUncleanBefore = true }
                }
                if !sawKeyframeBefore {
                    // Landed past the start: back off. From the beginning with no keyframe at or before the
                    // start, the first keyframe after it starts the cut.
                    if !fromBeginning { return latest.dts > start ? .giveUp : .more }
                    if latest.dts <= start || !sawClean { return .more }
                } else if latest.dts <= start {
                    return .more
                }
                // A smart cut waits for a clean point further on: look every so often, not at every packet.
                if smart, !latest.isKeyframe, latest.dts < end, packets.count % 64 != 0 { return .more }
                return StartEdge.isSettled(packets, start: start, end: end, smart: smart) ? .done : .more
            }
            if fromBeginning, !sawKeyframeBefore, sawUncleanBefore, !acceptingUnclean { return nil }
            guard var window, sawClean, sawKeyframeBefore || fromBeginning else { continue }
            if let edge = StartEdge.make(packets: window.packets, start: start),
               let position = window.packets.firstIndex(where: { $0.isSame(as: edge.keyframe) }) {
                window.packets.removeFirst(position)
                window.edge = edge
            }
            return window
        }
        return acceptingUnclean ? nil : Window(packets: [], reachesEndOfStream: true, hiddenFrom: nil)
    }

    /// Packets from a keyframe shown before `end` (at or after the cut's keyframe) until `EndEdge.make`
    /// settles; for a smart cut from far enough back to hold two clean points. One read from the cut's
    /// keyframe when the range is short.
    func endWindow(end: Int64, keyframe: VideoPacket, frameAtStart: Int64, start: Window, smart: Bool) throws(MediaError) -> Window {
        func settled(_ packets: [VideoPacket], _ reachesEnd: Bool) -> Bool {
            EndEdge.make(packets: packets, firstWanted: frameAtStart, end: end, reachesEndOfStream: reachesEnd) != nil
        }
        if settled(start.packets, start.reachesEndOfStream) { return start }
        var target = end.minus(1)
        var backoff: Int64 = 0
        for _ in 0..<6 {
            let seekTarget = target.minus(backoff)
            guard seekTarget > keyframe.pts else { break }
            enum Landing { case none, usable, beforeCut, pastEnd }
            var landing = Landing.none
            var anchor = 0
            let window = try read(from: seekTarget) { packets, latest in
                if landing == .none {
                    guard latest.isKeyframe else { return .more }
                    if latest.dts <= keyframe.dts { landing = .beforeCut; return .giveUp }
                    if latest.pts >= end { landing = .pastEnd; return .giveUp }
                    landing = .usable
                    anchor = packets.count - 1
                }
                // Nothing settles before a packet decodes at or after the end (cheap to check each time).
                guard latest.dts >= end else { return .more }
                return settled(Array(packets[anchor...]), false) ? .done : .more
            }
            if landing == .pastEnd {
                // An imprecise index landed after the end: back off.
                backoff = backoff == 0 ? second.times(2) : backoff.plus(backoff.plus(backoff))
                continue
            }
            guard let window, landing == .usable else { break }
            let packets = Array(window.packets.drop(while: { !$0.isKeyframe }))
            if smart, !SmartCutPlan.endWindowSuffices(packets, end: end, decodeTimesDerived: window.decodeTimesDerived) {
                // K2's leading pictures are decoded from the clean point before it: read from further back.
                target = (packets.first?.pts ?? target).minus(1)
                continue
            }
            return Window(packets: packets, reachesEndOfStream: window.reachesEndOfStream, hiddenFrom: window.hiddenFrom)
        }
        // The whole range in one read, from the cut's keyframe (seeking further back where the index is imprecise).
        for target in stream.seekLadder(toReach: keyframe.pts) {
            if let window = try read(from: target, startingAt: keyframe, verdict: { packets, latest in
                latest.dts >= end && settled(packets, false) ? .done : .more
            }) {
                return window
            }
        }
        throw MediaError(.decodeFailed, path: path, operation: "av_seek_frame",
                         reason: "cannot get back to the keyframe the cut starts from to read the range")
    }

    /// The stream's parameter sets: its record's and those inside the samples from `keyframe` through `last`
    /// — a read of the range's packets, without decoding — for smart cuts, and for copies of a source whose
    /// samples may carry sets of their own (Annex B, or a sample entry other than avc1/hvc1; an avc1/hvc1
    /// copy drops in-band duplicates of its record's sets as it writes, see `CopyVideoWriter`). Nil for
    /// other codecs.
    func parameterSets(_ record: SourceRecord, mode: CutMode, from keyframe: VideoPacket, through last: VideoPacket?,
                       origin: Int64) throws(MediaError) -> SourceParameterSets? {
        guard let codec = record.codec, let sets = SourceParameterSets.read(extradata: record.extradata, codec: codec, tag: record.tag) else {
            return nil
        }
        let tag = record.tag
        guard mode != .exact, mode == .smart || sets.isAnnexB || !["avc1", "hvc1"].contains(tag ?? "") else { return sets }
        let timeBase = stream.pointee.time_base
        for target in stream.seekLadder(toReach: keyframe.pts) {
            var scan = sets
            let window = try read(from: target, startingAt: keyframe, verdict: { _, _ in .more }, inspecting: { packet in
                let micro = av_rescale_q(packet.timing.pts, timeBase, AVRational(num: 1, den: 1_000_000))
                packet.withData { bytes in
                    for range in NALUnits.unitRanges(bytes, lengthSize: scan.lengthSize) ?? []
                        where NALUnits.isParameterSet(type: NALUnits.type(ofUnitStartingWith: bytes[range.lowerBound], codec: codec), codec: codec) {
                        if let set = ParameterSet.parse(ArraySlice(bytes[range]), codec: codec) {
                            scan.scanned(set, dts: packet.dts == CAV_NOPTS_VALUE ? packet.timing.pts : packet.dts,
                                         seconds: Micro.seconds(micro.minus(origin)))
                        }
                    }
                }
                return !(last.map { packet.timing.isSame(as: $0) } ?? false)
            })
            if window != nil {
                scan.scanned = true
                return scan
            }
        }
        return sets
    }

    enum Verdict { case more, done, giveUp }

    /// Reads video packets from a seek to `target` (nil: the beginning), from the first keyframe on (or
    /// from `startingAt`, a keyframe that must come up), asking `verdict` after each. Nil when it gave up
    /// or the seek failed.
    private func read(from target: Int64?, startingAt first: VideoPacket? = nil, acceptingUnclean: Bool = false,
                      verdict: (_ packets: [VideoPacket], _ latest: VideoPacket) -> Verdict,
                      inspecting: ((Packet) -> Bool)? = nil) throws(MediaError) -> Window? {
        do {
            if let target {
                try input.seek(streamIndex: index, timestamp: target)
            } else {
                try input.seekToStart()
            }
        } catch {
            if target != nil { return nil }
        }
        let clean = CleanStart(stream: stream)
        // MPEG program and transport streams stamp presentation times on some packets only; AVI on none (its
        // frames are placed by decode slots, and that is known).
        let stampsSomePackets = ["mpeg", "mpegts", "mpegvideo"].contains(FFmpegText.string(input.format.pointee.iformat?.pointee.name) ?? "")
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        var packets: [VideoPacket] = []
        var hiddenFrom: Int64?
        var latestShown: Int64?
        var reachedFirst = false
        var decodeTimesDerived = false
        while true {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch {
                // Data that cannot be read is where this read ends; the writer will meet it too and say so.
                return Window(packets: packets, reachesEndOfStream: true, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            }
            if result == .endOfFile {
                return Window(packets: packets, reachesEndOfStream: true, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            }
            guard packet.streamIndex == index else { continue }
            var timing = packet.timing
            guard timing.pts != CAV_NOPTS_VALUE else { continue }
            // A missing decode time (Matroska's first blocks) is no later than the one before it: the edge
            // rules, which wait for decode times to pass a point, then wait rather than stop early.
            if packet.dts == CAV_NOPTS_VALUE {
                decodeTimesDerived = true
                if let previous = packets.last { timing.dts = min(timing.pts, previous.dts) }
            }
            if !reachedFirst, let first {
                guard timing.isSame(as: first) else {
                    if timing.dts > first.dts { return nil }
                    continue
                }
            }
            reachedFirst = true
            if timing.isKeyframe {
                timing.isClean = acceptingUnclean || clean.isClean(packet)
                // A keyframe without a presentation time of its own (MPEG-PS stamps only some) in a stream that
                // reorders frames is shown later than the decode time it is given: no frame can be placed around it.
                let shownAtKnownTime = packet.pts != CAV_NOPTS_VALUE || !stampsSomePackets
                    || (stream.pointee.codecpar?.pointee.video_delay ?? 0) == 0
                timing.isSplicePoint = shownAtKnownTime && clean.isSplicePoint(packet)
            }
            // The source's edit list ends before its last frames: those after a shown frame are hidden.
            if packet.isDiscarded {
                if let shown = latestShown, timing.pts > shown { hiddenFrom = min(hiddenFrom ?? .max, timing.pts) }
            } else {
                latestShown = max(latestShown ?? .min, timing.pts)
            }
            if let inspecting {
                if !inspecting(packet) { return Window(packets: [], reachesEndOfStream: false, hiddenFrom: nil) }
                continue
            }
            packets.append(timing)
            switch verdict(packets, timing) {
            case .more: continue
            case .done: return Window(packets: packets, reachesEndOfStream: false, hiddenFrom: hiddenFrom, decodeTimesDerived: decodeTimesDerived)
            case .giveUp: return nil
            }
        }
    }

}
