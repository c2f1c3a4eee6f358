import CAV
import Locking

/// Stream analysis of an MP4 read over a URL, stopped once every stream's parameters are known (`max_ts_probe` 0)
/// instead of reading on to every stream's first packet: that read is a 1080p file's video frames up to its first
/// sound chunk, 84 KB more than a fast thumbnail sheet's keyframes. FFmpeg then starts a stream it has no packet of
/// where the others start, and fills a duration the header lacks from the file's: true only where the header or the
/// stream's first packet says so (an MP4 whose sound starts 67 ms before its video gave a timeline 67 ms late).
/// `holds` checks, in a second demuxer of the same bytes, that every stream's duration is the header's and its start
/// the header's or, read alone (every other stream discarded), its first packet's — FFmpeg
/// sets it from that packet as analysis would. Fragmented files, a difference, or a packet that cannot be read: the
/// input is analysed again in full.
enum BriefAnalysis {
    /// Verdicts by input name, with the source object they were made for: an input opened again (a thumbnail
    /// worker's) is checked once. Forgotten when the input's source is unregistered, so no later input inherits one.
    private static let verdicts = Locked<[String: (source: ObjectIdentifier, holds: Bool)]>([:])

    static func forget(_ path: String) { _ = verdicts.withLock { $0.removeValue(forKey: path) } }

    static func holds(_ analysed: UnsafeMutablePointer<AVFormatContext>, source: any InputByteSource, path: String) -> Bool {
        let identity = ObjectIdentifier(source)
        if let known = verdicts.withLock({ $0[path] }), known.source == identity { return known.holds }
        // A fragmented MP4's samples are listed fragment by fragment as they are read: what analysis reads adds to the
        // index and the streams' durations (a sound's came out 8 ms longer), not only to their starts.
        let fragmented = MovieBoxes.movieBox(path: path).map { moov in
            // A 64-bit size (size field 1) makes the moov's header 16 bytes.
            let header = moov.count >= 4 && moov[0...3] == [0, 0, 0, 1] ? 16 : 8
            return MovieBoxes.boxes(in: moov, from: header, to: moov.count).contains { $0.type == "mvex" }
        }
        let verdict = fragmented == false && agrees(analysed, source: source, path: path)
        verdicts.withLock { $0[path] = (identity, verdict) }
        return verdict
    }

    /// Whether each stream's duration comes from the header (analysis fills one that does not:
    /// a sound's came out 15 ms long) and its start is the header's or its first packet's, as analysed.
    private static func agrees(_ analysed: UnsafeMutablePointer<AVFormatContext>, source: any InputByteSource, path: String) -> Bool {
        let count = Int(analysed.pointee.nb_streams)
        let header = withHeader(source: source, path: path) { context -> [(start: Int64, duration: Int64)]? in
            guard Int(context.pointee.nb_streams) == count else { return nil }
            return (0..<count).compactMap { index in context.pointee.streams[index].map { ($0.pointee.start_time, $0.pointee.duration) } }
        }
        guard let header, header.count == count else { return false }
        // Every stream, subtitles, timecode and metadata too: FFmpeg's file start and duration count them.
        return (0..<count).allSatisfy { index in
            guard let stream = analysed.pointee.streams[index] else { return false }
            guard header[index].duration != CAV_NOPTS_VALUE, header[index].duration == stream.pointee.duration else { return false }
            // A start the MP4 reader set from the header (an edit list's) is kept by analysis, whatever it reads.
            let start = header[index].start != CAV_NOPTS_VALUE ? header[index].start : firstPacketStart(index, source: source, path: path)
            return start == stream.pointee.start_time
        }
    }

    /// The start FFmpeg gives stream `index` from its first packet, read alone (nil: none read, or no start set).
    private static func firstPacketStart(_ index: Int, source: any InputByteSource, path: String) -> Int64? {
        withHeader(source: source, path: path) { context -> Int64? in
            guard index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index] else { return nil }
            for other in 0..<Int(context.pointee.nb_streams) where other != index { context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL }
            guard let packet = try? Packet() else { return nil }
            // Discarded streams' packets are skipped by the MP4 reader; a few reads bound a damaged file's surprises.
            for _ in 0..<8 {
                guard av_read_frame(context, packet.pointer) >= 0 else { return nil }
                defer { packet.unref() }
                if Int(packet.pointer.pointee.stream_index) == index {
                    return stream.pointee.start_time == CAV_NOPTS_VALUE ? nil : stream.pointee.start_time
                }
            }
            return nil
        }
    }

    /// `body` on a second demuxer of the source, its header read and nothing more (nil: it cannot be opened).
    private static func withHeader<Value>(source: any InputByteSource, path: String,
                                          _ body: (UnsafeMutablePointer<AVFormatContext>) -> Value?) -> Value? {
        guard let bridge = AVIOBridge(source: source), let format = avformat_alloc_context() else { return nil }
        // The bridge is read through by the context until it is closed below.
        return withExtendedLifetime(bridge) { () -> Value? in
            format.pointee.pb = bridge.context
            format.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            var opened: UnsafeMutablePointer<AVFormatContext>? = format
            var options = InputFile.remoteOptions(spool: false)
            defer { av_dict_free(&options) }
            // On failure avformat_open_input frees the context itself.
            guard path.withCString({ avformat_open_input(&opened, $0, nil, &options) }) >= 0, let context = opened else { return nil }
            defer { avformat_close_input(&opened) }
            return body(context)
        }
    }
}
