import CAV

/// The subtitle cues and telemetry samples of a cut's ranges, read through a demuxer of their own (as the
/// sample-exact audio is) from well before each range: a cue that began before the range's keyframe — stored in
/// the file before where the main pass starts reading, in Matroska and MPEG-TS — but is still showing at the
/// range's start is kept from the range's output start. Reading goes back as far as the longest cue seen so far
/// (at least 10 s, at most 60 s; a cue found as long as the look-back sends it further), by time, which every
/// container can seek by (MPEG-TS has no index). In Matroska and MPEG-TS the video's packets say how far reading has
/// got, so sparse cues never make it read to the end of the file; MP4/MOV index every stream on its own, so there
/// the video is not read at all (a GoPro file's telemetry would otherwise read its whole video a second time).
final class CueReader {
    private let input: InputFile
    private let streams: Set<Int>
    private let clock: Int?
    /// The stream seeks go by: the clock, or (MP4/MOV) the first cue stream.
    private let seekStream: Int?
    private let packet: Packet
    /// The longest cue or sample met so far (µs).
    private var longestMicro: Int64 = 0
    static let minimumLookbackMicro: Int64 = 10_000_000
    static let maximumLookbackMicro: Int64 = 60_000_000

    /// `streams`: the cue and telemetry streams; `video`: the stream whose packets tell how far reading has got where
    /// the demuxer reads every stream's data in file order.
    init(path: String, streams: Set<Int>, video: Int?) throws {
        input = try InputFile(path: path)
        self.streams = streams
        clock = input.indexesEveryStream ? nil : video
        seekStream = clock ?? streams.min()
        packet = try Packet()
        for index in 0..<input.streamCount where !streams.contains(index) && index != clock {
            input.stream(index)?.pointee.discard = AVDISCARD_ALL
        }
    }

    /// Hands `consume` every packet of the cue streams that starts before `windowEndMicro` and may still show at
    /// `windowStartMicro` (container µs), in file order; the caller clips each to the window.
    func read(windowStartMicro: Int64, windowEndMicro: Int64, _ consume: (Packet) throws -> Void) throws {
        var lookback = min(Self.maximumLookbackMicro, max(Self.minimumLookbackMicro, longestMicro.plus(1_000_000)))
        while true {
            let found = try collect(from: windowStartMicro.minus(lookback), through: windowEndMicro)
            // A cue as long as the look-back may have a longer one before it: look further back, once more at most.
            if longestMicro >= lookback, lookback < Self.maximumLookbackMicro {
                lookback = min(Self.maximumLookbackMicro, longestMicro.plus(longestMicro).plus(1_000_000))
                continue
            }
            for cue in found { try consume(cue) }
            return
        }
    }

    private func collect(from startMicro: Int64, through endMicro: Int64) throws -> [Packet] {
        try position(atMicro: startMicro)
        var found: [Packet] = []
        var ended: Set<Int> = []
        while ended.count < streams.count, try input.read(into: packet) == .packet {
            let index = packet.streamIndex
            guard let stream = input.stream(index), packet.presentationTime != CAV_NOPTS_VALUE else { continue }
            let start = stream.micro(packet.presentationTime)
            if index == clock {
                // Past the window by more than any reordering delays a frame: nothing of it remains to come.
                if start > endMicro.plus(2_000_000) { break }
                continue
            }
            guard streams.contains(index) else { continue }
            longestMicro = max(longestMicro, stream.micro(packet.presentationTime.plus(max(0, packet.duration))).minus(start))
            if start >= endMicro {
                ended.insert(index)
                continue
            }
            found.append(try packet.clone())
        }
        return found
    }

    /// Reading from at or before `micro` (container µs), or from the file's start.
    private func position(atMicro micro: Int64) throws {
        if let seekStream, let stream = input.stream(seekStream), micro > input.originMicro {
            do {
                try input.seek(streamIndex: seekStream, timestamp: stream.ticks(micro: micro))
                return
            } catch {
                // A file that will not seek is read from its start.
            }
        }
        try input.seekToStart()
    }
}
