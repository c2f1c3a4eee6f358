import Foundation
import LibraryFiles
import WorkerProtocol

/// What the list shows, sorts and filters by once a clip is probed: a few facts of `vtrim probe`'s object (the
/// whole object stays in the engine's answer to `GET /api/clips/{id}`, a few of them in memory), or why it cannot
/// be read. Kept per file version in the state database (`StateDatabase`'s files table).
struct ClipSummary: Sendable, Hashable {
    var durationSeconds: Double?
    /// The video's codec, or the first audio stream's for a clip without a picture.
    var codec: String?
    var hasVideo: Bool
    var displayWidth: Int?
    var displayHeight: Int?
    /// The engine's refusal code (`invalid_data`, `no_streams`, …) for a clip that cannot be read.
    var failure: String?

    init(durationSeconds: Double?, codec: String?, hasVideo: Bool, displayWidth: Int?, displayHeight: Int?, failure: String?) {
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.hasVideo = hasVideo
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.failure = failure
    }

    init(probe: JSON) {
        let video = probe.member("video").flatMap { $0 == .null ? nil : $0 }
        let audio: JSON? = {
            if case let .array(streams)? = probe.member("audio") { return streams.first }
            return nil
        }()
        func text(_ value: JSON?) -> String? {
            if case let .string(string)? = value { return String(string.prefix(32)) }
            return nil
        }
        func whole(_ value: JSON?) -> Int? {
            guard let number = value?.doubleValue, number.isFinite, number >= 0, number < 1e6 else { return nil }
            return Int(number)
        }
        let duration = probe.member("duration")?.doubleValue
        self.init(durationSeconds: duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                  codec: text(video?.member("codec")) ?? text(audio?.member("codec")),
                  hasVideo: video != nil, displayWidth: whole(video?.member("display_width")),
                  displayHeight: whole(video?.member("display_height")), failure: nil)
    }

    init(failure code: String) {
        self.init(durationSeconds: nil, codec: nil, hasVideo: false, displayWidth: nil, displayHeight: nil, failure: String(code.prefix(40)))
    }

    /// Whether the clip passes the filters (a filter on probed facts fails an unreadable clip).
    func passes(_ filters: ClipQuery.Filters) -> Bool {
        if failure != nil { return filters.isEmpty }
        if let wanted = filters.hasVideo, wanted != hasVideo { return false }
        if let codec = filters.codec, codec != self.codec?.lowercased() { return false }
        if let minimum = filters.minimumSeconds, (durationSeconds ?? -1) < minimum { return false }
        if let maximum = filters.maximumSeconds, (durationSeconds ?? .infinity) > maximum { return false }
        return true
    }

    var jsonFields: [(String, JSON)] {
        [("duration", durationSeconds.map(JSON.number) ?? .null), ("codec", codec.map(JSON.string) ?? .null),
         ("has_video", failure == nil ? .bool(hasVideo) : .null),
         ("display_width", displayWidth.map { .int(Int64($0)) } ?? .null),
         ("display_height", displayHeight.map { .int(Int64($0)) } ?? .null),
         ("unreadable", failure.map(JSON.string) ?? .null)]
    }
}
