import DiskNames
import CAV

/// How a file made of a stream's segments begins, on vtrim's timeline (for a registered spool, the URL's): its
/// origin, the first clean start of its video (`CleanStart`: where decoding can begin) and the first sound. A range
/// starting before either needs the segment before.
public struct StreamOpening: Sendable, Equatable {
    /// The container's own start time (µs of container time): for the first segment of a stream, the stream's origin.
    public var containerStartMicro: Int64
    /// Seconds on vtrim's timeline.
    public var startSeconds: Double
    public var firstCleanVideoSeconds: Double?
    public var firstAudioSeconds: Double?
    public var hasVideo: Bool
    public var hasAudio: Bool

    /// A packet of each stream it has was read: the container's start time is then every stream's earliest.
    public var sawEveryStream: Bool { (!hasVideo || firstVideoSeconds != nil) && (!hasAudio || firstAudioSeconds != nil) }
    /// The first video packet's time (a clean one or not).
    public var firstVideoSeconds: Double?

    /// Packets read at most before giving up on finding a clean start (a segment of 4K at 60 fps holds ~360 frames).
    static let packetLimit = 20_000

    public static func measure(path: String) throws(MediaError) -> StreamOpening {
        let input = try InputFile(path: path)
        let raw = input.format.pointee.start_time
        let videoIndex = VideoStreamChoice.best(in: input)
        let audioIndex = (0..<input.streamCount).first { input.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        var opening = StreamOpening(containerStartMicro: raw == CAV_NOPTS_VALUE ? 0 : raw, startSeconds: 0, firstCleanVideoSeconds: nil,
                                    firstAudioSeconds: nil, hasVideo: videoIndex != nil, hasAudio: audioIndex != nil)
        opening.startSeconds = Micro.seconds(opening.containerStartMicro.minus(input.originMicro))
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        let rule = videoIndex.flatMap(input.stream).map { CleanStart(stream: $0) }
        for _ in 0..<packetLimit {
            guard (try? input.read(into: packet)) == .packet else { break }
            guard !packet.isDiscarded, packet.presentationTime != CAV_NOPTS_VALUE, let stream = input.stream(packet.streamIndex) else { continue }
            let seconds = Micro.seconds(stream.micro(packet.presentationTime).minus(input.originMicro))
            if packet.streamIndex == audioIndex { opening.firstAudioSeconds = min(opening.firstAudioSeconds ?? seconds, seconds) }
            if packet.streamIndex == videoIndex { opening.firstVideoSeconds = min(opening.firstVideoSeconds ?? seconds, seconds) }
            if packet.streamIndex == videoIndex, opening.firstCleanVideoSeconds == nil, rule?.isClean(packet) == true {
                opening.firstCleanVideoSeconds = seconds
            }
            if (videoIndex == nil || opening.firstCleanVideoSeconds != nil), (audioIndex == nil || opening.firstAudioSeconds != nil) { break }
        }
        return opening
    }

    /// The byte ranges (offset, length) of each video and audio stream's first sample that its index (an MP4 fragment's
    /// `trun`) places past the end of the file at `path`: a head of a segment holds a fragment's header and its first
    /// pictures, not the sound stored after them. Written into the file at their offsets, they let `measure` read every
    /// stream's first timestamp without the rest of the segment.
    public static func firstSamplesPastTheEnd(path: String) throws(MediaError) -> [(offset: Int64, length: Int64)] {
        let input = try InputFile(path: path)
        guard let size = DiskFile.status(path).map({ Int64($0.st_size) }) else { return [] }
        var ranges: [(offset: Int64, length: Int64)] = []
        for index in 0..<input.streamCount {
            guard let stream = input.stream(index), let type = stream.pointee.codecpar?.pointee.codec_type,
                  type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO,
                  avformat_index_get_entries_count(stream) > 0, let entry = avformat_index_get_entry(stream, 0) else { continue }
            let offset = entry.pointee.pos, length = Int64(entry.pointee.size)
            // A sample is at most a segment's size (Spool.maximumSegmentBytes is 512 MiB): larger is a damaged index.
            guard offset >= size, length > 0, length <= 512 << 20, offset <= Int64.max - length else { continue }
            ranges.append((offset, length))
        }
        return ranges
    }
}
