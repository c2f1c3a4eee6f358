import Foundation
import TestSupport
import Testing

/// `vtrim timeline` end to end.
struct TimelineCLITests {
    @Test func demoConfigurationGoldenValues() async throws {
        // VideoLine's demo: 375 pt, 30x50 thumbnails, range (2, 5); a 61.23 s clip keeps its tail
        // reachable with a partial 123rd cell (VideoLine: 122 cells, 0.23 s unreachable).
        let result = try await Run.vtrim(["timeline", "--json", "--duration", "61.23", "--strip-width", "375", "--thumb-size", "30x50"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object["path"] is NSNull)
        #expect(object["min_count"] as? Int == 10)
        #expect(object["margin"] as? Double == 37.5)
        #expect(object["time_spacing"] as? Double == 0.5)
        #expect(abs((object["seconds_per_point"] as? Double ?? 0) - 1.0 / 60) < 1e-15)
        #expect(object["thumbnail_count"] as? Int == 123)
        #expect(abs((object["content_width"] as? Double ?? 0) - 3673.8) < 1e-9)
        let cells = try #require(object["cells"] as? [[String: Any]])
        #expect(cells.count == 123)
        let last = try #require(cells.last)
        #expect(last["x"] as? Double == 3660)
        #expect(abs((last["width"] as? Double ?? 0) - 13.8) < 1e-9)
        #expect((last["sample_time"] as? Double ?? 99) < 61.23)
        for key in ["index", "time", "sample_time", "x", "width"] { #expect(last[key] != nil) }
        let selection = try #require(object["selection"] as? [String: Any])
        #expect(selection["start"] as? Double == 0 && selection["end"] as? Double == 5)
        #expect((object["warnings"] as? [Any])?.isEmpty == true)
    }

    @Test func durationFromAFileAndAClampedPreset() async throws {
        let result = try await Run.vtrim(["timeline", "--json", TestPaths.fixture("h264-aac.mp4"), "--strip-width", "375",
                                    "--thumb-size", "40x70", "--start", "1", "--end", "1.5"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object["path"] as? String == TestPaths.fixture("h264-aac.mp4"))
        // The 4 s clip is shorter than the 5 s maximum: the window is the whole clip.
        #expect(object["max_duration"] as? Double == 4)
        #expect(object["min_count"] as? Int == 7)
        let selection = try #require(object["selection"] as? [String: Any])
        #expect(selection["start"] as? Double == 1 && selection["end"] as? Double == 3)
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.first?["code"] as? String == "selection_clamped")
        #expect(result.stderr.contains("shorter than the minimum 2 s"))
    }

    @Test func invalidGeometryIsAnErrorNotACrash() async throws {
        let result = try await Run.vtrim(["timeline", "--json", "--duration", "10", "--strip-width", "119", "--thumb-size", "40x70"])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_range")
        #expect(result.stderrLines.count == 1)
    }

    @Test func needsADurationOrAnInput() async throws {
        #expect(try await Run.vtrim(["timeline", "--strip-width", "375", "--thumb-size", "30x50"]).status == 64)
        #expect(try await Run.vtrim(["timeline", "--duration", "5", TestPaths.fixture("h264-aac.mp4"), "--strip-width", "375",
                               "--thumb-size", "30x50"]).status == 64)
        #expect(try await Run.vtrim(["timeline", "--duration", "5", "--strip-width", "375", "--thumb-size", "30"]).status == 64)
    }

    @Test func humanOutput() async throws {
        let result = try await Run.vtrim(["timeline", "--duration", "61.23", "--strip-width", "375", "--thumb-size", "30x50"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("10 thumbnails of 30x50 pt in the window, margin 37.5 pt"))
        #expect(result.stdout.contains("123 cells"))
        #expect(result.stdout.contains("selection 00:00–00:05 (5.0 s)"))
    }
}
