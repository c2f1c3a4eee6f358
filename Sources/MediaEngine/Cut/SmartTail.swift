import CAV
import Foundation
import Synchronization

/// A smart cut's tail, encoded on a thread of its own while the main pass encodes the head and copies the
/// middle, so a cut takes about the copy plus the longer of the two edges rather than their sum. It reads
/// the source through its own demuxer from the plan's `tailDecodeFrom`, encodes the frames shown from the
/// tail's start up to `end` as the plan says (`Reencoding`, half the threads each) and keeps the packets
/// in memory — at most one group of pictures — until the main pass, at K2, writes them after the copied ones.
final class SmartTail: @unchecked Sendable {
    /// What the tail read and encoded.
    struct Outcome {
        /// False when no seek got back to `tailDecodeFrom` (nothing was encoded).
        var positioned = false
        /// Encoded packets in decode order, output times, length-prefixed like the copied ones.
        var packets: [Packet] = []
        var decodeErrors = 0
        /// A frame at or past `end`, or the last packet the plan needs, was read.
        var reachedEnd = false
        /// The latest presentation time read (source ticks).
        var latestPresentedEnd = Int64.min
    }

    struct Work: Sendable {
        var path: String
        var streamIndex: Int
        var video: VideoCut
        var smart: SmartCutPlan
        var reencoding: Reencoding
        var decoderThreads: Int
        var lengthSize: Int
        var rewriter: EncoderUnitRewriter?
    }

    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    // Written by the thread before `done` is signalled, read after `join` waited for it.
    private var result: Result<Outcome, any Error> = .success(Outcome())
    private var joined = false

    /// Starts encoding the tail; `join` waits for it.
    init(_ work: Work, shouldStop: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in
            result = Result {
                try StageTimes.measure("tail") { try Self.encode(work, shouldStop: { shouldStop() || self.cancelled.load(ordering: .relaxed) }) }
            }
            done.signal()
        }
        thread.name = "vtrim smart tail"
        thread.start()
    }

    /// Waits for the tail (once); its packets, or why it failed.
    func join() -> Result<Outcome, any Error> {
        if !joined {
            StageTimes.measure("waiting for the tail") { done.wait() }
            joined = true
        }
        return result
    }

    /// Stops the tail early (the cut failed or was interrupted) and waits for its thread.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        _ = join()
    }

    private static func encode(_ work: Work, shouldStop: @escaping @Sendable () -> Bool) throws -> Outcome {
        var outcome = Outcome()
        guard let tailStart = work.smart.tailStart else { return outcome }
        let input = try InputFile(path: work.path)
        guard let stream = input.stream(work.streamIndex), let parameters = stream.pointee.codecpar?.pointee else { return outcome }
        guard var pending = try input.position(at: work.smart.tailDecodeFrom, streamIndex: work.streamIndex) else { return outcome }
        outcome.positioned = true
        let decoder = try Decoder(stream: stream, threads: work.decoderThreads, beginning: work.video.beginning)
        let encoded = PacketList()
        let encoder = try SegmentEncoder(reencoding: work.reencoding, source: parameters, stream: stream, lengthSize: work.lengthSize,
                                         decodeDelay: work.video.tailDecodeDelay, rewriter: work.rewriter, shouldStop: shouldStop) { packet in
            encoded.packets.append(try packet.clone())
        }
        // Output ticks = source ticks − shift (the range's own timeline, moved to where it begins in a join).
        let shift = work.video.shift.minus(work.video.outputStart), end = work.smart.end
        var reachedEnd = false, decodeErrors = 0
        func take(_ frame: Frame) throws {
            let timestamp = frame.timestamp
            if timestamp >= end {
                reachedEnd = true
            } else if timestamp >= tailStart {
                try encoder.encode(frame, outputPts: timestamp.minus(shift))
            }
        }
        let frame = try Frame()
        let reader = try Packet()
        while !reachedEnd {
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
            try decoder.decode(packet, into: frame, errors: &decodeErrors) { frame throws in try take(frame) }
            if timing.isSame(as: work.video.lastNeeded) { reachedEnd = true }
        }
        try decoder.decode(nil, into: frame, errors: &decodeErrors) { frame throws in try take(frame) }
        try encoder.finish(endPts: end.minus(shift))
        outcome.packets = encoded.packets
        outcome.decodeErrors = decodeErrors
        outcome.reachedEnd = reachedEnd
        return outcome
    }

    private final class PacketList {
        var packets: [Packet] = []
    }
}
