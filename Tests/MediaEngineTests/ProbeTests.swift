import Foundation
import MediaEngine
import TestSupport
import Testing

struct ProbeTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        let file: String
        let durationSeconds: Double
        let format: String
        let codec: String?
        let width: Int
        let height: Int
        let displayWidth: Int
        let displayHeight: Int
        let rotation: Int
        let mirrored: Bool
        let hasBFrames: Int
        let audio: [String]
        var testDescription: String { file }
    }

    static let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"
    static let mkv = "matroska,webm"

    // Values as ffprobe 5.1 reports them (fixtures/README.md); display size after rotation.
    static let fixtures: [Expected] = [
        Expected(file: "h264-aac.mp4", durationSeconds: 4.0, format: mp4, codec: "h264", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 0, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "h264-aac-nob.mp4", durationSeconds: 3.0, format: mp4, codec: "h264", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 0, mirrored: false, hasBFrames: 0, audio: ["aac"]),
        Expected(file: "rot90.mp4", durationSeconds: 2.0, format: mp4, codec: "h264", width: 240, height: 320,
                 displayWidth: 320, displayHeight: 240, rotation: 90, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "rot180.mp4", durationSeconds: 2.0, format: mp4, codec: "h264", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 180, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "rot270.mp4", durationSeconds: 2.0, format: mp4, codec: "h264", width: 240, height: 320,
                 displayWidth: 320, displayHeight: 240, rotation: 270, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "mirror.mp4", durationSeconds: 2.0, format: mp4, codec: "h264", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 180, mirrored: true, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "transpose.mp4", durationSeconds: 2.0, format: mp4, codec: "h264", width: 240, height: 320,
                 displayWidth: 320, displayHeight: 240, rotation: 90, mirrored: true, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "hevc.mp4", durationSeconds: 2.0, format: mp4, codec: "hevc", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 0, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "vp9-opus.webm", durationSeconds: 2.008, format: mkv, codec: "vp9", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 0, mirrored: false, hasBFrames: 0, audio: ["opus"]),
        Expected(file: "h264-aac.mkv", durationSeconds: 2.021, format: mkv, codec: "h264", width: 320, height: 240,
                 displayWidth: 320, displayHeight: 240, rotation: 0, mirrored: false, hasBFrames: 2, audio: ["aac"]),
        Expected(file: "audio-only.m4a", durationSeconds: 2.0, format: mp4, codec: nil, width: 0, height: 0,
                 displayWidth: 0, displayHeight: 0, rotation: 0, mirrored: false, hasBFrames: 0, audio: ["aac"]),
    ]

    @Test(arguments: fixtures)
    func probesFixture(_ expected: Expected) async throws {
        let info = try Probe.probe(path: TestPaths.fixture(expected.file))
        #expect(abs(info.durationSeconds - expected.durationSeconds) < 0.0005)
        #expect(info.durationSource == .container)
        #expect(info.formatName == expected.format)
        #expect(info.audio.map(\.codec) == expected.audio)
        #expect(info.warnings.isEmpty)
        #expect(info.sizeBytes > 0)
        guard let codec = expected.codec else {
            #expect(info.video == nil)
            return
        }
        let video = try #require(info.video)
        #expect(video.codec == codec)
        #expect(video.width == expected.width && video.height == expected.height)
        #expect(video.displayWidth == expected.displayWidth && video.displayHeight == expected.displayHeight)
        #expect(video.orientation.rotationDegrees == expected.rotation)
        #expect(video.orientation.mirrored == expected.mirrored)
        #expect((video.orientation.matrix != nil) == (expected.rotation != 0 || expected.mirrored))
        #expect(video.hasBFrames == expected.hasBFrames)
        #expect(video.sampleAspectRatio == Rational(1, 1))
        #expect(abs((video.framesPerSecond ?? 0) - 30) < 0.01)
        #expect(video.decoderAvailable)
    }

    @Test func sizeIsTheFileSize() async throws {
        let path = TestPaths.fixture("h264-aac.mp4")
        let info = try Probe.probe(path: path)
        let attributes = try MediaFacts.fileSize(path)
        #expect(info.sizeBytes == attributes)
    }

    @Test func variableFrameRateClip() async throws {
        let info = try Probe.probe(path: TestPaths.fixture("vfr.mp4"))
        let video = try #require(info.video)
        // 30 frames in the first second, 10 in the next: the average rate is between the two.
        let fps = try #require(video.framesPerSecond)
        #expect(fps > 10 && fps < 30)
        #expect(video.frameCount == 40)
    }

    @Test func truncatedFileStillProbes() async throws {
        let info = try Probe.probe(path: TestPaths.fixture("truncated.mp4"))
        #expect(info.video?.codec == "h264")
        #expect(info.durationSeconds == 4.0)
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let path: String
        let code: MediaError.Code
        let reasonContains: String
        var testDescription: String { path }
    }

    static let badInputs: [BadInput] = [
        BadInput(path: TestPaths.fixture("empty.mp4"), code: .notMedia, reasonContains: "empty file"),
        BadInput(path: TestPaths.fixture("not-video.mp4"), code: .notMedia, reasonContains: "not a media file"),
        BadInput(path: TestPaths.fixture("no-such-file.mp4"), code: .notFound, reasonContains: "no such file"),
        BadInput(path: TestPaths.fixture(""), code: .isDirectory, reasonContains: "folder"),
        BadInput(path: "/dev/null", code: .unreadable, reasonContains: "device"),
    ]

    @Test(arguments: badInputs)
    func badInputsGiveTypedErrors(_ bad: BadInput) async {
        #expect {
            _ = try Probe.probe(path: bad.path)
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.code == bad.code && error.path == bad.path && error.reason.contains(bad.reasonContains)
                && !error.operation.isEmpty
        }
    }
}
