import CAV
import DiskNames
import Glibc

/// Owns one demuxer context: open, stream info, packet reading, seeking. Never crosses tasks.
final class InputFile {
    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// MP4/MOV streams (by index) whose decode times FFmpeg 5.1 leaves after presentation times: how much earlier each goes.
    private var decodeLeads: [Int: Int64] = [:]
    /// Where a URL's spool lies on the URL's timeline (InputSources); nil for an ordinary file.
    let window: InputSources.Window?
    /// The reader of a registered byte source (a URL), kept as long as the context that reads through it.
    private var bridge: AVIOBridge?

    /// `analyze`: read into the streams to complete their parameters (avformat_find_stream_info);
    /// reading back a file just written needs only its header. `briefOverURL`: an MP4 over a URL is analysed briefly
    /// where its streams' times say that changes nothing (`BriefAnalysis`) — for fast thumbnails only: brief analysis
    /// decodes fewer frames, so a sound's parameters (HE-AAC's doubled rate) and a video's guessed decode delay may
    /// differ from full analysis; a keyframe decoded alone and a timeline do not.
    init(path: String, analyze: Bool = true, briefOverURL: Bool = false) throws(MediaError) {
        self.path = path
        window = InputSources.window(for: path)
        let source = InputSources.byteSource(for: path)
        var brief = briefOverURL && source != nil && analyze
        while true {
            let opened = try open(source: source)
            guard analyze else { return }
            brief = brief && FFmpegText.string(opened.pointee.iformat?.pointee.name)?.hasPrefix("mov,") == true
            if brief { opened.pointee.max_ts_probe = 0 }
            try analyse(opened)
            guard brief, let source, !BriefAnalysis.holds(opened, source: source, path: path) else { return }
            avformat_close_input(&context)
            bridge = nil
            brief = false
        }
    }

    /// Opens the demuxer (its header only) on the file, the URL's source or the spool; sets `context` and `bridge`.
    private func open(source: (any InputByteSource)?) throws(MediaError) -> UnsafeMutablePointer<AVFormatContext> {
        FFmpegText.clearLoggedError()
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let status: Int32
        if let source {
            // A URL read by range requests: libavformat reads through vtrim's reader, never its own protocols.
            guard let bridge = AVIOBridge(source: source), let format = avformat_alloc_context() else {
                throw MediaError(.unreadable, path: path, operation: "avio_alloc_context", reason: "out of memory")
            }
            self.bridge = bridge
            format.pointee.pb = bridge.context
            format.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            opened = format
            var options = Self.remoteOptions(spool: false)
            defer { av_dict_free(&options) }
            status = path.withCString { avformat_open_input(&opened, $0, nil, &options) }
        } else if let window {
            var options = Self.remoteOptions(spool: true)
            defer { av_dict_free(&options) }
            status = DiskName.withCString(window.diskPath) { avformat_open_input(&opened, $0, nil, &options) }
        } else {
            status = DiskName.withCString(path) { avformat_open_input(&opened, $0, nil, nil) }
        }
        guard status >= 0, let opened else {
            if let fetchError = bridge?.lastError { throw fetchError }
            throw InputFile.openError(path: path, code: status)
        }
        context = opened
        Self.mapUnnamedCodecs(opened)
        decodeLeads = [:]
        if FFmpegText.string(opened.pointee.iformat?.pointee.name)?.hasPrefix("mov,") == true {
            let byTrack = CompositionOffsets.decodeLeads(path: path)
            for index in 0..<Int(opened.pointee.nb_streams) {
                if let id = opened.pointee.streams[index]?.pointee.id, let lead = byTrack[Int(id)] { decodeLeads[index] = lead }
            }
        }
        return opened
    }

