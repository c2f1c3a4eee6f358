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
}
