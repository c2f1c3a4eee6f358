import CAV

/// Executes a `SoundPlan` into `temporaryPath` (the muxer chosen from `outputName`): the container's metadata, cover
/// art and chapters, then the sound — packets copied with the plan's signalling (`SoundCopyWriter`), or decoded and
/// encoded again (`SoundEncoder`). It decides nothing.
public enum SoundOutput {
    public static func write(_ plan: SoundPlan, path: String, temporaryPath: String, outputName: String,
                             shouldStop: @escaping @Sendable () -> Bool = { false },
                             progress: (@Sendable (Double) -> Void)? = nil) throws(MediaError) -> SoundRun {
        try StageTimes.measure("write") { () throws(MediaError) -> SoundRun in
            _ = try InputCheck.regularFile(path)
            do {
                return try run(plan, path: path, temporaryPath: temporaryPath, outputName: outputName, shouldStop: shouldStop, progress: progress)
            } catch let error as MediaError {
                throw error
            } catch is CutInterrupted {
                throw MediaError(.interrupted, path: path, operation: "signal", reason: "interrupted; nothing written")
            } catch let failure as AVFailure {
                let writing = ["avio_open", "avformat_write_header", "av_interleaved_write_frame", "av_write_trailer", "avio_closep",
                               "avio_flush"].contains(failure.operation)
                throw MediaError(writing ? .writeFailed : .decodeFailed, path: path, operation: failure.operation,
                                 reason: writing ? "cannot write the output \(outputName) (\(failure.text))" : "\(failure.operation) failed (\(failure.text))")
            } catch {
                throw MediaError(.writeFailed, path: path, operation: "cut", reason: "cannot write the output \(outputName) (\(error))")
            }
        }
    }

    private static func run(_ plan: SoundPlan, path: String, temporaryPath: String, outputName: String,
                            shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (Double) -> Void)?) throws -> SoundRun {
        let input = try InputFile(path: path)
        let output = try OutputFile(temporaryPath: temporaryPath, finalName: outputName)
        output.copyContainerMetadata(from: input)
        av_dict_set(&output.format.pointee.metadata, "encoder", nil, 0)
        guard let source = input.stream(plan.streamIndex) else {
            throw MediaError(.decodeFailed, path: path, operation: "plan", reason: "the plan's audio stream #\(plan.streamIndex) is not in the file")
        }
        for index in 0..<input.streamCount where index != plan.streamIndex { input.stream(index)?.pointee.discard = AVDISCARD_ALL }
        // The sound's stream is set up by its writer, then the cover art, the chapters and the header, once for every method.
        let write: () throws -> Int
        switch plan.method {
        case let .copy(copy):
            let writer = try SoundCopyWriter(input: input, source: source, output: output, plan: plan, copy: copy)
            write = { try writer.run(shouldStop: shouldStop, progress: progress); return 0 }
        case let .seams(seams):
            let writer = try SoundSeamWriter(input: input, source: source, output: output, plan: plan, seams: seams)
            write = { try writer.run(shouldStop: shouldStop, progress: progress); return 0 }
        case let .reencode(reencode):
            let encoder = try SoundEncoder(path: path, streamIndex: plan.streamIndex, encoder: reencode.encoder, bitRate: reencode.bitRate, output: output)
            write = {
                for (number, range) in plan.ranges.enumerated() {
                    try encoder.add(range, shouldStop: shouldStop) { fraction in
                        progress?((Double(number) + fraction) / Double(plan.ranges.count))
                    }
                }
                try encoder.finish()
                return encoder.errors
            }
        }
        let cover = try addCoverArt(plan, input: input, output: output)
        try output.addChapters(plan.chapters)
        try output.writeHeader(options: headerOptions(plan))
        try cover?()
        let errors = try write()
        try output.finish()
        return SoundRun(decodeErrors: errors)
    }

    /// MP4: a movie timescale of the sample rate, so the edit list is exact. Ogg: pages of at most 100 ms and at least
    /// three in all — FFmpeg 5.1 reads a stream's start from its first page's granule and its end trimming from the
    /// last's, so a cut in one page (up to a second by default) would lose its end trimming.
    private static func headerOptions(_ plan: SoundPlan) -> [String: String] {
        switch plan.container {
        case .mp4:
            return ["movie_timescale": "\(plan.sampleRate)"]
        case .ogg:
            var samples = plan.plannedSamples
            if case let .copy(copy) = plan.method { samples = samples.plus(copy.skipStart) }
            let micro = samples.times(1_000_000) / Int64(max(1, plan.sampleRate))
            return ["page_duration": "\(max(1000, min(100_000, micro / 3)))"]
        default:
            return [:]
        }
    }

    /// The cover art stream, set up before the header; what writes its picture after it.
    private static func addCoverArt(_ plan: SoundPlan, input: InputFile, output: OutputFile) throws -> (() throws -> Void)? {
        guard let index = plan.coverArtIndex, let source = input.stream(index) else { return nil }
        let stream = try output.addCopy(of: source, keepSideData: false)
        stream.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
        let outputIndex = Int(stream.pointee.index)
        return {
            let picture = try Packet()
            let status = av_packet_ref(picture.pointer, &source.pointee.attached_pic)
            if status < 0 { throw AVFailure(code: status, operation: "av_packet_ref") }
            picture.pointer.pointee.pts = 0
            picture.pointer.pointee.dts = 0
            try output.write(picture, stream: outputIndex, timeBase: source.pointee.time_base)
        }
    }
}

