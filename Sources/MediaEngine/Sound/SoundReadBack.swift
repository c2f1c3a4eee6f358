import CAV

/// A written cut of sound read back: the samples FFmpeg decodes from it, counted from its packets (each packet's
/// samples less the trimming its demuxer asks for) without decoding them. Whole codec frames where the codec decodes
/// them whole (an MP4's shortened last AAC sample still decodes to 1024).
public struct SoundReadBack: Sendable, Equatable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var decodedSamples: Int64

    public var durationSeconds: Double { sampleRate > 0 ? Double(decodedSamples) / Double(sampleRate) : 0 }

    /// Reads `path` (a temporary file, to be named `outputName`); errors name the input, as every error does.
    public static func measure(path: String, outputName: String, input: String) throws(MediaError) -> SoundReadBack {
        let file: InputFile
        do { file = try InputFile(path: path) } catch {
            throw MediaError(.verifyFailed, path: input, operation: "read back", reason: "cannot read the written \(outputName) back (\(error.reason))")
        }
        let index = Int(av_find_best_stream(file.format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0))
        guard index >= 0, let stream = file.stream(index), let parameters = stream.pointee.codecpar?.pointee, parameters.sample_rate > 0 else {
            throw MediaError(.verifyFailed, path: input, operation: "read back", reason: "the written \(outputName) holds no audio")
        }
        let ogg = FFmpegText.string(file.format.pointee.iformat?.pointee.name) == "ogg"
        let whole = [AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3].contains(parameters.codec_id) ? Int64(max(0, parameters.frame_size)) : 0
        let samples = AVRational(num: 1, den: parameters.sample_rate)
        // Skips may span packets (an MP3's LAME delay, Opus pre-skip): summed, then taken off the sum of the packets.
        var total: Int64 = 0, skipped: Int64 = 0, startSkipped = false
        // Vorbis decodes nothing from its first packet (it only primes the overlap).
        var first = parameters.codec_id == AV_CODEC_ID_VORBIS
        do {
            let packet = try Packet()
            while try file.read(into: packet) == .packet {
                // Matroska may leave a block's duration out: a codec of fixed frames gives its frame anyway.
                guard packet.streamIndex == index, packet.duration > 0 || whole > 0 else { continue }
                let count = whole > 0 ? whole : av_rescale_q(packet.duration, stream.pointee.time_base, samples)
                if first {
                    first = false
                    continue
                }
                total = total.plus(count)
                var size = 0
                if let data = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 {
                    let start = Int64(UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24)
                    let end = Int64(UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24)
                    // Ogg's demuxer gives the last packet's duration already less its end trimming.
                    skipped = skipped.plus(start).plus(ogg ? 0 : end)
                    if start > 0 { startSkipped = true }
                }
            }
            // Opus in Matroska: the decoder itself skips OpusHead's pre-skip (no side data says it).
            if parameters.codec_id == AV_CODEC_ID_OPUS, !startSkipped, parameters.extradata_size >= 12, let head = parameters.extradata {
                skipped = skipped.plus(Int64(head[10]) | Int64(head[11]) << 8)
            }
            total = max(0, total.minus(skipped))
        } catch {
            throw MediaError(.verifyFailed, path: input, operation: "read back", reason: "cannot read the written \(outputName) back (\(error.text))")
        }
        return SoundReadBack(codec: Probe.codecName(parameters.codec_id), sampleRate: Int(parameters.sample_rate),
                             channels: Int(parameters.ch_layout.nb_channels), decodedSamples: total)
    }
}
