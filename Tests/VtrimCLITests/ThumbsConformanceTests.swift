import Foundation
import MediaEngine
import TestSupport
import Testing

/// `vtrim thumbs` over every real-world file: a strip of the display aspect, or a clean error.
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct ThumbsConformanceTests {
    @Test func everyDecodableFileGivesAStrip() async throws {
        let rows = ManifestRow.load()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", "--count", "4", "--height", "90", "--output-dir", folder.path]
                                   + rows.map(\.path))
        let objects = result.jsonLines
        try #require(objects.count == rows.count, "\(result.stderr)")
        var strips = 0, errors = 0, waveforms = 0
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
                try await Self.expectFirstCellIsFFmpegsFrame(row, object, cellWidth: cellWidth, cellHeight: 90)
            } else if row["video_codec"] == nil, row["width"] != nil, object["error"] == nil, object["cell_width"] != nil {
                // A video whose codec ffprobe 5.1 cannot name but vtrim reads (Dolby Vision's `dav1` entry as AV1).
                strips += 1
            } else if object["mode"] as? String == "waveform" {
                // Sound without pictures: its waveform (issue 49).
                waveforms += 1
            } else {
                errors += 1
                let code = (object["error"] as? [String: Any])?["code"] as? String
                #expect(["no_video", "unsupported_codec", "decode_failed", "not_media"].contains(code ?? ""), "\(row.file): \(code ?? "no error")")
            }
        }
        #expect(strips >= 60)
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") })
        print("thumbs conformance: \(strips) strips, \(waveforms) waveforms, \(errors) clean errors")
    }

    /// The first cell against ffmpeg's own picture of the frame vtrim says it shows (`pts`), decoded from
    /// the start of the file, turned and scaled as ffmpeg's CLI does. The tolerance allows for the two
    /// scalers and colour matrices (ffmpeg assumes BT.601 where a file says nothing; vtrim BT.709 for HD);
    /// another frame, a turned or mirrored picture, or garbage is far below it.
    static func expectFirstCellIsFFmpegsFrame(_ row: ManifestRow, _ object: [String: Any], cellWidth: Int, cellHeight: Int) async throws {
        guard let output = object["output"] as? String, let cell = (object["cells"] as? [[String: Any]])?.first,
              let pts = cell["pts"] as? Double, let x = cell["x"] as? Int, let y = cell["y"] as? Int else {
            Issue.record("\(row.file): no first cell in \(object)")
            return
        }
        // ffmpeg's CLI moves the input to start at 0 (without -copyts), as vtrim's times count from the container start.
        let absolute = pts
        // HDR cells are tone-mapped: the reference is ffmpeg's rendering with the same standard recipe.
        let toneMap = object["tone_mapped"] as? Bool == true
            ? "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p," : ""
        let raw = try await Run.tool("ffmpeg", ["-v", "quiet", "-i", row.path, "-map", "0:v:0", "-vf",
                                          "select='gte(t,\(absolute - 0.0005))',\(toneMap)scale=\(cellWidth):\(cellHeight):flags=bicubic",
                                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard raw.stdoutData.count == cellWidth * cellHeight * 3 else {
            Issue.record("\(row.file): ffmpeg gave no frame at \(pts) s")
            return
        }
        let reference = RGBImage(width: cellWidth, height: cellHeight, stride: cellWidth * 3, pixels: [UInt8](raw.stdoutData))
        let strip = try PNGFile.read(output)
        let psnr = ImageCompare.psnr(strip.cropped(x: x, y: y, width: cellWidth, height: cellHeight), reference)
        #expect(psnr >= 22, "\(row.file): first cell (\(pts) s) is \(psnr) dB from ffmpeg's frame")
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
