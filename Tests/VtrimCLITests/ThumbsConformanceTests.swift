import Foundation
import TestSupport
import Testing

/// `vtrim thumbs` over every real-world file: a strip of the display aspect, or a clean error.
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct ThumbsConformanceTests {
    @Test func everyDecodableFileGivesAStrip() throws {
        let rows = ManifestRow.load()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try Run.vtrim(["thumbs", "--json", "--count", "4", "--height", "90", "--output-dir", folder.path]
                                   + rows.map(\.path))
        let objects = result.jsonLines
        try #require(objects.count == rows.count, "\(result.stderr)")
        var strips = 0, errors = 0
        for (row, object) in zip(rows, objects) {
            let decodable = (row["decoded_video_frames"].flatMap(Int.init) ?? 0) > 0
            let message = ((object["error"] as? [String: Any])?["message"] as? String) ?? ""
            if decodable, message.contains("past the readable end") {
                // A truncated file (e.g. mediabunny/annex-b.mp4: 0.46 s of 35 s) whose every cell lies past
                // its data: an error saying so, never frames from another time.
                errors += 1
            } else if decodable {
                guard object["error"] == nil else {
                    Issue.record("\(row.file): \(object["error"] ?? "")")
                    continue
                }
                strips += 1
                let (width, height) = try displaySize(row)
                let cellWidth = try #require(object["cell_width"] as? Int)
                #expect(cellWidth == max(1, Int((90 * width / height).rounded())), "\(row.file): \(cellWidth) for \(width)x\(height)")
            } else {
                errors += 1
                let code = (object["error"] as? [String: Any])?["code"] as? String
                #expect(["no_video", "unsupported_codec", "decode_failed", "not_media"].contains(code ?? ""), "\(row.file): \(code ?? "no error")")
            }
        }
        #expect(strips >= 60)
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") })
        print("thumbs conformance: \(strips) strips, \(errors) clean errors")
    }

    private func displaySize(_ row: ManifestRow) throws -> (Double, Double) {
        var width = try #require(row["width"].flatMap(Double.init))
        var height = try #require(row["height"].flatMap(Double.init))
        if let sar = row["sar"], case let parts = sar.split(separator: ":").compactMap({ Double($0) }), parts.count == 2, parts[0] > 0, parts[1] > 0 {
            width = (width * parts[0] / parts[1]).rounded()
        }
        if let ccw = row["displaymatrix_rotation_ccw"].flatMap(Int.init), ccw != Int.min, abs(ccw) % 180 == 90 {
            swap(&width, &height)
        }
        return (width, height)
    }
}
