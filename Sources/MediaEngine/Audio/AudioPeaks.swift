import CAV

/// The loudest sample (0…1, over every channel) in each of `columns` equal slices of a time range of a
/// file's main audio stream: what a waveform strip draws for a clip without pictures. Samples are read in
/// the decoder's own layout (planar or packed, integer or float): only their magnitude is needed, so no
/// resampler is involved (libswresample is not linked for this alone).
public enum AudioPeaks {
    /// More columns than the widest tile is not a waveform anyone asked for.
    static let maximumColumns = 1 << 15

    /// `startSeconds`/`endSeconds` on vtrim's timeline (0 = the container's start).
    public static func read(path: String, startSeconds: Double, endSeconds: Double, columns: Int) throws(MediaError) -> [Float] {
        guard columns > 0, columns <= maximumColumns, startSeconds.isFinite, endSeconds.isFinite, endSeconds > startSeconds else {
            throw MediaError(.invalidRange, path: path, operation: "waveform", reason: "no columns or an empty time range")
        }
        let input = try InputFile(path: path)
        let index = av_find_best_stream(input.format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = input.stream(Int(index)) else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has neither video nor audio")
        }
        do {
            return try Reader(input: input, stream: stream, streamIndex: Int(index), startSeconds: startSeconds,
                              endSeconds: endSeconds, columns: columns).read()
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "the audio cannot be decoded (\(error))")
        }
    }

    private struct Reader {
        let input: InputFile
        let stream: UnsafeMutablePointer<AVStream>
        let streamIndex: Int
        let startSeconds: Double, endSeconds: Double
        let columns: Int

        func read() throws(AVFailure) -> [Float] {
            var peaks = [Float](repeating: 0, count: columns)
            let decoder = try Decoder(stream: stream, threads: 1)
            let packet = try Packet(), frame = try Frame()
            let origin = input.originMicro
            let startMicro = origin.plus(Micro.from(seconds: startSeconds) ?? 0)
            do {
                try input.seek(streamIndex: streamIndex, timestamp: stream.ticks(micro: startMicro))
            } catch {
                try input.seekToStart()
            }
            let span = endSeconds - startSeconds
            var done = false
            // One decoded frame: each sample's time from the frame's timestamp and the sample rate.
            func take(_ frame: Frame) {
                let f = frame.pointer.pointee
                let rate = Int(f.sample_rate), count = Int(f.nb_samples), channels = Int(f.ch_layout.nb_channels)
                let timestamp = f.best_effort_timestamp != CAV_NOPTS_VALUE ? f.best_effort_timestamp : f.pts
                guard rate > 0, rate <= 1_000_000, count > 0, count <= 1 << 20, (1...64).contains(channels),
                      timestamp != CAV_NOPTS_VALUE, let data = f.extended_data else { return }
                let frameSeconds = Micro.seconds(stream.micro(timestamp).minus(origin))
                guard frameSeconds < endSeconds else { done = true; return }
                let format = AVSampleFormat(rawValue: f.format)
                let planar = av_sample_fmt_is_planar(format) != 0
                let scale = Double(columns) / span
                for sample in 0..<count {
                    let seconds = frameSeconds + Double(sample) / Double(rate)
                    guard seconds >= startSeconds else { continue }
                    guard seconds < endSeconds else { done = true; break }
                    let column = min(columns - 1, Int((seconds - startSeconds) * scale))
                    var loudest: Float = 0
                    for channel in 0..<channels {
                        let plane = planar ? data[channel] : data[0]
                        let position = planar ? sample : sample * channels + channel
                        guard let plane else { continue }
                        loudest = max(loudest, magnitude(plane, position, format))
                    }
                    peaks[column] = max(peaks[column], loudest)
                }
            }
            readLoop: while !done {
                let result = try input.read(into: packet)
                let last = result == .endOfFile
                if !last, packet.streamIndex != streamIndex { continue }
                do {
                    try decoder.decode(last ? nil : packet, into: frame) { take($0) }
                } catch {
                    throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "avcodec_receive_frame")
                }
                if last { break readLoop }
            }
            return peaks
        }

        private func magnitude(_ plane: UnsafeMutablePointer<UInt8>, _ position: Int, _ format: AVSampleFormat) -> Float {
            let raw = UnsafeRawPointer(plane)
            switch format {
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                let value = raw.load(fromByteOffset: position * 4, as: Float.self)
                return value.isFinite ? min(1, abs(value)) : 0
            case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                let value = raw.load(fromByteOffset: position * 8, as: Double.self)
                return value.isFinite ? Float(min(1, abs(value))) : 0
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                return Float(abs(Int32(raw.load(fromByteOffset: position * 2, as: Int16.self)))) / 32768
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                return Float(abs(Int64(raw.load(fromByteOffset: position * 4, as: Int32.self)))) / 2_147_483_648
            case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P:
                return Float(abs(Int(raw.load(fromByteOffset: position, as: UInt8.self)) - 128)) / 128
            default:
                return 0
            }
        }
    }
}
