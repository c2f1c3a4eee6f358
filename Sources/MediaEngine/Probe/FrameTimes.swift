import CAV

/// When each video frame is shown, from the packets alone (no decoding): what a player's frame-step
/// keys need. Seconds on vtrim's timeline, sorted; frames the source's edit list hides are left out.
public enum FrameTimes {
    /// More frames than this (46 hours at 60 fps) is not a list a page can use; refused rather than sent.
    static let maximumCount = 10_000_000

    public static func read(path: String) throws(MediaError) -> [Double] {
        try readWithCleanStarts(path: path).times
    }

    /// The frames' presentation times and, among them, the clean starts (DESIGN.md's rule, `CleanStart`: where a copy
    /// may begin) — the keyframe ticks the page's strip shows. Both sorted, seconds on vtrim's timeline.
    public static func readWithCleanStarts(path: String) throws(MediaError) -> (times: [Double], cleanStarts: [Double]) {
        let input = try InputFile(path: path)
        guard let index = VideoStreamChoice.best(in: input), let stream = input.stream(index) else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        let packet: Packet
        do { packet = try Packet() } catch { throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory") }
        let origin = input.originMicro
        var times: [Int64] = []
        var cleanStarts: [Int64] = []
        let rule = CleanStart(stream: stream)
        while true {
            let result: InputFile.ReadResult
            do { result = try input.read(into: packet) } catch { break }
            guard result == .packet else { break }
            guard packet.streamIndex == index, !packet.isDiscarded else { continue }
            let pts = packet.presentationTime
            guard pts != CAV_NOPTS_VALUE else { continue }
            times.append(stream.micro(pts).minus(origin))
            if rule.isClean(packet) { cleanStarts.append(stream.micro(pts).minus(origin)) }
            if times.count > maximumCount {
                throw MediaError(.tooLarge, path: path, operation: "frame times", reason: "the video has more than \(maximumCount) frames")
            }
        }
        return (times.sorted().map(Micro.seconds), Array(Set(cleanStarts)).sorted().map(Micro.seconds))
    }
}
