import CAV
import DiskNames
import Glibc

/// A manifest cut's edge for a fragmented-MP4 (CMAF) source, written as fragments alone (`moof` + `mdat`, no
/// `ftyp`/`moov`) that decode with the source's own init section: its track IDs, its timescales, and the decode times
/// its fragments store (`tfdt`) — FFmpeg reads those moved by the init's edit list, so the edge stores the source's
/// offset between the two, measured on the source's first fragment. The playlist then keeps one EXT-X-MAP, the
/// source's, for every entry: a second init would be skipped by FFmpeg's HLS reader ("duplicated MOOV Atom") and
/// the copied middle decoded with the edge's parameter sets. The edge's video comes from its cut through MPEG-TS,
/// whose re-encoded frames carry their parameter sets in band under ids of their own (x264's `sps-id`), so they decode
/// beside the source's sample entry. H.264 only: HEVC's `hvc1` sample entry forbids sets in band.
public enum FragmentShift {
    /// The source's init section and, by track ID, its stored decode time less the time FFmpeg reads for the same
    /// sample (track timescale ticks).
    public struct SourceLayout: Equatable, Sendable {
        public var initBytes: [UInt8]
        public var storedMinusRead: [Int: Int64]
    }

    /// The layout of the fragmented MP4 at `path` (an init section and its fragments, as a spool holds them).
    public static func layout(of path: String, name: String) throws(MediaError) -> SourceLayout {
        func refuse(_ why: String) -> MediaError { MediaError(.unsupportedContainer, path: name, operation: "fragment edge", reason: why) }
        guard let reader = InputReader.open(path) else { throw MediaError(.unreadable, path: name, operation: "open", reason: "cannot read its segments") }
        defer { reader.close() }
        // The top-level boxes up to the first fragment: its init section (ftyp, moov) is what lies before.
        var offset: Int64 = 0
        var moof: [UInt8]?
        var initEnd: Int64?
        for _ in 0..<64 {
            let header = reader.read(count: 16, at: offset)
            guard header.count >= 8 else { break }
            var size = Int64(MovieBoxes.read(header, at: 0, bytes: 4))
            let type = MovieBoxes.fourCC(header, at: 4)
            if size == 1, header.count == 16 { size = Int64(clamping: MovieBoxes.read(header, at: 8, bytes: 8)) }
            guard size >= 8 else { break }
            if ["moof", "styp", "sidx", "mdat"].contains(type), initEnd == nil { initEnd = offset }
            if type == "moof" {
                // A fragment header is a few KiB (one entry a sample); bounded against a damaged size.
                guard size <= 16 << 20 else { throw refuse("its first fragment header claims \(size) bytes") }
                let bytes = reader.read(count: Int(size), at: offset)
                // A short read is a read error here (the spool holds the fragment whole): never half a header.
                guard bytes.count == Int(size) else { throw refuse("its first fragment header cannot be read whole") }
                moof = bytes
                break
            }
            offset = offset.plus(size)
        }
        guard let initEnd, initEnd > 0, initEnd <= 4 << 20, let moof, moof.count >= 8 else { throw refuse("its segments are not fragmented MP4 with an init section") }
        let initBytes = reader.read(count: Int(initEnd), at: 0)
        guard initBytes.count == Int(initEnd) else { throw refuse("its init section cannot be read whole") }
        var stored: [Int: Int64] = [:]
        for traf in MovieBoxes.boxes(in: moof, from: 8, to: moof.count) where traf.type == "traf" {
            // A track fragment without samples says nothing of the first sample FFmpeg reads for its track.
            guard let tfhd = MovieBoxes.child(moof, of: traf, "tfhd"), let tfdt = MovieBoxes.child(moof, of: traf, "tfdt"),
                  let trun = MovieBoxes.child(moof, of: traf, "trun"), trun.end - trun.start >= 16,
                  MovieBoxes.read(moof, at: trun.start + 12, bytes: 4) > 0,
                  tfhd.end - tfhd.start >= 16, tfdt.end - tfdt.start >= 16 else { continue }
            let track = Int(MovieBoxes.read(moof, at: tfhd.start + 12, bytes: 4))
            let wide = MovieBoxes.version(moof, of: tfdt) == 1
            stored[track] = Int64(clamping: MovieBoxes.read(moof, at: tfdt.start + 12, bytes: wide ? 8 : 4))
        }
        // What FFmpeg reads for each track's first sample.
        let input = try InputFile.open(path, naming: name, analyze: false)
        var read: [Int: Int64] = [:]
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: name, operation: error.operation, reason: "out of memory") }
        var packets = 0
        while read.count < stored.count, packets < 4096, try nextPacket(input, packet, name: name) {
            packets += 1
            guard let stream = input.stream(packet.streamIndex) else { continue }
            let track = Int(stream.pointee.id)
            let time = packet.dts != CAV_NOPTS_VALUE ? packet.dts : packet.pts
            if read[track] == nil, stored[track] != nil, time != CAV_NOPTS_VALUE { read[track] = time }
        }
        var offsets: [Int: Int64] = [:]
        for (track, time) in read { if let value = stored[track] { offsets[track] = value.minus(time) } }
        guard offsets.count == stored.count, !offsets.isEmpty else { throw refuse("its first fragment's tracks could not be matched to its streams") }
        return SourceLayout(initBytes: initBytes, storedMinusRead: offsets)
    }

    /// The edge `path` (its cut, an MPEG-TS from 0) written into `output` as fragments of the source `source` (the
    /// spool of the edge's segments): its video moved so that its first frame is shown at `firstFrameTicks` (the
    /// source's own time for that frame, in the source video stream's time base, as FFmpeg reads it), and the source's
    /// own sound packets from the one playing at `soundFromMicro` to the last starting before `soundToMicro`
    /// (container µs of the source; nil: from the first, to the last). `name` is what errors name.
    /// Returns the source's streams the edge leaves out (`StreamShift.leftOut`).
    @discardableResult
    public static func write(edge path: String, source: String, into output: String, firstFrameTicks: Int64, layout: SourceLayout,
                             soundFromMicro: Int64?, soundToMicro: Int64?, name: String) throws(MediaError) -> [String] {
        func refuse(_ why: String) -> MediaError { MediaError(.unsupportedContainer, path: name, operation: "fragment edge", reason: why) }
        let edge = try InputFile.open(path, naming: name), sound = try InputFile.open(source, naming: name)
        guard let videoIndex = VideoStreamChoice.best(in: edge), let video = edge.stream(videoIndex),
              let sourceVideoIndex = VideoStreamChoice.best(in: sound), let sourceVideo = sound.stream(sourceVideoIndex),
              let sourceParameters = sourceVideo.pointee.codecpar else {
            throw MediaError(.noVideo, path: name, operation: "fragment edge", reason: "the edge or its segment has no video stream")
        }
        guard sourceParameters.pointee.codec_id == AV_CODEC_ID_H264 else {
            throw refuse("fMP4 edges are written for H.264 only: HEVC's sample entry (hvc1) cannot take the edge's parameter sets in band")
        }
        let videoBase = sourceVideo.pointee.time_base
        guard videoBase.num == 1, videoBase.den > 0, let videoShift = layout.storedMinusRead[Int(sourceVideo.pointee.id)] else {
            throw refuse("its video track's timescale \(videoBase.num)/\(videoBase.den) is not one a fragment can keep")
        }
        let audioIndex = (0..<sound.streamCount).first { sound.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        var audioShift: Int64 = 0
        if let audioIndex, let audio = sound.stream(audioIndex), let parameters = audio.pointee.codecpar {
            // FFmpeg's MP4 writer gives a sound track its sample rate as timescale: the source's must be that.
            guard audio.pointee.time_base.num == 1, audio.pointee.time_base.den == parameters.pointee.sample_rate,
                  let shift = layout.storedMinusRead[Int(audio.pointee.id)] else {
                throw refuse("its sound track's timescale is not its sample rate, which a fragment written here would change")
            }
            audioShift = shift
        }
        let own = try StreamShift.firstVideoTime(path: path, naming: name)
        let ownBase = video.pointee.time_base
        do throws(AVFailure) {
            let file = try OutputFile(temporaryPath: output, finalName: "edge.mp4")
            let videoCopy = try file.addCopy(of: video)
            videoCopy.pointee.id = sourceVideo.pointee.id
            if let audioIndex, let audio = sound.stream(audioIndex) {
                let audioCopy = try file.addCopy(of: audio)
                audioCopy.pointee.id = audio.pointee.id
            }
            // Fragments at each keyframe, no edit list, no shift to zero, no trailer index: decode times stored as given.
            try file.writeHeader(options: ["movflags": "+frag_keyframe+empty_moov+default_base_moof+frag_discont+skip_trailer",
                                           "use_stream_ids_as_track_ids": "1", "video_track_timescale": String(videoBase.den),
                                           "use_editlist": "0", "avoid_negative_ts": "disabled"])
            let videoOffset = firstFrameTicks.plus(videoShift)
            var videoPackets = PacketQueue(input: edge, index: videoIndex, window: nil, timeBase: videoBase) { packet in
                if packet.pts != CAV_NOPTS_VALUE { packet.pointer.pointee.pts = packet.pts.minus(own.ticks) }
                if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts = packet.dts.minus(own.ticks) }
                av_packet_rescale_ts(packet.pointer, ownBase, videoBase)
                if packet.pts != CAV_NOPTS_VALUE { packet.pointer.pointee.pts = packet.pts.plus(videoOffset) }
                if packet.dts != CAV_NOPTS_VALUE { packet.pointer.pointee.dts = packet.dts.plus(videoOffset) }
            }
            var soundPackets = PacketQueue(input: sound, index: audioIndex, shift: audioShift, window: (soundFromMicro, soundToMicro))
            try StreamShift.interleave(&videoPackets, &soundPackets, into: file)
            try file.finish()
        } catch {
            throw MediaError(.writeFailed, path: name, operation: error.operation, reason: "cannot write the edge as fragments of the source (\(error.text))")
        }
        try keepFragments(output, name: name)
        return StreamShift.leftOut(sound, video: sourceVideoIndex, audio: audioIndex)
    }

    /// The presentation time (video stream ticks, as FFmpeg reads them) of the source `path`'s video frame nearest
    /// `micro` (container µs): where the edge's first frame, one of the source's, is shown in the source.
    public static func sourceFrameTicks(path: String, nearMicro micro: Int64, name: String) throws(MediaError) -> Int64 {
        let input = try InputFile.open(path, naming: name, analyze: false)
        guard let index = VideoStreamChoice.best(in: input), let stream = input.stream(index) else {
            throw MediaError(.noVideo, path: name, operation: "fragment edge", reason: "its segment has no video stream")
        }
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: name, operation: error.operation, reason: "out of memory") }
        var best: Int64?
        while try nextPacket(input, packet, name: name) {
            guard packet.streamIndex == index, packet.pts != CAV_NOPTS_VALUE else { continue }
            // Magnitudes: a time past Int64 rescales to Int64.min, whose abs would trap.
            if best.map({ stream.micro(packet.pts).minus(micro).magnitude < stream.micro($0).minus(micro).magnitude }) ?? true { best = packet.pts }
        }
        guard let best else { throw MediaError(.decodeFailed, path: name, operation: "fragment edge", reason: "its segment's video has no timestamps") }
        return best
    }

    /// The next packet of the spool, false at its end; a read error is the edge's error, not an early end (a frame
    /// nearest a time, or a track's first time, taken from part of the segment would be wrong without a word).
    private static func nextPacket(_ input: InputFile, _ packet: Packet, name: String) throws(MediaError) -> Bool {
        do {
            return try input.read(into: packet) == .packet
        } catch {
            throw MediaError(.decodeFailed, path: name, operation: error.operation, reason: "its segments cannot be read through (\(error.text))")
        }
    }

    /// The first video frame's time (ticks) FFmpeg reads from the fragments at `path` behind the source's init
    /// section, through a file `scratch` (removed).
    public static func readBack(fragments path: String, layout: SourceLayout, scratch: String, name: String) throws(MediaError) -> Int64 {
        guard let fragments = DiskFile.contents(path), DiskFile.write(layout.initBytes + fragments, to: scratch) else {
            throw MediaError(.writeFailed, path: name, operation: "write", reason: "cannot read back the edge")
        }
        defer { _ = DiskFile.unlink(scratch) }
        return try StreamShift.firstVideoTime(path: scratch, naming: name).ticks
    }

    /// Drops what the MP4 writer put before the first `moof` (its own `ftyp` and empty `moov`): the source's init
    /// section stands in for them.
    static func keepFragments(_ path: String, name: String) throws(MediaError) {
        guard let bytes = DiskFile.contents(path) else { throw MediaError(.writeFailed, path: name, operation: "read", reason: "cannot read back the edge") }
        let boxes = MovieBoxes.boxes(in: bytes, from: 0, to: bytes.count)
        guard let first = boxes.first(where: { $0.type == "moof" }), boxes.last?.end == bytes.count else {
            throw MediaError(.writeFailed, path: name, operation: "fragment edge", reason: "the MP4 writer wrote no fragment")
        }
        guard DiskFile.write(Array(bytes[first.start...]), to: path) else {
            throw MediaError(.writeFailed, path: name, operation: "write", reason: "cannot write the edge's fragments")
        }
    }
}

extension InputFile {
    /// Opens `path` — a spool or a scratch file — with its errors naming `name`, the input the user gave.
    static func open(_ path: String, naming name: String, analyze: Bool = true) throws(MediaError) -> InputFile {
        do { return try InputFile(path: path, analyze: analyze) } catch {
            throw MediaError(error.code, path: name, operation: error.operation, reason: error.reason)
        }
    }
}
