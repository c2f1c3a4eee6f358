@testable import MediaEngine
import TestSupport
import Testing

struct FrameSamplerTests {
    static let orientedFixtures = ["h264-aac.mp4", "rot90.mp4", "rot180.mp4", "rot270.mp4", "mirror.mp4",
                                   "transpose.mp4", "hevc.mp4", "vp9-opus.webm", "h264-aac.mkv"]

    @Test(arguments: orientedFixtures, SampleMode.allCases)
    func markersLandUpright(_ file: String, _ mode: SampleMode) async throws {
        let sampler = try FrameSampler(path: TestPaths.fixture(file))
        let times = [0.0, 0.45, 1.02, 1.9]
        let frames = try sampler.sample(SampleRequest(timesSeconds: times, mode: mode, cellWidthPixels: 160,
                                                      cellHeightPixels: 120, fit: .exact))
        #expect(frames.count == times.count)
        for frame in frames {
            let image = try #require(frame.image, "\(frame.failure ?? "")")
            #expect(image.width == 160 && image.height == 120)
            #expect(ImageCompare.markersUpright(image), "markers misplaced at \(frame.requestedSeconds) s")
        }
    }

    /// Accurate mode returns the frame a player shows: compared with ffmpeg decoding from the start.
    @Test(arguments: ["h264-aac.mp4", "hevc.mp4", "vfr.mp4", "rot90.mp4", "vp9-opus.webm", "h264-aac.mkv"])
    func accurateMatchesReferenceDecode(_ file: String) async throws {
        let path = TestPaths.fixture(file)
        let reference = try await Reference.frames(path, width: 160, height: 120)
        try #require(reference.count > 30)
        let last = try #require(reference.last).seconds
        // on a frame, between frames, on and just after a keyframe, just before one, past the end, at 0.
        let times = [0.5, 0.51, 1.0, 1.01, 0.99, 1.999, last, last + 0.02, 60.0, 0.0, 0.001]
        let sampler = try FrameSampler(path: path)
        let frames = try sampler.sample(SampleRequest(timesSeconds: times, mode: .accurate, cellWidthPixels: 160,
                                                      cellHeightPixels: 120, fit: .exact))
        for frame in frames {
            let expected = try #require(Reference.frameShown(at: frame.requestedSeconds, in: reference))
            let image = try #require(frame.image)
            let framePTS = try #require(frame.frameSeconds)
            #expect(abs(framePTS - expected.seconds) < 0.0005, "t=\(frame.requestedSeconds): frame \(framePTS) vs \(expected.seconds)")
            let psnr = ImageCompare.psnr(image, expected.image)
            #expect(psnr >= 35, "t=\(frame.requestedSeconds): PSNR \(psnr) dB")
        }
    }

    @Test func fastModeUsesKeyframesOnly() async throws {
        let path = TestPaths.fixture("h264-aac.mp4")
        let sampler = try FrameSampler(path: path)
        let times = [0.2, 0.9, 1.5, 2.99, 3.5]
        let frames = try sampler.sample(SampleRequest(timesSeconds: times, mode: .fast, cellWidthPixels: 80,
                                                      cellHeightPixels: 60, fit: .exact))
        #expect(frames.map(\.frameSeconds) == [0, 0, 1, 2, 3])
        // Two samples share the keyframe at 0: four keyframes decoded in all.
        #expect(sampler.framesDecoded == 4)
    }

    /// A keyframe decoded before a time but shown after it (B-frames: the keyframe at 1 s is decoded at 0.933 s) is
    /// not the one shown there; at its own time it is. (That fast mode tells this from the composition offsets without
    /// reading the later keyframe, Tests/streams/test_url_inputs.py shows by the bytes a URL serves.)
    @Test(arguments: ["h264-aac.mp4", "hevc.mp4"])
    func fastModeTellsAKeyframeDecodedBeforeATimeButShownAfterIt(_ name: String) async throws {
        let sampler = try FrameSampler(path: TestPaths.fixture(name))
        let times = [0.95, 0.999, 1.0, 1.0005, 1.5]
        let frames = try sampler.sample(SampleRequest(timesSeconds: times, mode: .fast, cellWidthPixels: 80,
                                                      cellHeightPixels: 60, fit: .exact))
        #expect(frames.map(\.frameSeconds) == [0, 0, 1, 1, 1], "\(name)")
    }