/// What writing a cut of sound found: damaged audio the decoder met.
public struct SoundRun: Sendable {
    public var decodeErrors: Int
}

/// Copies a plan's packets, from its first to its last, moved so the range's first sample is at 0, with the signalling
/// its container takes: skip-samples side data (the MP3 muxer's LAME tag), a negative first time and a shortened last
/// duration (MP4's edit list), pre-skip and the last granule (Ogg Opus).
final class SoundCopyWriter {
    private let input: InputFile
    private let source: UnsafeMutablePointer<AVStream>
    private let output: OutputFile
    private let plan: SoundPlan
    private let copy: SoundCopy
    private let outputIndex: Int
    private let samples: AVRational
    private let adts: PacketFilter?
    /// AAC, MP3, AC-3: every packet decodes to this many samples, so they are placed one after another (Matroska's
    /// millisecond timestamps would give them uneven durations).
    private let fixedFrame: Int64

    static func fixedFrameSize(_ stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        guard let parameters = stream.pointee.codecpar?.pointee,
              [AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_MP2].contains(parameters.codec_id) else { return 0 }
        return Int64(max(0, min(parameters.frame_size, 1 << 16)))
    }

    init(input: InputFile, source: UnsafeMutablePointer<AVStream>, output: OutputFile, plan: SoundPlan, copy: SoundCopy) throws {
        self.input = input
        self.source = source
        self.output = output
        self.plan = plan
        self.copy = copy
        samples = AVRational(num: 1, den: Int32(plan.sampleRate))
        let stream = try output.addCopy(of: source, keepSideData: false)
        stream.pointee.time_base = samples
        outputIndex = Int(stream.pointee.index)
        // The source's own priming is not the cut's (Matroska would write it as CodecDelay).
        stream.pointee.codecpar?.pointee.initial_padding = 0
        stream.pointee.codecpar?.pointee.trailing_padding = 0
        fixedFrame = Self.fixedFrameSize(source)
        if copy.signal == .preSkip, let parameters = stream.pointee.codecpar {
            // OpusHead's pre-skip (bytes 10–11, little-endian) and the muxer's initial padding both say it.
            var head = Array(UnsafeBufferPointer(start: parameters.pointee.extradata, count: Int(max(0, parameters.pointee.extradata_size))))
            guard head.count >= 19, copy.skipStart <= 65535 else {
                throw MediaError(.decodeFailed, path: input.path, operation: "OpusHead", reason: "the Opus stream's header is damaged")
            }
            head[10] = UInt8(copy.skipStart & 0xFF)
            head[11] = UInt8(copy.skipStart >> 8)
            try OutputFile.setExtradata(head, of: stream)
            parameters.pointee.initial_padding = Int32(copy.skipStart)
        }
        adts = copy.adtsToMP4 ? try source.pointee.codecpar.map { try PacketFilter(name: "aac_adtstoasc", parameters: $0, timeBase: source.pointee.time_base) }
            : nil
    }

    /// Positions the input before the first packet: MP3 and ADTS hold no timestamps, so they are entered at the first
    /// packet's byte (where the carrier frame's main data begins, if there is one) and timed by counting from it (FFmpeg
    /// would time them by the bit rate), or read from the start where that byte is not known. The time to count from.
    private func enter() throws -> Int64? {
        guard SoundSurvey.readsFromStart(input) else {
            try input.seek(streamIndex: plan.streamIndex, timestamp: copy.firstPts)
            return nil
        }
        let entry = copy.carrierFrom ?? SoundSeams.Entry(pts: copy.firstPts, position: copy.firstPosition)
        if entry.position >= 0, av_seek_frame(input.format, -1, entry.position, AVSEEK_FLAG_BYTE) >= 0 { return entry.pts }
        try input.seekToStart()
        return nil
    }

