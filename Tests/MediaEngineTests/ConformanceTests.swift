import MediaEngine
import TestSupport
import Testing

/// Probe against what ffprobe 5.1 reported for every real-world file in ../shared/media.
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct ProbeConformanceTests {
    static let rows = ManifestRow.load()

    /// Files ffprobe itself could not open (no container and no streams in the manifest).
    static func ffprobeOpened(_ row: ManifestRow) -> Bool { row["container"] != nil }

    @Test(arguments: rows.filter(ffprobeOpened))
    func matchesFFprobe(_ row: ManifestRow) async throws {
        let info = try Probe.probe(path: row.path)
        if info.warnings.contains(where: { $0.code == "duration_suspect" }) {
            // The container's figure is wildly off the streams' (sample_fragmented.mp4: 143165 s for 1 s):
            // the measured one is used, and is the smaller here.
            #expect(info.durationSource == .streams)
            #expect(info.durationSeconds < (row["format_duration_s"].flatMap(Double.init) ?? 0))
            #expect(info.readableDurationSeconds == info.durationSeconds)
        } else if let expected = row["format_duration_s"].flatMap(Double.init) {
            #expect(abs(info.durationSeconds - expected) <= 0.001, "duration \(info.durationSeconds) vs ffprobe \(expected)")
        } else {
            // No container duration: measured from the streams, with a warning saying so.
            #expect(info.durationSource == .streams)
            #expect(info.warnings.contains { $0.code == "duration_estimated" })
            #expect(info.durationSeconds > 0)
        }
        if let width = row["width"].flatMap(Int.init), let height = row["height"].flatMap(Int.init) {
            let video = try #require(info.video)
            #expect(video.width == width && video.height == height)
            var expectedRotation = 0
            if let ccw = row["displaymatrix_rotation_ccw"].flatMap(Int.init), ccw != Int.min {
                expectedRotation = ((-ccw) % 360 + 360) % 360
            }
            #expect(video.orientation.rotationDegrees == expectedRotation)
        } else {
            #expect(info.video == nil)
        }
    }

    @Test(arguments: rows.filter { !ffprobeOpened($0) })
    func unopenableFilesGiveCleanErrors(_ row: ManifestRow) async {
        #expect {
            _ = try Probe.probe(path: row.path)
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return [.notMedia, .unreadable].contains(error.code) && error.path == row.path
        }
    }

    @Test func vvcWithoutDecoderProbesWithWarning() async throws {
        let row = try #require(Self.rows.first { $0.file.hasSuffix("sample_vvc.mp4") })
        let info = try Probe.probe(path: row.path)
        let video = try #require(info.video)
        #expect(!video.decoderAvailable)
        #expect(video.codecTag == "vvc1")
        #expect(info.warnings.map(\.code) == ["no_decoder"])
    }

    @Test func degenerateDisplayMatrixIsNullWithWarning() async throws {
        let row = try #require(Self.rows.first { $0.file.hasSuffix("no_timescale.mp4") })
        let info = try Probe.probe(path: row.path)
        let video = try #require(info.video)
        #expect(video.orientation.matrix == nil)
        #expect(video.orientation.rotationDegrees == 0)
        #expect(info.warnings.contains { $0.code == "invalid_display_matrix" })
    }

    @Test func coverArtIsNotTheVideoStream() async throws {
        // Every probed file's chosen stream is not an attached picture.
        for row in Self.rows.filter(Self.ffprobeOpened) {
            guard let info = try? Probe.probe(path: row.path), let video = info.video else { continue }
            #expect(info.streams.first { $0.index == video.index }?.isAttachedPicture == false)
        }
    }
}
