import CAV
import DiskNames
import Glibc

/// Owns one muxer context and its file: alloc → streams → header → interleaved writes → trailer.
/// The muxer is chosen from the final name (the file itself is a temporary one beside it).
final class OutputFile {
    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var opened = false
    private var headerWritten = false
    /// The earliest decode and presentation times handed to the muxer (µs): a negative one makes a muxer
    /// that cannot store it shift the whole file (`muxerShiftMicro`).
    private var earliestDtsMicro = Int64.max, earliestPtsMicro = Int64.max
    /// Each stream's earliest presentation time written (µs).
    private(set) var earliestPtsMicroByStream: [Int: Int64] = [:]

    init(temporaryPath: String, finalName: String) throws(AVFailure) {
        path = temporaryPath
        guard let format = av_guess_format(nil, finalName, nil) else {
            throw AVFailure(code: cav_averror(EINVAL), operation: "av_guess_format")
        }
        var created: UnsafeMutablePointer<AVFormatContext>?
        // The URL FFmpeg keeps (and reopens for --faststart's shift) is the path's bytes.
        let status = DiskName.withCString(temporaryPath) { avformat_alloc_output_context2(&created, format, nil, $0) }
        guard status >= 0, let created else { throw AVFailure(code: status, operation: "avformat_alloc_output_context2") }
        context = created
    }

