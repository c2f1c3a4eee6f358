import CAV

/// What a cut does with the source's chapters (`--chapters`).
public enum ChapterPolicy: String, Sendable, Codable, CaseIterable {
    /// The source's chapters, clipped to what the output shows and shifted onto its timeline.
    case keep
    /// One chapter per kept range (its label, or "Part N").
    case ranges
    /// No chapters.
    case none
}

/// A chapter: a titled span of a timeline, in µs.
public struct Chapter: Sendable, Equatable, Codable {
    public var startMicro: Int64
    public var endMicro: Int64
    public var title: String

    public init(startMicro: Int64, endMicro: Int64, title: String) {
        self.startMicro = startMicro
        self.endMicro = endMicro
        self.title = title
    }
}

enum Chapters {
    /// More than this many chapters in one file is not a chapter list (a crafted file): the rest are ignored.
    static let maximumCount = 10_000

    /// The input's chapters on the container's µs timeline, in time order; ones with a bad time base or an
    /// end before their start are skipped (where they enter: nothing later trusts the file's numbers).
    static func read(_ input: InputFile) -> [Chapter] {
        let format = input.format.pointee
        guard let list = format.chapters else { return [] }
        var chapters: [Chapter] = []
        for index in 0..<min(Int(format.nb_chapters), maximumCount) {
            guard let chapter = list[index]?.pointee, chapter.time_base.num > 0, chapter.time_base.den > 0,
                  chapter.start != CAV_NOPTS_VALUE, chapter.end != CAV_NOPTS_VALUE,
                  chapter.start > Int64.min / 4, chapter.end < Int64.max / 4 else { continue }
            let start = av_rescale_q(chapter.start, chapter.time_base, cav_time_base_q())
            let end = av_rescale_q(chapter.end, chapter.time_base, cav_time_base_q())
            guard end >= start else { continue }
            let title = FFmpegText.string(av_dict_get(chapter.metadata, "title", nil, 0)?.pointee.value) ?? ""
            chapters.append(Chapter(startMicro: start, endMicro: end, title: title))
        }
        return chapters.sorted { $0.startMicro < $1.startMicro }
    }

    /// The chapters that fall in the source window `[windowStart, windowEnd)` (µs), clipped to it and put
    /// `outputStart` µs into the output. Chapters that only touch the window, or keep less than a
    /// millisecond of it, are left out.
    static func clip(_ chapters: [Chapter], windowStartMicro: Int64, windowEndMicro: Int64, outputStartMicro: Int64) -> [Chapter] {
        chapters.compactMap { chapter in
            let from = max(chapter.startMicro, windowStartMicro), to = min(chapter.endMicro, windowEndMicro)
            guard to.minus(from) >= 1000 else { return nil }
            return Chapter(startMicro: from.minus(windowStartMicro).plus(outputStartMicro),
                           endMicro: to.minus(windowStartMicro).plus(outputStartMicro), title: chapter.title)
        }
    }
}
