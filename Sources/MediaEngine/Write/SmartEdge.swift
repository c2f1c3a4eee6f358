import CAV
import Foundation
import Locking
import Synchronization

/// One re-encoded edge of a smart cut — its head (the frames from the one shown at `start` up to K1) or its
/// tail (from the tail's start up to `end`) — encoded on a thread of its own, so a cut takes about the copy plus
/// the longer edge rather than their sum, and a join encodes the next range's edges while it writes this one's.
/// It reads the source through its own demuxer from the edge's keyframe, encodes the frames shown in the edge as
/// the plan says (`Reencoding`) and keeps the packets in memory — at most one group of pictures — until the main
/// pass writes them where they belong (the head before K1's copy, the tail after K2's).
final class SmartEdge: Sendable {
    enum Part: Sendable { case head, tail }

    /// What the edge read and encoded.
    struct Encoded: Sendable {
        /// False when no seek got back to the edge's keyframe (nothing was encoded).
        var positioned = false
        /// Encoded packets in decode order, output times, length-prefixed like the copied ones.
        var packets: [EncodedPacket] = []
        var decodeErrors = 0
        /// A frame at or past the edge's end, or the last packet the plan needs, was read.
        var reachedEnd = false
        /// The latest presentation time read (source ticks).
        var latestPresentedEnd = Int64.min
    }

    struct Work: Sendable {
        var part: Part
        var path: String
        var streamIndex: Int
        var video: VideoCut
        var smart: SmartCutPlan
        var reencoding: Reencoding
        /// What the stream's first access unit tells a decoder starting mid-stream.
        var beginning: StreamBeginning
        var decoderThreads: Int
        /// H.264/HEVC: the NAL length size the packets are written with; nil for frame-spliced codecs (as encoded).
        var lengthSize: Int?
        var rewriter: EncoderUnitRewriter?
        /// HEVC: an end of sequence closes the head, so the copied CRA starts a new coded video sequence (its POC
        /// and the source's parameter sets begin afresh) rather than continuing x265's.
        var trailer: [UInt8]?
        /// AV1, MPEG-2: the source's sequence header (the plan's trial matched the encoder to it); the edge's must state it.
        var header: [UInt8]? = nil
        /// Each re-encoded frame carries its source frame's Dolby Vision RPU and HDR10+ (`OutputVideo`), as `codec` does.
        var codec = "", carriesRPU = false, carriesHDR10Plus = false
        /// A head: pictures the scene pass kept; the head encodes a run that holds all of its frames rather than decoding them.
        var kept: EdgeFrames? = nil
    }

    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// The edge's thread puts its outcome here before it signals `done`; `join` takes it after waiting.
    private let result = Locked<Result<Encoded, any Error>?>(nil)
    private let joined = Locked<Result<Encoded, any Error>?>(nil)

    /// Starts the edge's thread, which encodes once `slots` gives it its turn; `join` waits for it.
    init(_ work: Work, slots: EdgeSlots, shouldStop: @escaping @Sendable () -> Bool) {
        let stage = work.part == .head ? "head" : "tail"
        let ticket = slots.ticket()
        let status = DetachedThread.create { [self] in
            let stop: @Sendable () -> Bool = { shouldStop() || self.cancelled.load(ordering: .relaxed) }
            let outcome: Result<Encoded, any Error>
            if slots.acquire(ticket, cancelled: stop) {
                outcome = Result { try StageTimes.measure(stage) { try Self.encode(work, shouldStop: stop) } }
                // The edge's encoder is gone: give its memory back. libsvtav1 allocates ~0.5 GiB per 1080p instance from
                // its own threads' malloc arenas, which glibc otherwise keeps; a 10-range AV1 join held 3.8 GiB.
                cav_trim_heap()
                slots.release()
            } else {
                outcome = .failure(CutInterrupted())
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        // No thread (out of threads or memory): the edge fails and says why, and its turn passes so the next edges
        // do not wait for it. Not encoded on the writer's thread: it may hold a ticket that an earlier edge waits behind.
        if status != 0 {
            slots.pass(ticket)
            result.withLock { $0 = .failure(MediaError(.writeFailed, path: work.path, operation: "smart \(stage)",
                                                       reason: "no thread could be started to encode it (\(DetachedThread.reason(status)))")) }
            done.signal()
        }
    }

    /// Waits for the edge (once); its packets, or why it failed.
    func join() -> Result<Encoded, any Error> {
        joined.withLock { joined in
            if let joined { return joined }
            StageTimes.measure("waiting for the edges") { done.wait() }
            let outcome = result.withLock { $0.take() } ?? .failure(AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "smart edge without an outcome"))
            joined = outcome
            return outcome
        }
    }

    /// Stops the edge early (the cut failed or was interrupted) and waits for its thread.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        _ = join()
    }