    deinit {
        if let context {
            if opened { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
        }
    }

    var format: UnsafeMutablePointer<AVFormatContext> { context.unsafelyUnwrapped }
    var outputFormat: UnsafePointer<AVOutputFormat>? { format.pointee.oformat }

    var muxer: OutputFormat? { outputFormat.map(OutputFormat.init) }
    var formatName: String { muxer?.name ?? "" }
    var supportsEditLists: Bool { muxer?.supportsEditLists ?? false }
    var carriesDisplayMatrix: Bool { muxer?.carriesDisplayMatrix ?? false }
    func canHold(_ codec: AVCodecID) -> Bool { muxer?.canHold(codec) ?? false }

    func addStream() throws(AVFailure) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(format, nil) else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avformat_new_stream")
        }
        return stream
    }

    /// A new stream with the input stream's codec parameters, metadata, disposition and side data
    /// (the display matrix among them), for stream copy.
    func addCopy(of input: UnsafeMutablePointer<AVStream>, keepSideData: Bool = true) throws(AVFailure) -> UnsafeMutablePointer<AVStream> {
        let stream = try addStream()
        guard let source = input.pointee.codecpar, let target = stream.pointee.codecpar else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "codecpar")
        }
        let status = avcodec_parameters_copy(target, source)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_copy") }
        target.pointee.codec_tag = compatibleTag(source.pointee.codec_tag, codec: source.pointee.codec_id)
        // As the ffmpeg CLI's stream copy does: a block align AVI read for AC-3 (3840) or MP3 (1, 576, 1152) would make
        // the AVI muxer write the stream as fixed-size samples, and readers then time its packets about five times too close.
        if source.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
           source.pointee.codec_id == AV_CODEC_ID_AC3 || (source.pointee.codec_id == AV_CODEC_ID_MP3 && [1, 576, 1152].contains(source.pointee.block_align)) {
            target.pointee.block_align = 0
        }
        stream.pointee.time_base = input.pointee.time_base
        stream.pointee.avg_frame_rate = input.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = input.pointee.r_frame_rate
        // The muxer refuses a stream SAR that differs from the codec's: use one for both, the container's
        // when it states one (as the ffmpeg CLI does).
        let sar = input.pointee.sample_aspect_ratio.num != 0 ? input.pointee.sample_aspect_ratio : source.pointee.sample_aspect_ratio
        stream.pointee.sample_aspect_ratio = sar
        target.pointee.sample_aspect_ratio = sar
        stream.pointee.disposition = input.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, input.pointee.metadata, 0)
        Self.dropTimecode(&stream.pointee.metadata)
        if keepSideData { try copySideData(from: input, to: stream) }
        return stream
    }

    /// Replaces a stream's extradata (a configuration record), padded as FFmpeg requires.
    static func setExtradata(_ bytes: [UInt8], of stream: UnsafeMutablePointer<AVStream>) throws(AVFailure) {
        guard let size = Int32(exactly: bytes.count) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_mallocz") }
        guard let parameters = stream.pointee.codecpar,
              let memory = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_mallocz")
        }
        memory.update(from: bytes, count: bytes.count)
        av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata = memory
        parameters.pointee.extradata_size = size
    }

    func copySideData(from input: UnsafeMutablePointer<AVStream>, to stream: UnsafeMutablePointer<AVStream>,
                      only: AVPacketSideDataType? = nil, except: AVPacketSideDataType? = nil) throws(AVFailure) {
        guard let entries = input.pointee.side_data else { return }
        for index in 0..<Int(input.pointee.nb_side_data) {
            let entry = entries[index]
            if let only, entry.type != only { continue }
            if let except, entry.type == except { continue }
            guard let data = av_stream_new_side_data(stream, entry.type, entry.size) else {
                throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_stream_new_side_data")
            }
            data.update(from: entry.data, count: entry.size)
        }
    }

    /// Keeps the source's codec tag when the target container maps it to the same codec (so HEVC stays
    /// `hvc1`, which Apple's players require), as the ffmpeg CLI does; otherwise lets the muxer choose.
    private func compatibleTag(_ tag: UInt32, codec: AVCodecID) -> UInt32 {
        guard let tags = outputFormat?.pointee.codec_tag else { return tag }
        if av_codec_get_id(tags, tag) == codec { return tag }
        var chosen: UInt32 = 0
        return av_codec_get_tag2(tags, codec, &chosen) == 0 ? tag : 0
    }

    func copyContainerMetadata(from input: InputFile) {
        av_dict_copy(&format.pointee.metadata, input.format.pointee.metadata, 0)
        Self.dropTimecode(&format.pointee.metadata)
    }

    /// A `timecode` tag makes the mov muxer write a new timecode track stamped with the source's start
    /// time, which would be wrong for a cut: timecode tracks are left out (with a note), tags too.
    static func dropTimecode(_ dictionary: inout OpaquePointer?) {
        av_dict_set(&dictionary, "timecode", nil, 0)
    }

    /// The start timecode the muxer writes (MP4/MOV: a `tmcd` track for the video; Matroska: a tag).
    func setTimecode(_ text: String) {
        av_dict_set(&format.pointee.metadata, "timecode", text, 0)
    }

    /// Chapters (output µs) for the muxer to write: MP4/MOV as a chapter track and `chpl`, Matroska natively.
    func addChapters(_ chapters: [Chapter]) throws(AVFailure) {
        for (index, chapter) in chapters.enumerated() {
            let status = cav_add_chapter(format, Int64(index) + 1, chapter.startMicro, chapter.endMicro, chapter.title)
            if status < 0 { throw AVFailure(code: status, operation: "add chapter") }
        }
    }

    func writeHeader(options: [String: String] = [:]) throws(AVFailure) {
        if outputFormat.map({ $0.pointee.flags & AVFMT_NOFILE == 0 }) ?? true {
            let status = DiskName.withCString(path) { avio_open(&format.pointee.pb, $0, AVIO_FLAG_WRITE) }
            if status < 0 { throw AVFailure(code: status, operation: "avio_open") }
            opened = true
        }
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        let status = avformat_write_header(format, &dictionary)
        if status < 0 { throw AVFailure(code: status, operation: "avformat_write_header") }
        headerWritten = true
    }

    /// Writes a packet whose timestamps are in `timeBase`; takes ownership of its data.
    func write(_ packet: Packet, stream: Int, timeBase: AVRational) throws(AVFailure) {
        packet.pointer.pointee.stream_index = Int32(stream)
        // Every muxer refuses this with a bare "Invalid argument": name the times instead.
        if packet.pts != CAV_NOPTS_VALUE, packet.dts != CAV_NOPTS_VALUE, packet.pts < packet.dts {
            let seconds = { (ticks: Int64) in Words.seconds(Double(ticks) * Double(timeBase.num) / Double(max(1, timeBase.den))) }
            throw AVFailure(code: cav_averror(EINVAL), operation: "av_interleaved_write_frame",
                            detail: "a packet of output stream #\(stream) would be shown at \(seconds(packet.pts)), before its decode time \(seconds(packet.dts)), which no container can store")
        }
        if packet.pts != CAV_NOPTS_VALUE {
            let pts = av_rescale_q(packet.pts, timeBase, cav_time_base_q())
            earliestPtsMicro = min(earliestPtsMicro, pts)
            earliestPtsMicroByStream[stream] = min(earliestPtsMicroByStream[stream] ?? Int64.max, pts)
        }
        let dts = packet.dts != CAV_NOPTS_VALUE ? packet.dts : packet.pts
        if dts != CAV_NOPTS_VALUE { earliestDtsMicro = min(earliestDtsMicro, av_rescale_q(dts, timeBase, cav_time_base_q())) }
        if let target = format.pointee.streams?[stream] {
            av_packet_rescale_ts(packet.pointer, timeBase, target.pointee.time_base)
        }
        packet.pointer.pointee.pos = -1
        let status = av_interleaved_write_frame(format, packet.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_interleaved_write_frame") }
    }

    /// How far the muxer moved every timestamp later (µs), as libavformat's `avoid_negative_ts` does by
    /// default: a format that cannot store negative times (AVFMT_TS_NEGATIVE unset: MPEG-TS) shifts the file
    /// so that its earliest decode time is 0 — an exact cut's B-frames start decoding before its first frame
    /// is shown; Matroska/WebM store presentation times only, so they shift by the earliest of those.
    /// MP4/MOV keep negative times (their edit list shows the first frame at 0).
    /// AVI is left out: it keeps no times, only slots in decode order, which the verifier reads as such.
    var muxerShiftMicro: Int64 {
        guard formatName != "avi", let flags = outputFormat?.pointee.flags, flags & (AVFMT_TS_NEGATIVE | AVFMT_NOTIMESTAMPS) == 0 else { return 0 }
        let earliest = formatName == "matroska" || formatName == "webm" ? earliestPtsMicro : earliestDtsMicro
        guard earliest < 0, earliest != Int64.min else { return 0 }
        return -earliest
    }

    /// Finishes the file; a failure here (e.g. a full disk while flushing) is an error, never ignored.
    func finish() throws(AVFailure) {
        guard headerWritten else { return }
        let status = av_write_trailer(format)
        if status < 0 { throw AVFailure(code: status, operation: "av_write_trailer") }
        if opened {
            let flushError = format.pointee.pb?.pointee.error ?? 0
            let closeStatus = avio_closep(&format.pointee.pb)
            opened = false
            if flushError < 0 { throw AVFailure(code: flushError, operation: "avio_flush") }
            if closeStatus < 0 { throw AVFailure(code: closeStatus, operation: "avio_closep") }
        }
    }
}
