import CAV

/// A small H.264 stand-in for a video a browser cannot play (HEVC in Chromium on Linux): at most
/// `maxLines` lines on its shorter side, libx264 ultrafast, fragmented MP4 (a fragment per keyframe, so it
/// plays while it is still being written), the display matrix kept, the first sound stream copied where MP4 and
/// browsers take it (AAC, MP3) and otherwise made AAC (`PreviewSound`: AC-3, MP2, PCM, FLAC, …). Times are on vtrim's
/// timeline (0 = the source's start), so the player's clock reads the source's times. Cuts never use it: they always
/// read the source.
public enum PreviewEncoder {
    public struct Result: Sendable {
        /// The sound is in the preview: copied, or made AAC (`soundEncoded`).
        public var audioKept: Bool
        public var soundEncoded: Bool
        public var width: Int
        public var height: Int
    }

    public static func encode(path: String, to output: String, maxLines: Int = 540, threads: Int = 1,
                              shouldStop: () -> Bool = { false }, progress: (Double) -> Void = { _ in }) throws(MediaError) -> Result {
        let input = try InputFile(path: path)
        guard let videoIndex = VideoStreamChoice.best(in: input), let stream = input.stream(videoIndex),
              let parameters = stream.pointee.codecpar?.pointee else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        guard parameters.width > 0, parameters.height > 0, Int(parameters.width) * Int(parameters.height) <= Limits.maximumPixels else {
            throw MediaError(.tooLarge, path: path, operation: "picture size", reason: "its picture size cannot be previewed")
        }
        do {
            return try Job(input: input, stream: stream, index: videoIndex, parameters: parameters, output: output,
                           maxLines: maxLines, threads: threads).run(shouldStop: shouldStop, progress: progress)
        } catch let error as MediaError {
            throw error
        } catch let failure as AVFailure {
            throw MediaError(.decodeFailed, path: path, operation: failure.operation, reason: "cannot make a preview (\(failure.text))")
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: "preview", reason: "cannot make a preview (\(error))")
        }
    }

    /// One preview encode: decoder → scaler → encoder → fragmented MP4, audio copied alongside.
    private final class Job {
        let input: InputFile
        let stream: UnsafeMutablePointer<AVStream>
        let index: Int
        let output: OutputFile
        let decoder: Decoder
        let encoder: FrameEncoder
        let converter = FrameConverter(flags: SWS_BILINEAR)
        let width: Int32
        let height: Int32
        let videoOut: Int
        let audio: (input: Int, output: Int, timeBase: AVRational)?
        let durationMicro: Int64
        let movflags: String
        let adts: PacketFilter?
        /// The source's sound made AAC, where it is not one MP4 and browsers take as it is.
        let sound: PreviewSound?
        private let frame: Frame

        init(input: InputFile, stream: UnsafeMutablePointer<AVStream>, index: Int, parameters: AVCodecParameters, output path: String,
             maxLines: Int, threads: Int) throws {
            self.input = input
            self.stream = stream
            self.index = index
            let shorter = min(parameters.width, parameters.height)
            let scale = min(1, Double(maxLines) / Double(shorter))
            func even(_ value: Int32) -> Int32 { max(2, Int32((Double(value) * scale / 2).rounded()) * 2) }
            width = even(parameters.width)
            height = even(parameters.height)
            output = try OutputFile(temporaryPath: path, finalName: "preview.mp4")
            decoder = try Decoder(stream: stream, threads: threads)
            var settings = Encoder.Settings(source: parameters, stream: stream, pixelFormat: AV_PIX_FMT_YUV420P, threads: threads,
                                            globalHeader: output.muxer?.needsGlobalHeader ?? true)
            settings.width = width
            settings.height = height
            settings.colorRange = AVCOL_RANGE_MPEG
            let rate = settings.frameRate.num > 0 && settings.frameRate.den > 0 ? Double(settings.frameRate.num) / Double(settings.frameRate.den) : 30
            settings.options = ["preset": "ultrafast", "crf": "28", "g": String(max(1, Int(rate * 2))), "bf": "0"]
            let made = try Encoder(name: "libx264", settings: settings)
            let out = try output.addStream()
            try made.copyParameters(to: out)
            try output.copySideData(from: stream, to: out, only: AV_PKT_DATA_DISPLAYMATRIX)
            let videoOut = Int(out.pointee.index)
            self.videoOut = videoOut
            let output = self.output, timeBase = stream.pointee.time_base
            encoder = try FrameEncoder(encoder: made, keepsDurations: false) { packet in
                try output.write(packet, stream: videoOut, timeBase: timeBase)
            }
            var audio: (Int, Int, AVRational)?
            var adts: PacketFilter?
            var sound: PreviewSound?
            for candidate in 0..<input.streamCount {
                guard let source = input.stream(candidate), let codec = source.pointee.codecpar?.pointee,
                      codec.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
                guard [AV_CODEC_ID_AAC, AV_CODEC_ID_MP3].contains(codec.codec_id) else {
                    // One this FFmpeg cannot decode, or that will not resample, leaves the preview silent rather than
                    // without a picture.
                    sound = try? PreviewSound(stream: source, index: candidate, output: output, originMicro: input.originMicro)
                    if sound != nil { break }
                    continue
                }
                let copy = try output.addCopy(of: source, keepSideData: false)
                audio = (candidate, Int(copy.pointee.index), source.pointee.time_base)
                // AAC in ADTS (MPEG-TS, .aac) carries its configuration in each packet's header, and FFmpeg 5.1's
                // fragmented MP4 refuses such packets ("Malformed AAC bitstream", EPERM): aac_adtstoasc takes the
                // headers off, and the moov waits for the first fragment (delay_moov), by when the first audio packet
                // has brought the configuration. (Sound that starts more than a fragment after the picture would find
                // the moov written without it: MPEG-TS interleaves well within that.)
                if codec.codec_id == AV_CODEC_ID_AAC, codec.extradata_size == 0, let parameters = source.pointee.codecpar {
                    adts = try PacketFilter(name: "aac_adtstoasc", parameters: parameters, timeBase: source.pointee.time_base)
                }
                break
            }
            self.audio = audio
            self.adts = adts
            self.sound = sound
            movflags = "frag_keyframe+empty_moov+default_base_moof" + (adts != nil ? "+delay_moov" : "")
            let duration = input.format.pointee.duration
            durationMicro = duration == CAV_NOPTS_VALUE || duration <= 0 ? 0 : duration
            frame = try Frame()
        }

        func run(shouldStop: () -> Bool, progress: (Double) -> Void) throws -> Result {
            try output.writeHeader(options: ["movflags": movflags])
            let origin = input.originMicro
            let shift = stream.ticks(micro: origin)
            let reader = try Packet()
            while try input.read(into: reader) == .packet {
                if shouldStop() {
                    throw MediaError(.interrupted, path: input.path, operation: "signal", reason: "interrupted; nothing written")
                }
                if reader.streamIndex == index {
                    if reader.pts != CAV_NOPTS_VALUE, durationMicro > 0 {
                        progress(min(1, max(0, Double(stream.micro(reader.pts).minus(origin)) / Double(durationMicro))))
                    }
                    try decoder.decode(reader, into: frame) { decoded throws in try self.encode(decoded, shift: shift) }
                } else if let audio, reader.streamIndex == audio.input {
                    reader.shift(by: av_rescale_q(origin, cav_time_base_q(), audio.timeBase))
                    // The filter hands the muxer the configuration as the first packet's new-extradata side data. A damaged
                    // ADTS header (a truncated recording's last packet) costs that packet, not the preview.
                    if let adts {
                        switch adts.filter(reader) {
                        case .packet: break
                        case .none, .damaged: continue
                        case let .failed(failure): throw failure
                        }
                    }
                    try output.write(reader, stream: audio.output, timeBase: audio.timeBase)
                } else if let sound, reader.streamIndex == sound.input {
                    try sound.take(reader)
                }
            }
            try sound?.take(nil)
            try decoder.decode(nil, into: frame) { decoded throws in try self.encode(decoded, shift: shift) }
            try encoder.finish()
            try output.finish()
            progress(1)
            return Result(audioKept: audio != nil || sound != nil, soundEncoded: sound != nil, width: Int(width), height: Int(height))
        }

        private func encode(_ decoded: Frame, shift: Int64) throws {
            let scaled = try converter.convert(decoded, width: width, height: height, format: AV_PIX_FMT_YUV420P)
            try encoder.encode(scaled, outputPts: decoded.timestamp.minus(shift))
        }
    }
}
