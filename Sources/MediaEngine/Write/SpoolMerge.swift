import CAV

/// A stream's video and sound fetched separately (DASH adaptation sets, an HLS audio rendition) made one file the
/// pipeline reads: an MPEG-TS written by stream copy, packets in decode order, every timestamp moved by the same
/// amount so none is negative and MPEG-TS's 33-bit clock cannot wrap (a live DASH timeline counts from 1970).
/// MPEG-TS, not MP4 or Matroska: it keeps 90 kHz times as they are (Matroska rounds to milliseconds; MP4's muxer
/// moves the first to 0), and carries the codecs streams use (H.264, HEVC, AAC, AC-3, E-AC-3, MP3, Opus).
public enum SpoolMerge {
    /// Where the merged file's earliest timestamp is put (µs), give or take a second.
    static let startMicro: Int64 = 10_000_000

    /// Writes `video`'s best video stream and `audio`'s first audio stream into `output`; returns how far every time
    /// moved (µs): a time t of either input is t + shift in the output. `name` is the input the user gave.
    public static func merge(video: String, audio: String, into output: String, name: String) throws(MediaError) -> Int64 {
        let videoInput = try InputFile(path: video), audioInput = try InputFile(path: audio)
        guard let videoIndex = VideoStreamChoice.best(in: videoInput), let videoStream = videoInput.stream(videoIndex) else {
            throw MediaError(.noVideo, path: name, operation: "merge", reason: "its video representation holds no video stream")
        }
        guard let audioIndex = (0..<audioInput.streamCount).first(where: { audioInput.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }),
              let audioStream = audioInput.stream(audioIndex) else {
            throw MediaError(.noAudio, path: name, operation: "merge", reason: "its audio representation holds no audio stream")
        }
        // Whole seconds, which every stream's time base (1/N s) holds exactly: both streams move by the same time.
        let earliestSeconds = min(videoInput.originMicro, audioInput.originMicro) / 1_000_000 - (min(videoInput.originMicro, audioInput.originMicro) < 0 ? 1 : 0)
        let shift = startMicro.minus(earliestSeconds.times(1_000_000))
        do throws(AVFailure) {
            let file = try OutputFile(temporaryPath: output, finalName: "spool.ts")
            for (stream, kind) in [(videoStream, "video"), (audioStream, "sound")] where !file.canHold(stream.pointee.codecpar.pointee.codec_id) {
                throw AVFailure(code: cav_averror(EINVAL), operation: "merge",
                                detail: "its \(kind) codec (\(Probe.codecName(stream.pointee.codecpar.pointee.codec_id))) cannot be joined with the other stream here")
            }
            _ = try file.addCopy(of: videoStream)
            _ = try file.addCopy(of: audioStream)
            try file.writeHeader()
            try interleave([(videoInput, videoIndex, videoStream), (audioInput, audioIndex, audioStream)], shiftMicro: shift, into: file)
            try file.finish()
        } catch {
            throw MediaError(.notMedia, path: name, operation: error.operation, reason: "its video and sound cannot be joined into one file (\(error.text))")
        }
        return shift
    }

    /// Both inputs' packets of the chosen streams, the one decoded earlier first, shifted.
    private static func interleave(_ inputs: [(InputFile, Int, UnsafeMutablePointer<AVStream>)], shiftMicro: Int64, into file: OutputFile) throws(AVFailure) {
        var pending: [Packet?] = [nil, nil]
        var finished = [false, false]
        func next(_ side: Int) throws(AVFailure) -> Packet? {
            let (input, index, _) = inputs[side]
            while true {
                let packet = try Packet()
                guard try input.read(into: packet) == .packet else { return nil }
                if packet.streamIndex == index { return packet }
            }
        }
        func decodeMicro(_ side: Int, _ packet: Packet) -> Int64 {
            let time = packet.dts != CAV_NOPTS_VALUE ? packet.dts : packet.pts
            return time == CAV_NOPTS_VALUE ? Int64.min : inputs[side].2.micro(time)
        }
        while true {
            for side in 0..<2 where pending[side] == nil && !finished[side] {
                pending[side] = try next(side)
                finished[side] = pending[side] == nil
            }
            let ready = (0..<2).compactMap { side in pending[side].map { (side: side, micro: decodeMicro(side, $0), packet: $0) } }
            guard let earliest = ready.min(by: { $0.micro < $1.micro }) else { return }
            let side = earliest.side, packet = earliest.packet
            pending[side] = nil
            let stream = inputs[side].2
            let shift = stream.ticks(micro: shiftMicro)
            if packet.pts != CAV_NOPTS_VALUE { packet.pointer.pointee.pts = packet.pts.plus(shift) }
            if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts = packet.dts.plus(shift) }
            try file.write(packet, stream: side, timeBase: stream.pointee.time_base)
        }
    }
}
