import CAV

/// Whether the video's first frame actually decodes: what `decodable` in probe means (an available
/// decoder is not enough: a header can describe a stream whose data is missing or unreadable). Cheap:
/// one decoder thread, from the first packet, stopping at the first frame.
enum FirstFrame {
    /// Packets of the stream tried before giving up (a stream that starts on a non-keyframe needs some).
    static let packetLimit = 300

    /// Nil when a frame decoded; else why not.
    static func failure(_ input: InputFile, streamIndex: Int) -> String? {
        guard let stream = input.stream(streamIndex) else { return "the video stream is missing" }
        defer { try? input.seekToStart() }
        let decoder: Decoder, packet: Packet, frame: Frame
        // From the first packet; a file that cannot seek is read on from where stream analysis left it.
        try? input.seekToStart()
        do {
            decoder = try Decoder(stream: stream, threads: 1)
            packet = try Packet()
            frame = try Frame()
        } catch {
            return "the decoder cannot start (\(error.text))"
        }
        var sent = 0
        var decoded = false
        while !decoded, sent < packetLimit {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch { break }
            if result == .endOfFile { break }
            guard packet.streamIndex == streamIndex else { continue }
            sent += 1
            try? decoder.decode(packet, into: frame) { _ in decoded = true }
        }
        if !decoded { try? decoder.decode(nil, into: frame) { _ in decoded = true } }
        if decoded { return nil }
        if sent == 0 { return "the file holds no video data" }
        return "no frame decoded from its first \(sent) packet(s)" + (decoder.errors > 0 ? " (\(decoder.errors) decode error(s))" : "")
    }
}
