import Foundation
import MediaEngine
import TimelineCore
import WorkerProtocol

/// What `--header` says about a file, from its probe: the name; duration, size, picture, frame rate and
/// overall bit rate; the codecs.
enum SheetHeaderText {
    static func lines(info: MediaInfo, video: VideoStreamInfo) -> [String] {
        var facts = [TimeFormatting.truncatedClock(seconds: info.durationSeconds, fractionDigits: 2), Human.bytes(info.sizeBytes),
                     "\(video.displayWidth)x\(video.displayHeight)"]
        if let fps = video.framesPerSecond, fps > 0 { facts.append("\(JSON.format((fps * 100).rounded() / 100)) fps") }
        if let bitRate = info.bitRate { facts.append("\(Int((Double(bitRate) / 1000).rounded())) kb/s") }
        var codecs = ["video: \(video.codec)" + (video.profile.map { " (\($0))" } ?? "")]
        for audio in info.audio {
            codecs.append("audio: \(audio.codec) \(JSON.format(Double(audio.sampleRate) / 1000)) kHz \(audio.channels) ch")
        }
        return [(info.path as NSString).lastPathComponent, facts.joined(separator: " · "), codecs.joined(separator: " · ")]
    }
}