    @Test func closeSamplesDecodeForwardWithoutSeekingBack() async throws {
        let sampler = try FrameSampler(path: TestPaths.fixture("h264-aac.mp4"))
        // 40 samples every 0.1 s: one pass over the 120 frames.
        let times = (0..<40).map { Double($0) * 0.1 }
        let frames = try sampler.sample(SampleRequest(timesSeconds: times, mode: .accurate, cellWidthPixels: 32,
                                                      cellHeightPixels: 24, fit: .exact))
        #expect(frames.allSatisfy { $0.image != nil })
        #expect(sampler.framesDecoded <= 121)
    }

    @Test func fillCropKeepsAspect() async throws {
        let sampler = try FrameSampler(path: TestPaths.fixture("rot90.mp4"))
        // A tall cell from a 4:3 picture: cropped at the sides, never stretched; markers cropped away
        // symmetrically, so check the centre column is the same as the reference's.
        let frames = try sampler.sample(SampleRequest(timesSeconds: [0.5], mode: .accurate, cellWidthPixels: 60,
                                                      cellHeightPixels: 120, fit: .fillCrop))
        let image = try #require(frames.first?.image)
        #expect(image.width == 60 && image.height == 120)
        let full = try sampler.sample(SampleRequest(timesSeconds: [0.5], mode: .accurate, cellWidthPixels: 160,
                                                    cellHeightPixels: 120, fit: .exact))
        let reference = try #require(full.first?.image).cropped(x: 50, y: 0, width: 60, height: 120)
        #expect(ImageCompare.psnr(image, reference) > 40)
    }

    @Test func truncatedFileGivesFramesUpToWhereDataEnds() async throws {
        let sampler = try FrameSampler(path: TestPaths.fixture("truncated.mp4"))
        let frames = try sampler.sample(SampleRequest(timesSeconds: [0.5, 3.5], mode: .accurate, cellWidthPixels: 80,
                                                      cellHeightPixels: 60, fit: .exact))
        #expect(frames[0].frameSeconds == 0.5)
        // Past the readable data: a failed sample saying so, never the last decodable frame (2.1 s) instead.
        #expect(frames[1].image == nil && frames[1].frameSeconds == nil)
        #expect(frames[1].failure?.contains("past the readable end") == true, "\(frames[1].failure ?? "")")
    }

    @Test func audioOnlyIsNoVideo() async {
        #expect {
            _ = try FrameSampler(path: TestPaths.fixture("audio-only.m4a"))
        } throws: { ($0 as? MediaError)?.code == .noVideo }
    }
}

struct ParallelSamplingTests {
    /// Splitting the samples over several decoders gives exactly the pictures one decoder gives.
    @Test(arguments: SampleMode.allCases)
    func workersDoNotChangeThePictures(_ mode: SampleMode) async throws {
        let path = TestPaths.fixture("h264-aac.mp4")
        let times = [3.9, 0.1, 1.5, 1.52, 2.0, 0.7, 3.2]
        let request = SampleRequest(timesSeconds: times, mode: mode, cellWidthPixels: 64, cellHeightPixels: 48, fit: .exact)
        let serial = try FrameSampler(path: path).sample(request, workers: 1)
        for workers in [2, 3, 7, 20] {
            let parallel = try FrameSampler(path: path).sample(request, workers: workers)
            #expect(parallel.map(\.requestedSeconds) == times)
            #expect(parallel.map(\.frameSeconds) == serial.map(\.frameSeconds), "workers \(workers)")
            #expect(parallel.map(\.image) == serial.map(\.image), "workers \(workers)")
        }
    }

    @Test func splitKeepsOrderAndCoversEverything() async {
        #expect(FrameSampler.split([0, 1, 2, 3, 4], into: 2) == [[0, 1], [2, 3, 4]])
        #expect(FrameSampler.split([5, 6], into: 1) == [[5, 6]])
    }

    @Test func splitCutsOnlyBetweenGroupsOfPictures() async {
        // Samples 0…5 with keyframes 0,0,0,1,1,2: a cut at 3 or 5 keeps each group with one decoder.
        let gop: (Int) -> Int64? = { [0, 0, 0, 1, 1, 2][$0] }
        #expect(FrameSampler.split([0, 1, 2, 3, 4, 5], into: 2, gop: gop) == [[0, 1, 2], [3, 4, 5]])
        #expect(FrameSampler.split([0, 1, 2, 3, 4, 5], into: 3, gop: gop) == [[0, 1, 2], [3, 4], [5]])
        // One group only: one run.
        #expect(FrameSampler.split([0, 1, 2], into: 2, gop: { _ in 7 }) == [[0, 1, 2]])
    }
}
