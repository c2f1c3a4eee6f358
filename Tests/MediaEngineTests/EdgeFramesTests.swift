import CAV
import Foundation
@testable import MediaEngine
import PropertyBased
import PropertySupport
import TestSupport
import Testing

/// Pictures the scene pass keeps for the smart heads (`EdgeFrames`): a head takes a run only when it holds every frame
/// the head encodes, and a head made from kept pictures is the very head its own decode makes, byte for byte.
@Suite struct EdgeFramesTests {
    @Test(arguments: [
        // (run's first frame, its closing keyframe, head's frame at start, head's end, covered)
        (10, 40, 10, 40, true),
        (10, 40, 20, 40, true),
        (10, 40, 20, 30, true),
        (10, 40, 9, 40, false),   // the head starts before the run
        (10, 40, 10, 41, false),  // the head ends past the keyframe that closed the run
        (10, 40, 20, 20, false),  // no frame to encode
        (10, 40, 30, 20, false),
    ] as [(Int64, Int64, Int64, Int64, Bool)])
    func aRunCoversOnlyAHeadWhoseEveryFrameItHolds(_ row: (Int64, Int64, Int64, Int64, Bool)) {
        #expect(EdgeFrames.covers(firstPts: row.0, closingPts: row.1, frameAtStart: row.2, end: row.3) == row.4)
    }

    @Test func coveringMeansTheHeadLiesWithinTheRunForEveryTime() async {
        await propertyCheck(count: 500, input: Wild.int64, Wild.int64, Wild.int64, Wild.int64) { first, closing, start, end in
            if EdgeFrames.covers(firstPts: first, closingPts: closing, frameAtStart: start, end: end) {
                #expect(first <= start && start < end && end <= closing)
            }
        }
    }

    /// Shots of distinct content without B-frames, as phones record, and no keyframe at the cuts: each shot cut smart
    /// from the pictures the scene pass kept and, again, from its own decode. Both files are the same bytes, and every
    /// head (one per shot after the first) was served from kept pictures.
    @Test func aHeadFromKeptPicturesIsTheHeadItsOwnDecodeMakes() async throws {
        let path = try await TestMedia.shots(keyframesAtCuts: false, bFrames: false)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let kept = EdgeFrames()
        let scenes = try Self.scenes(path, keeping: kept)
        #expect(scenes.count == 6, "\(scenes)")
        #expect(kept.runCount >= 5)
        var heads = 0
        for (index, scene) in scenes.enumerated() {
            let plan = try CutSource(path: path).plan([CutSpec(startSeconds: Double(scene.startMicro) / 1e6, endSeconds: Double(scene.endMicro) / 1e6,
                                                               settings: CutSettings(mode: .smart))], outputName: "clip.mp4")
            if plan.ranges.first?.smart?.hasHead == true { heads += 1 }
            let fromKept = folder.file("kept\(index).mp4"), decoded = folder.file("decoded\(index).mp4")
            _ = try EditOutput.write(plan, path: path, temporaryPath: fromKept, outputName: "clip.mp4", edgeFrames: kept)
            _ = try EditOutput.write(plan, path: path, temporaryPath: decoded, outputName: "clip.mp4")
            let a = try Data(contentsOf: URL(fileURLWithPath: fromKept)), b = try Data(contentsOf: URL(fileURLWithPath: decoded))
            #expect(!a.isEmpty && a == b, "shot \(index + 1): \(a.count) bytes from kept pictures, \(b.count) from its own decode")
        }
        #expect(heads == 5)
        #expect(kept.served == heads, "\(kept.served) of \(heads) heads served from kept pictures")
    }

    /// In a stream with B-frames the scene pass skips deblocking the pictures nothing refers to (as `vtrim propose` does,
    /// so both find the same cuts): its pictures are not what a head's decoder gives, and none is kept.
    @Test func aStreamWithBFramesKeepsNoPictures() async throws {
        let kept = EdgeFrames()
        let scenes = try Self.scenes(try await TestMedia.shots(keyframesAtCuts: false), keeping: kept)
        #expect(scenes.count == 6)
        #expect(kept.runCount == 0)
    }

    /// A budget under one picture keeps nothing; the heads decode as before.
    @Test func aBudgetUnderOnePictureKeepsNothing() async throws {
        let path = try await TestMedia.shots(keyframesAtCuts: false, bFrames: false)
        let kept = EdgeFrames(budgetBytes: 1000)
        let scenes = try Self.scenes(path, keeping: kept)
        #expect(scenes.count == 6)
        #expect(kept.runCount == 0)
    }

    /// The collector keeps a run of pictures in presentation order, closed by a keyframe; a time that does not move
    /// forward (in the run, or at its first picture) keeps nothing, since the pictures between two times need not be the run's.
    @Test(arguments: [
        ([0, 1, 2, 3, 4], true),
        ([0, 1, 3, 2, 4], false),   // backwards inside the run
        ([0, 2, 1, 3, 4], false),   // the run's first picture earlier than the one before it
        ([0, 1, 2, 2, 4], false),   // a time repeated
    ] as [([Int64], Bool)])
    func aRunIsKeptOnlyInPresentationOrder(_ times: [Int64], kept: Bool) throws {
        let target = EdgeFrames()
        var collector = EdgeFrameCollector(target)
        for (index, time) in (times + [5]).enumerated() {
            let frame = try Frame()
            frame.pointer.pointee.width = 16
            frame.pointer.pointee.height = 16
            frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            try #require(av_frame_get_buffer(frame.pointer, 0) >= 0)
            frame.pointer.pointee.key_frame = index == 0 || index == times.count ? 1 : 0
            frame.pointer.pointee.pts = time
            frame.pointer.pointee.best_effort_timestamp = time
            collector.take(frame, timestamp: time, startsRun: index == 1, decoderErrors: 0)
        }
        collector.finish()
        #expect(target.runCount == (kept ? 1 : 0))
        if kept {
            let run = try #require(target.take(frameAtStart: times[1], end: 5))
            #expect(run.frames.map { $0.timestamp } == [1, 2, 3, 4] && run.closingPts == 5)
        }
    }

    static func scenes(_ path: String, keeping kept: EdgeFrames) throws -> [Detection] {
        let info = try Probe.probe(path: path)
        let analysis = try ContentAnalyzer.analyse(path: path, info: info, query: ContentQuery(scenes: .init(threshold: 27, minSeconds: 0.6)),
                                                   threads: 1, keeping: kept)
        return analysis.detections.filter { $0.kind == .scene }
    }
}
