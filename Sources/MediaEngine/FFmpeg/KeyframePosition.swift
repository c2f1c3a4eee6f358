import CAV

extension InputFile {
    /// Puts the demuxer just past `keyframe` of stream `index` and returns the packets read on the way that
    /// `keep` wants (other streams'), with the keyframe last; nil when no seek reaches it. A seek that lands
    /// past the keyframe (files without an index, e.g. MPEG-TS) is retried further back, then from the start.
    func position(at keyframe: VideoPacket, streamIndex index: Int, keep: (Packet) -> Bool = { _ in false }) throws(AVFailure) -> [Packet]? {
        guard let stream = stream(index) else { return nil }
        for attempt in stream.seekLadder(toReach: keyframe.pts) {
            do {
                if let timestamp = attempt {
                    try seek(streamIndex: index, timestamp: timestamp)
                } else {
                    try seekToStart()
                }
            } catch {
                continue
            }
            var kept: [Packet] = []
            let packet = try Packet()
            while try read(into: packet) == .packet {
                guard packet.streamIndex == index else {
                    if keep(packet) {
                        let copy = try Packet()
                        av_packet_move_ref(copy.pointer, packet.pointer)
                        kept.append(copy)
                    }
                    continue
                }
                let timing = packet.timing
                if timing.isSame(as: keyframe) {
                    let copy = try Packet()
                    av_packet_move_ref(copy.pointer, packet.pointer)
                    return kept + [copy]
                }
                if timing.dts > keyframe.dts, timing.dts > keyframe.pts { break }
            }
        }
        return nil
    }
}
