import Foundation
import LibraryFiles
import PropertyBased
import PropertySupport
import Testing
import TimelineCore
@testable import VtrimKit
import WorkerProtocol

/// Every VtrimKit function that takes a number (or text) a file, a list or a request can hold gives a value or a
/// typed error for every input and never traps (a trap ends the test run, failing it): timecodes and every list
/// reader and writer, range resolution, storyboard plans, strips and tiles, JSON numbers.
@Suite struct VtrimKitNumericPropertyTests {
    static let rates = Gen.element(of: SMPTERate.allCases).map { $0 ?? .fps25 }
    static let formats = Gen.element(of: CutListFormat.allCases).map { $0 ?? .csv }
    static let media = zip(Wild.double, Wild.double, Gen.element(of: [nil, "00:00:00:00", "19:26:48:04", "10:00:00;02", "99:99:99:99", "x"]))
        .map { fps, duration, timecode in ListMedia(path: "clip.mp4", framesPerSecond: fps, durationSeconds: duration, startTimecode: timecode ?? nil) }

    /// Timecodes: any count gives text or nil; text read back is the same count, drop-frame included.
    @Test func timecodesRoundTripOrRefuse() async {
        await propertyCheck(count: 1000, input: Wild.int, Self.rates, Wild.text) { count, rate, text in
            if let written = Timecode.text(count, rate: rate) { #expect(Timecode.frames(written, rate: rate) == count, "\(count) at \(rate): \(written)") }
            // Any text is a count or nil; a count read is a frame of the day and writes back as itself.
            if let read = Timecode.frames(text, rate: rate) {
                #expect(read >= 0, "\(text) read as \(read)")
                #expect(Timecode.text(read, rate: rate).flatMap { Timecode.frames($0, rate: rate) } == read, "\(text) read as \(read)")
            }
        }
    }

    @Test func smpteRatesMatchAnyFrameRate() async {
        await propertyCheck(count: 500, input: Wild.double, Wild.text) { fps, text in
            if let rate = SMPTERate.matching(framesPerSecond: fps) { #expect(abs(rate.framesPerSecond - fps) <= rate.framesPerSecond * 0.0005) }
            #expect(SMPTERate.nearest(to: fps).count == 2)
            if let rate = SMPTERate(text: text) { #expect(SMPTERate(text: rate.rawValue) == rate, "\(text) read as \(rate)") }
        }
    }

    /// Every list format reads any text as ranges or a parse error naming a line — for any clip facts and EDL timing.
    @Test func listsReadAnyText() async {
        await propertyCheck(count: 800, input: Wild.text, Self.formats, Self.media, Self.rates, Gen.element(of: ListOrigin.allCases)) {
            text, format, media, rate, origin in
            for timing in [ListTiming(), ListTiming(rate: rate, origin: origin ?? .auto)] {
                // Ranges whose times resolve to finite seconds in order, or an error naming a line of the text.
                do throws(CutList.ParseError) {
                    let reading = try CutLists.read(text, format: format, media: media, timing: timing)
                    for segment in reading.segments {
                        guard let start = try? segment.start.resolve(durationSeconds: media.durationSeconds ?? 1),
                              let end = try? (segment.end ?? .beforeEnd(0)).resolve(durationSeconds: media.durationSeconds ?? 1) else { continue }
                        #expect(start.isFinite && end.isFinite, "\(format): \(segment)")
                    }
                } catch {
                    #expect(error.line >= 1 && !error.message.isEmpty, "\(format): \(error)")
                }
            }
        }
    }

    /// Every list format writes any ranges of any clip as text or a typed error; CSV reads back what it wrote.
    @Test func listsWriteAnyRanges() async {
        let range = zip(Wild.double, Wild.double, Gen.element(of: [nil, "a", "two\nlines", "\"q\", c"]))
            .map { ListRange(startSeconds: $0, endSeconds: $1, label: $2 ?? nil) }
        await propertyCheck(count: 800, input: range.array(of: 0...5), Self.formats, Self.media, Self.rates) { ranges, format, media, rate in
            for timing in [ListTiming(), ListTiming(rate: rate)] {
                guard let text = try? CutLists.render(ranges, format: format, media: media, timing: timing) else { continue }
                if format == .csv { #expect((try? CutList.parse(text))?.count == ranges.count, "\(ranges) → \(text)") }
            }
        }
    }

    @Test func numbersFormatForListsAndJSON() async {
        await propertyCheck(count: 500, input: Wild.double, Wild.text) { value, text in
            #expect(!ChapterText.time(value).isEmpty)
            #expect(!ListNumber.seconds(value).isEmpty)
            let formatted = JSON.format(value)
            if value.isFinite { #expect(Double(formatted) == value || abs((Double(formatted) ?? .nan) - value) <= abs(value) * 1e-15) }
            // What parses writes back as text that parses to the same value.
            for candidate in [text, "[\(formatted), \(text)]"] {
                if let value = try? JSON(parsing: candidate) { #expect((try? JSON(parsing: value.serialized)) == value, "\(candidate)") }
            }
        }
    }

    /// Ranges resolved against any file duration: a range inside the file, or an error naming it.
    @Test func joinRangesResolveAgainstAnyDuration() async {
        let spec = zip(Gen.bool, Wild.double).map { fromEnd, value -> TimeSpec in fromEnd ? .beforeEnd(abs(value)) : .seconds(value) }
        await propertyCheck(count: 500, input: zip(spec, spec).array(of: 1...4), Wild.double, Gen.bool, Wild.double, Wild.double) {
            pairs, duration, removes, low, high in
            let segments = pairs.enumerated().map { CutSegment(start: $1.0, end: $1.1, lengthSeconds: nil, source: "--keep \($0 + 1)") }
            var request = CutRequest(segments: [], mode: .copy, crf: 20, preset: "veryfast", minDurationSeconds: low, maxDurationSeconds: high,
                                     clamp: true, output: OutputNamer(choice: .besideInput, template: nil), overwrite: false, dryRun: true, strict: false)
            request.join = JoinRanges(ranges: segments, removes: removes)
            guard let ranges = try? request.join?.resolve(request: request, durationSeconds: duration, path: "in.mp4") else { return }
            for range in ranges {
                #expect(range.effectiveStart.isFinite && range.effectiveEnd.isFinite && range.effectiveStart < range.effectiveEnd)
                #expect(range.effectiveStart >= 0 && range.effectiveEnd <= duration)
            }
        }
    }

    @Test func storyboardPlansAreBoundedOrRefused() async {
        await propertyCheck(count: 500, input: Wild.double, Wild.int, Wild.int, Wild.double, Wild.int, Wild.int, Wild.int) {
            duration, displayWidth, displayHeight, interval, width, columns, rows in
            for format in StoryboardFormat.allCases {
                guard let plan = try? StoryboardPlan.make(format: format, durationSeconds: duration, displayWidth: displayWidth,
                                                         displayHeight: displayHeight, intervalSeconds: interval, width: width,
                                                         columns: columns, rows: rows, outputFolder: "/tmp", videoStem: "v") else { continue }
                #expect(plan.thumbnailCount >= 1 && plan.thumbnailWidth >= 1 && plan.thumbnailHeight >= 2)
            }
        }
    }

    /// A tile request's count added to its first cell overflowed (a property run found `count` = Int.max): taken up to
    /// the strip's cells instead.
    @Test func tileCountsOfAnySizeTakeTheCellsThereAre() throws {
        let layout = VideoLineLayout(stripWidthPoints: 300, thumbWidthPoints: 30, thumbHeightPoints: 30, minDurationSeconds: nil,
                                     maxDurationSeconds: nil, pixelsPerPoint: 1)
        let plan = try ThumbsPlan.videoLine(layout, duration: 60, path: "in.mp4")
        for (first, count) in [(1, Int.max), (Int.max, Int.max), (0, Int.max - 1), (Int.min, Int.max)] {
            let cells = try? FilmstripTile.tileCells(plan, request: TileRequest(layout: layout, first: first, count: count), path: "in.mp4").0
            #expect(cells == nil || cells?.count == plan.cells.count - max(0, min(first, plan.cells.count)), "\(first), \(count)")
        }
    }

    /// A VideoLine strip and the tiles of it a page asks for, for any geometry and any cells.
    @Test func stripsAndTilesTakeAnyGeometry() async {
        await propertyCheck(count: 400, input: Wild.double, Wild.double, Wild.double, Wild.double, Wild.double, Wild.int, Wild.int) {
            duration, strip, thumb, scale, limit, first, count in
            let layout = VideoLineLayout(stripWidthPoints: strip, thumbWidthPoints: thumb, thumbHeightPoints: thumb, minDurationSeconds: nil,
                                         maxDurationSeconds: limit, pixelsPerPoint: scale)
            guard let plan = try? ThumbsPlan.videoLine(layout, duration: duration, path: "in.mp4") else { return }
            let request = TileRequest(layout: layout, first: first, count: count)
            if let (cells, _, _) = try? FilmstripTile.tileCells(plan, request: request, path: "in.mp4"), let last = cells.last, let left = cells.first?.x,
               let width = try? FilmstripTile.tileWidth(plan, left: left, last: last, path: "in.mp4") {
                #expect(width >= 1, "\(cells.count) cells from \(left): \(width) pixels")
            }
        }
    }

    /// The worker's list requests, with any values a page's body can carry.
    @Test func listRequestsAnswerAnyBody() async {
        let clip = zip(Wild.text, Wild.double, Wild.double, Wild.text).map { ListClip(name: $0, framesPerSecond: $1, durationSeconds: $2, startTimecode: $3) }
        let ranges = zip(Wild.double, Wild.double).map { ServeRange(start: $0, end: $1) }.array(of: 0...4)
        await propertyCheck(count: 500, input: clip, Wild.text, ranges, Self.formats, Wild.text) { clip, text, ranges, format, rate in
            let request = ListRequest(format: format.rawValue, clip: clip, text: text, ranges: ranges, listRate: rate, listOrigin: nil)
            // A list read gives finite ranges in order inside the clip, or a reason; a list written is text, or a reason.
            switch ListRequests.parse(request) {
            case let .success(value):
                guard case let .array(read)? = value.member("ranges") else { Issue.record("no ranges in \(value)"); return }
                for range in read {
                    let start = range.member("start")?.doubleValue ?? .nan, end = range.member("end")?.doubleValue ?? .nan
                    #expect(start.isFinite && end.isFinite && start >= 0 && start < end, "\(range)")
                }
            case let .failure(error):
                #expect(!error.message.isEmpty)
            }
            switch ListRequests.render(request) {
            case let .success(value): #expect(value.member("text") != nil, "\(value)")
            case let .failure(error): #expect(!error.message.isEmpty)
            }
        }
    }

    /// Every edge value through timecodes, rates, list numbers and JSON numbers, in a process of its own: a trap there
    /// fails this test — its exit is a signal — not the whole run.
    @Test func edgeValuesNeverTrap() async {
        await #expect(processExitsWith: .success) {
            for count in Wild.specialInt64s {
                for rate in SMPTERate.allCases { _ = Timecode.text(Int(truncatingIfNeeded: count), rate: rate) }
            }
            for value in Wild.specialDoubles {
                _ = (SMPTERate.matching(framesPerSecond: value), SMPTERate.nearest(to: value), ChapterText.time(value), ListNumber.seconds(value),
                     JSON.format(value))
                for format in CutListFormat.allCases {
                    let media = ListMedia(path: "clip.mp4", framesPerSecond: value, durationSeconds: value, startTimecode: "10:00:00;02")
                    _ = try? CutLists.render([ListRange(startSeconds: value, endSeconds: -value, label: nil)], format: format, media: media,
                                             timing: ListTiming())
                }
            }
        }
    }
}