    /// Reads into the streams to complete their parameters (avformat_find_stream_info).
    private func analyse(_ opened: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        // Decoders refuse absurd picture sizes (a damaged header claiming 16384x16384) instead of
        // allocating for them while stream information is gathered.
        let streams = Int(opened.pointee.nb_streams)
        let options = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: max(streams, 1))
        options.initialize(repeating: nil, count: max(streams, 1))
        for index in 0..<streams { av_dict_set(&options[index], "max_pixels", String(Limits.maximumPixels), 0) }
        defer {
            for index in 0..<streams { av_dict_free(&options[index]) }
            options.deallocate()
        }
        let infoStatus = avformat_find_stream_info(opened, options)
        if infoStatus < 0 {
            // The header parsed but no stream could be understood: not usable media.
            let detail = bridge?.lastError?.reason ?? FFmpegText.lastLoggedError() ?? FFmpegText.error(infoStatus)
            avformat_close_input(&context)
            throw MediaError(.notMedia, path: path, operation: "avformat_find_stream_info",
                             reason: "cannot read stream information (\(detail))")
        }
    }

    deinit {
        avformat_close_input(&context)
    }

    /// A server's bytes are read by the containers media files use, never by a demuxer that opens other files or URLs
    /// itself (hls, dash, concat, image sequences): FFmpeg would fetch them past vtrim's rules. A spool is MPEG-TS or MP4,
    /// read from its one local file.
    static func remoteOptions(spool: Bool) -> OpaquePointer? {
        var options: OpaquePointer?
        let formats = spool ? "mpegts,mov,mp4,m4a,3gp,3g2,mj2"
            : "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,mpegts,avi,flv,mpeg,mpegvideo,ogg,wav,mp3,aac,flac,asf,h264,hevc,ivf,m4v"
        av_dict_set(&options, "format_whitelist", formats, 0)
        av_dict_set(&options, "protocol_whitelist", spool ? "file" : "none", 0)
        return options
    }

    /// FFmpeg 5.1's MP4 reader leaves Dolby Vision profile 10's `dav1` sample entry without a codec (newer FFmpeg
    /// maps it): its samples are plain AV1, with an `av1C` record, so it is read as AV1 (decoded by libdav1d).
    private static func mapUnnamedCodecs(_ format: UnsafeMutablePointer<AVFormatContext>) {
        let dav1: UInt32 = 0x3176_6164 // "dav1", first letter lowest
        for index in 0..<Int(format.pointee.nb_streams) {
            guard let parameters = format.pointee.streams[index]?.pointee.codecpar,
                  parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO, parameters.pointee.codec_id == AV_CODEC_ID_NONE,
                  parameters.pointee.codec_tag == dav1 else { continue }
            parameters.pointee.codec_id = AV_CODEC_ID_AV1
        }
    }

    private static func openError(path: String, code: Int32) -> MediaError {
        let detail = FFmpegText.lastLoggedError()
        let base = FFmpegText.error(code)
        let text = detail.map { "\(base); \($0)" } ?? base
        if code == cav_averror(ENOENT) {
            return MediaError(.notFound, path: path, operation: "avformat_open_input", reason: "no such file")
        }
        if code == cav_averror(EACCES) {
            return MediaError(.unreadable, path: path, operation: "avformat_open_input", reason: "permission denied")
        }
        if code == CAV_AVERROR_EOF {
            return MediaError(.notMedia, path: path, operation: "avformat_open_input",
                              reason: "damaged or truncated: the data ends inside the header (\(detail ?? base))")
        }
        if code == CAV_AVERROR_INVALIDDATA, detail?.contains("moov atom not found") == true {
            // FFmpeg takes any file named .mp4/.mov for one: without a single MP4 box, it is no media at all.
            guard MovieBoxes.startsWithBox(path: path) else {
                return MediaError(.notMedia, path: path, operation: "avformat_open_input",
                                  reason: "not a media file: named as MP4/MOV, it holds no MP4 box")
            }
            return MediaError(.notMedia, path: path, operation: "avformat_open_input",
                              reason: "damaged or truncated: an MP4/MOV without its index (moov atom not found: an unfinished recording or a partial copy of a file whose index sits at its end)")
        }
        if code == CAV_AVERROR_INVALIDDATA, detail?.contains("error reading header") == true {
            return MediaError(.notMedia, path: path, operation: "avformat_open_input",
                              reason: "damaged or truncated: its header cannot be read (\(text))")
        }
        if code == CAV_AVERROR_INVALIDDATA || code == cav_averror(EINVAL) {
            return MediaError(.notMedia, path: path, operation: "avformat_open_input",
                              reason: "not a media file FFmpeg can read (\(text))")
        }
        return MediaError(.unreadable, path: path, operation: "avformat_open_input", reason: "cannot open (\(text))")
    }

    var format: UnsafeMutablePointer<AVFormatContext> {
        // Non-nil from a successful init until deinit.
        context.unsafelyUnwrapped
    }

    var streamCount: Int { Int(format.pointee.nb_streams) }

    /// The demuxer's index lists the keyframes from the header on (MP4/MOV sample tables, Matroska cues).
    /// MPEG-TS and others have none, yet FFmpeg adds entries as a seek's search reads timestamps (not all
    /// of them keyframes): such an index must not be trusted to say where keyframes are.
    var indexListsKeyframes: Bool {
        let name = FFmpegText.string(format.pointee.iformat?.pointee.name) ?? ""
        return name.hasPrefix("mov,") || name.contains("matroska")
    }

    /// MP4/MOV: every stream has its own sample table, so a stream's packets are found (and a discarded stream's
    /// skipped) without reading the others' data.
    var indexesEveryStream: Bool { (FFmpegText.string(format.pointee.iformat?.pointee.name) ?? "").hasPrefix("mov,") }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard index >= 0, index < streamCount, let streams = format.pointee.streams else { return nil }
        return streams[index]
    }

    enum ReadResult {
        case packet
        case endOfFile
    }

    /// Reads the next packet into `packet` (unreferencing what it held). A read error past the point
    /// where data was found is reported, never silently treated as end of file.
    func read(into packet: Packet) throws(AVFailure) -> ReadResult {
        packet.unref()
        let status = av_read_frame(format, packet.pointer)
        if status == CAV_AVERROR_EOF { return .endOfFile }
        if status < 0 { throw AVFailure(code: status, operation: "av_read_frame") }
        if let lead = decodeLeads[Int(packet.pointer.pointee.stream_index)], packet.pointer.pointee.dts != CAV_NOPTS_VALUE {
            packet.pointer.pointee.dts = packet.pointer.pointee.dts.minus(lead)
        }
        return .packet
    }

    /// Back to the first packet: by byte position where the format allows it (MPEG-TS: no index), else by
    /// the earliest time. Not by byte in Matroska: its resync from byte 0 skips the first clusters.
    func seekToStart() throws(AVFailure) {
        let matroska = FFmpegText.string(format.pointee.iformat?.pointee.name)?.contains("matroska") == true
        if !matroska, av_seek_frame(format, -1, 0, AVSEEK_FLAG_BYTE) >= 0 { return }
        let status = avformat_seek_file(format, -1, Int64.min, Int64.min, Int64.min, 0)
        if status < 0 { throw AVFailure(code: status, operation: "avformat_seek_file") }
    }

    /// Seeks so that the next packets of `streamIndex` start at the keyframe at or before `timestamp`
    /// (in that stream's time base).
    func seek(streamIndex: Int, timestamp: Int64) throws(AVFailure) {
        let status = av_seek_frame(format, Int32(streamIndex), timestamp, AVSEEK_FLAG_BACKWARD)
        if status < 0 { throw AVFailure(code: status, operation: "av_seek_frame") }
    }
}
