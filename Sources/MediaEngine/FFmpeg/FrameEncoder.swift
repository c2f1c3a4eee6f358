import CAV

/// One encoder and its bookkeeping, for every part of vtrim that encodes: an exact cut's video, a smart
/// cut's head and tail, the serve preview, a still picture. Each frame goes in at the output time it is
/// given (the picture type left to the encoder, or P after the first); each packet out gets its frame's exact time and duration
/// (`FrameDurations`, where kept), passes through `rewrite` and is handed to `write`; `shouldStop` is
/// checked at every packet out, so an encoder's flush stops promptly too.
final class FrameEncoder {
    let encoder: Encoder
    private let packet: Packet
    private var durations: FrameDurations?
    private let shouldStop: () -> Bool
    private let rewrite: ((Packet) throws -> Void)?
    private let write: (Packet) throws -> Void
    /// Every frame after the first is sent as a P picture (a smart cut's edges: nothing reordered, whatever
    /// reorder depth the encoder's SPS declares).
    private let predictedAfterFirst: Bool
    /// The caller's ticks where the encoder counts in others (mpeg2video counts frames): frames are sent and
    /// packets come back in these; nil when they are the encoder's own.
    private let callerTimeBase: AVRational?
    private(set) var framesSent = 0
    /// The last time sent in the encoder's own ticks (with `callerTimeBase`).
    private var lastEncoderPts: Int64?
    /// Packets out before their frame's duration is known (an encoder without lookahead returns a frame before the
    /// next is sent, libvpx's VP8 among them): held, in order, until it is, so no frame keeps the encoder's own guess.
    private var waiting: [Packet] = []

    /// - Parameters:
    ///   - keepsDurations: give packets their frames' exact times and durations (cuts); false leaves the
    ///     encoder's (previews, pictures).
    init(encoder: Encoder, keepsDurations: Bool = true, predictedAfterFirst: Bool = false, callerTimeBase: AVRational? = nil,
         shouldStop: @escaping () -> Bool = { false },
         rewrite: ((Packet) throws -> Void)? = nil, write: @escaping (Packet) throws -> Void) throws(AVFailure) {
        self.encoder = encoder
        self.predictedAfterFirst = predictedAfterFirst
        self.callerTimeBase = callerTimeBase
        packet = try Packet()
        durations = keepsDurations ? FrameDurations() : nil
        self.shouldStop = shouldStop
        self.rewrite = rewrite
        self.write = write
    }

    /// Sends `frame` to be shown at `outputPts` (encoder ticks); its data is released.
    func encode(_ frame: Frame, outputPts: Int64) throws {
        durations?.frameSent(at: outputPts)
        try releaseWaiting()
        if let callerTimeBase {
            // Rounded to the encoder's frame count: a frame off the grid (a join's range starting mid-frame, a 1 ms clock
            // at 29.97 fps) must not take its neighbour's count, which the encoder refuses.
            var pts = av_rescale_q(outputPts, callerTimeBase, encoder.codecContext.pointee.time_base)
            if let last = lastEncoderPts, pts <= last { pts = last.plus(1) }
            lastEncoderPts = pts
            frame.pointer.pointee.pts = pts
        } else {
            frame.pointer.pointee.pts = outputPts
        }
        frame.pointer.pointee.pict_type = predictedAfterFirst && framesSent > 0 ? AV_PICTURE_TYPE_P : AV_PICTURE_TYPE_NONE
        frame.pointer.pointee.key_frame = 0
        framesSent += 1
        try encoder.send(frame)
        try drain()
        frame.unref()
    }

    /// Flushes the encoder; with durations kept, the last frame lasts until `endPts`.
    func finish(endPts: Int64? = nil) throws {
        if let endPts { durations?.close(at: endPts) }
        try releaseWaiting()
        try encoder.send(nil)
        try drain()
        // Nothing more will be known: what still waits goes as it is.
        for held in waiting { try deliver(held) }
        waiting.removeAll()
    }

    private func drain() throws {
        while try encoder.receive(into: packet) {
            if shouldStop() { throw CutInterrupted() }
            if let callerTimeBase { av_packet_rescale_ts(packet.pointer, encoder.codecContext.pointee.time_base, callerTimeBase) }
            if !waiting.isEmpty || durations?.awaitsDuration(packet) == true {
                waiting.append(try packet.clone())
                continue
            }
            try deliver(packet)
        }
    }

    private func deliver(_ packet: Packet) throws {
        // Exact times first: `rewrite` derives decode times from them (an encoder's own are rounded to its clock —
        // mpeg2video's frame count, libvpx's 10 MHz — and a join's seams leave less than a frame between decode times).
        durations?.apply(to: packet)
        try rewrite?(packet)
        try write(packet)
    }

    private func releaseWaiting() throws {
        while let first = waiting.first, durations?.awaitsDuration(first) != true {
            waiting.removeFirst()
            try deliver(first)
        }
    }
}

/// The encoder's output durations: each encoded frame lasts until the next one starts, the last until
/// the end of its part. Encoders return packets later (and reordered), so durations wait here, keyed by
/// presentation time, until their packet comes out; each is taken once. libvpx returns times rounded to
/// its own clock (10 MHz), so a packet takes the waiting frame nearest its time, and that frame's exact time.
struct FrameDurations {
    private var pending: [(pts: Int64, duration: Int64?)] = []
    private(set) var lastPts: Int64?

    /// A frame shown at `pts` (output ticks) was sent to the encoder: the one before it ends here.
    mutating func frameSent(at pts: Int64) {
        if let previous = lastPts, let index = pending.lastIndex(where: { $0.pts == previous }) {
            pending[index].duration = max(1, pts.minus(previous))
        }
        pending.append((pts, nil))
        lastPts = pts
    }

    /// No more frames: the last one lasts until `endPts`.
    mutating func close(at endPts: Int64) {
        if let last = lastPts, let index = pending.lastIndex(where: { $0.pts == last }) {
            pending[index].duration = max(1, endPts.minus(last))
        }
    }

    /// The packet's frame (the waiting one nearest its time) does not yet know how long it lasts.
    func awaitsDuration(_ packet: Packet) -> Bool {
        nearest(packet).map { pending[$0].duration == nil } ?? false
    }

    private func nearest(_ packet: Packet) -> Int? {
        pending.indices.min(by: { pending[$0].pts.minus(packet.pts).magnitude < pending[$1].pts.minus(packet.pts).magnitude })
    }

    /// Gives the packet its frame's exact time and duration (once known), forgetting the frame.
    mutating func apply(to packet: Packet) {
        guard let index = nearest(packet) else { return }
        let frame = pending[index]
        guard let duration = frame.duration else { return }
        pending.remove(at: index)
        if packet.dts == packet.pts { packet.pointer.pointee.dts = frame.pts }
        packet.pointer.pointee.pts = frame.pts
        packet.pointer.pointee.duration = duration
    }
}