    private static func encode(_ work: Work, shouldStop: @escaping @Sendable () -> Bool) throws -> Encoded {
        var outcome = Encoded()
        let video = work.video, smart = work.smart
        // Output ticks = source ticks − shift (the range's own timeline, moved to where it begins in a join).
        let shift = video.packetShift
        let decodeFrom: VideoPacket, first: Int64, end: Int64, decodeDelay: Int64
        switch work.part {
        case .head:
            (decodeFrom, first, end) = (video.keyframe, smart.frameAtStart, smart.firstCopied.pts)
            decodeDelay = video.headDecodeDelay ?? max(0, video.copiedKeyframeDelay(smart))
        case .tail:
            guard let tailStart = smart.tailStart else { return outcome }
            (decodeFrom, first, end) = (smart.tailDecodeFrom, tailStart, smart.end)
            decodeDelay = video.tailDecodeDelay
        }
        let input = try StageTimes.measure("edge open") { () throws(MediaError) in try InputFile(path: work.path) }
        guard let stream = input.stream(work.streamIndex), let parameters = stream.pointee.codecpar?.pointee else { return outcome }
        let metadata = FrameMetadataCarrier(codec: FrameMetadataCodec(codec: work.codec), rpu: work.carriesRPU, hdr10Plus: work.carriesHDR10Plus,
                                            lengthSize: CleanStart(stream: stream).lengthSize)
        // Kept pictures carry no packets, so none of the metadata a re-encoded frame takes from its packet.
        let run = work.part == .head && metadata == nil ? work.kept?.take(frameAtStart: first, end: end) : nil
        var pending: [Packet] = []
        if run == nil {
            guard let positioned = try input.position(at: decodeFrom, streamIndex: work.streamIndex) else { return outcome }
            pending = positioned
        }
        outcome.positioned = true
        var encoded: [EncodedPacket] = []
        let encoder = try SegmentEncoder(reencoding: work.reencoding, source: parameters, stream: stream, lengthSize: work.lengthSize,
                                         decodeDelay: decodeDelay, trailer: work.trailer, rewriter: work.rewriter,
                                         metadata: metadata, shouldStop: shouldStop) { packet in
            encoded.append(EncodedPacket(packet))
        }
        func encode(_ frame: Frame, outputPts: Int64, sourcePts: Int64) throws {
            metadata?.reencode(sourcePts: sourcePts, as: outputPts)
            try encoder.encode(frame, outputPts: outputPts)
        }
        // The head's first frame is the one shown at `start` (the latest at or before it), at output time 0.
        let startFrame = work.part == .head ? StartFrameHold(startTicks: video.shift) : nil
        var reachedEnd = false
        func take(_ frame: Frame) throws {
            let timestamp = frame.timestamp
            if timestamp >= end {
                reachedEnd = true
            } else if let startFrame {
                if try startFrame.take(frame) { return }
                if let held = startFrame.release() { try encode(held, outputPts: video.outputStart.value, sourcePts: held.timestamp) }
                try encode(frame, outputPts: timestamp.minus(shift), sourcePts: timestamp)
            } else if timestamp >= first {
                try encode(frame, outputPts: timestamp.minus(shift), sourcePts: timestamp)
            }
        }
        let decodeErrors: Int
        if let run {
            for frame in run.frames where !reachedEnd {
                if shouldStop() { throw CutInterrupted() }
                try take(frame)
            }
            // The keyframe that closed the run is at or past the end.
            reachedEnd = true
            outcome.latestPresentedEnd = run.closingPts
            decodeErrors = 0
        } else {
            decodeErrors = try decode(work, input: input, stream: stream, pending: pending, first: first, metadata: metadata, outcome: &outcome,
                                      reachedEnd: { reachedEnd }, markEnd: { reachedEnd = true }, shouldStop: shouldStop, take: take)
        }
        if let held = startFrame?.release() { try encode(held, outputPts: video.outputStart.value, sourcePts: held.timestamp) }
        try encoder.finish(endPts: end.minus(shift))
        return try finished(outcome, encoded: encoded, decodeErrors: decodeErrors, reachedEnd: reachedEnd, work: work, parameters: parameters)
    }

    /// Decodes from the edge's keyframe (`pending`: the packets read to find it), handing `take` every frame until
    /// `reachedEnd` or the input ends; the decoder's count of damaged data.
    private static func decode(_ work: Work, input: InputFile, stream: UnsafeMutablePointer<AVStream>, pending given: [Packet], first: Int64,
                               metadata: FrameMetadataCarrier?, outcome: inout Encoded, reachedEnd: () -> Bool, markEnd: () -> Void,
                               shouldStop: () -> Bool, take: (Frame) throws -> Void) throws -> Int {
        var pending = given
        let decoder = try Decoder(stream: stream, threads: work.decoderThreads, beginning: work.beginning)
        let frame = try Frame()
        let reader = try Packet()
        while !reachedEnd() {
            let packet: Packet
            if let next = pending.popLast() {
                packet = next
            } else {
                guard try input.read(into: reader) == .packet else { break }
                packet = reader
            }
            guard packet.streamIndex == work.streamIndex else { continue }
            if shouldStop() { throw CutInterrupted() }
            let timing = packet.timing
            outcome.latestPresentedEnd = max(outcome.latestPresentedEnd, timing.pts)
            metadata?.read(packet, pts: timing.pts)
            // Frames shown before the edge's first are only references: those nothing refers to need no decoding.
            decoder.skipNonReferenceFrames(timing.pts != CAV_NOPTS_VALUE && timing.pts < first)
            try decoder.decode(packet, into: frame, take)
            if work.part == .tail, timing.isSame(as: work.video.lastNeeded) { markEnd() }
        }
        try decoder.decode(nil, into: frame, take)
        return decoder.errors
    }

    /// The edge's outcome, once what it encoded is checked against the source's header.
    private static func finished(_ given: Encoded, encoded: [EncodedPacket], decodeErrors: Int, reachedEnd: Bool, work: Work,
                                 parameters: AVCodecParameters) throws -> Encoded {
        // The trial checked one frame of the same encoder and options; this checks what is spliced.
        if let expected = work.header.flatMap({ StreamHeader.read(codec: parameters.codec_id, keyframe: $0) }), let first = encoded.first,
           let mismatch = expected.mismatch(edge: StreamHeader.read(codec: parameters.codec_id, keyframe: first.bytes)) {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "the re-encoded \(work.part == .head ? "head" : "tail")'s header matching the source's: \(mismatch.description)")
        }
        var outcome = given
        outcome.packets = encoded
        outcome.decodeErrors = decodeErrors
        outcome.reachedEnd = reachedEnd
        return outcome
    }
}