    func run(shouldStop: () -> Bool, progress: (@Sendable (Double) -> Void)?) throws {
        var counted = try enter()
        var mainData: [UInt8] = []
        let base = AVRational(num: copy.timeBaseNum, den: copy.timeBaseDen)
        let firstSample = av_rescale_q(copy.firstPts, base, samples)
        let packet = try Packet()
        var started = false
        var position: Int64 = 0
        // The range's end, counted from the first packet's first sample (an Ogg source's last duration is trimmed already).
        let lastEnd = copy.skipStart.plus(plan.plannedSamples)
        while try input.read(into: packet) == .packet {
            if shouldStop() { throw CutInterrupted() }
            guard packet.streamIndex == plan.streamIndex else { continue }
            if let time = counted {
                packet.pointer.pointee.pts = time
                packet.pointer.pointee.dts = time
                counted = time.plus(packet.duration)
                // The byte seek must land where the plan found the packets, or nothing is timed right.
                if !started, time == copy.firstPts, packet.pointer.pointee.pos != copy.firstPosition {
                    throw MediaError(.decodeFailed, path: input.path, operation: "av_seek_frame",
                                     reason: "the audio could not be entered at byte \(copy.firstPosition) where the plan found its first packet")
                }
            }
            guard packet.pts != CAV_NOPTS_VALUE else { continue }
            if packet.pts < copy.firstPts {
                if copy.carrierFrom != nil { mainData += SoundSeamWriter.mainData(packet.bytes) }
                continue
            }
            if packet.pts > copy.lastPts { break }
            var isFirst = !started
            let isLast = packet.pts == copy.lastPts
            if isFirst, copy.carrierFrom != nil {
                try writeCarrier(before: packet.bytes, mainData: mainData)
                isFirst = false
            }
            started = true
            var start = av_rescale_q(packet.pts, base, samples).minus(firstSample)
            var count = av_rescale_q(packet.duration, base, samples)
            if fixedFrame > 0 {
                start = position
                count = fixedFrame
                position = position.plus(fixedFrame)
            }
            // A copied packet's own trimming is the source's, not the cut's.
            av_packet_shrink_side_data(packet.pointer, AV_PKT_DATA_SKIP_SAMPLES, 0)
            var shift: Int64 = 0
            switch copy.signal {
            case .lameTag:
                if isFirst || isLast { try packet.setSkipSamples(start: isFirst ? copy.skipStart : 0, end: isLast ? copy.skipEnd : 0) }
            case .editList:
                shift = copy.skipStart
                if isLast { count = max(1, lastEnd.minus(start)) }
            case .preSkip where plan.container == .matroska:
                if isLast { try packet.setSkipSamples(start: 0, end: copy.skipEnd) }
            case .preSkip, .granule:
                if isLast { count = max(1, lastEnd.minus(start)) }
            case .none:
                break
            }
            packet.pointer.pointee.pts = start.minus(shift)
            packet.pointer.pointee.dts = start.minus(shift)
            packet.pointer.pointee.duration = count
            if let adts {
                switch adts.filter(packet) {
                case .packet: break
                case .none, .damaged: continue
                case let .failed(failure): throw failure
                }
            }
            if let progress, copy.lastPts > copy.firstPts {
                progress(min(1, Double(packet.pts.minus(copy.firstPts)) / Double(copy.lastPts.minus(copy.firstPts))))
            }
            try output.write(packet, stream: outputIndex, timeBase: samples)
            if isLast { break }
        }
        guard started else {
            throw MediaError(.decodeFailed, path: input.path, operation: "av_read_frame", reason: "the range's audio packets could not be read back")
        }
    }

    /// The frame of silence that carries the bit reservoir the first copied MP3 frame (`model`) and those after it reach
    /// back for: the last 511 bytes of the main data before it. It opens the output, so it carries the LAME tag's delay.
    private func writeCarrier(before model: [UInt8], mainData: [UInt8]) throws {
        guard let frame = MP3Frame.carrier(like: model, reservoir: Array(mainData.suffix(511))) else {
            throw MediaError(.decodeFailed, path: input.path, operation: "cut", reason: "the MP3's first frame cannot be given its bit reservoir")
        }
        let carrier = try Packet()
        try carrier.setBytes(frame)
        carrier.pointer.pointee.pts = -fixedFrame
        carrier.pointer.pointee.dts = -fixedFrame
        carrier.pointer.pointee.duration = fixedFrame
        try carrier.setSkipSamples(start: copy.skipStart, end: 0)
        try output.write(carrier, stream: outputIndex, timeBase: samples)
    }

}

extension Packet {
    /// `AV_PKT_DATA_SKIP_SAMPLES`: samples to drop at the packet's start and end — what the MP3 muxer's LAME tag says.
    func setSkipSamples(start: Int64, end: Int64) throws(AVFailure) {
        guard let data = av_packet_new_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, 10) else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_packet_new_side_data")
        }
        for (offset, value) in [(0, UInt32(clamping: start)), (4, UInt32(clamping: end))] {
            for byte in 0..<4 { data[offset + byte] = UInt8((value >> (8 * UInt32(byte))) & 0xFF) }
        }
        data[8] = 0
        data[9] = 0
    }
}
