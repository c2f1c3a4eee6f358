import Foundation
import MediaEngine
import TestSupport
import Testing

/// HDR thumbnails look like a player's SDR rendering: compared with ffmpeg's own zscale + tonemap recipe of
/// the same frame, by mean luminance and colourfulness (fixtures/hdr10-pq.mp4, fixtures/hlg.mp4).
struct ToneMapTests {
    struct Look: CustomStringConvertible {
        var luma: Double
        var colourfulness: Double
        var description: String { "luma \(Int(luma)), colourfulness \(Int(colourfulness))" }
    }

    /// Mean BT.709 luma and Hasler–Süsstrunk colourfulness.
    static func look(_ image: RGBImage) -> Look {
        var luma = 0.0, rg: [Double] = [], yb: [Double] = []
        for offset in stride(from: 0, to: image.pixels.count, by: 3) {
            let r = Double(image.pixels[offset]), g = Double(image.pixels[offset + 1]), b = Double(image.pixels[offset + 2])
            luma += 0.2126 * r + 0.7152 * g + 0.0722 * b
            rg.append(r - g)
            yb.append(0.5 * (r + g) - b)
        }
        func meanAndDeviation(_ values: [Double]) -> (Double, Double) {
            let mean = values.reduce(0, +) / Double(values.count)
            return (mean, (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
        }
        let (mrg, srg) = meanAndDeviation(rg), (myb, syb) = meanAndDeviation(yb)
        return Look(luma: luma / Double(image.pixels.count / 3),
                    colourfulness: (srg * srg + syb * syb).squareRoot() + 0.3 * (mrg * mrg + myb * myb).squareRoot())
    }

    /// ffmpeg's rendering of frame `index`, tone-mapped with the standard recipe, at the cell size.
    static func reference(_ path: String, frame index: Int, width: Int, height: Int) async throws -> RGBImage {
        let filters = "select=eq(n\\,\(index)),zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
            + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p,"
            + "scale=\(width):\(height):flags=bicubic+accurate_rnd+full_chroma_int"
        let run = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-vf", filters, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(run.status == 0 && run.stdoutData.count == width * height * 3, "\(run.stderr)")
        return RGBImage(width: width, height: height, stride: width * 3, pixels: [UInt8](run.stdoutData))
    }

    @Test(arguments: ["hdr10-pq.mp4", "hlg.mp4"])
    func hdrCellsLookLikeTheToneMappedReference(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture(name)
        let mapped = try await Run.vtrim(["thumbs", "--json", input, "--count", "3", "--height", "120", "-o", folder.file("mapped.png")])
        #expect(mapped.status == 0 && mapped.stderr.isEmpty, "\(mapped)")
        let report = try #require(mapped.jsonLines.first)
        #expect(report["tone_mapped"] as? Bool == true)
        #expect((report["warnings"] as? [Any])?.isEmpty == true)
        let flat = try await Run.vtrim(["thumbs", "--json", input, "--count", "3", "--height", "120", "--no-tonemap", "-o", folder.file("flat.png")])
        #expect(flat.status == 0)
        #expect(((flat.jsonLines.first?["warnings"] as? [[String: Any]])?.first?["code"] as? String) == "hdr_not_tone_mapped")
        let sheet = try PNGFile.read(folder.file("mapped.png")), flatSheet = try PNGFile.read(folder.file("flat.png"))
        for cell in try #require(report["cells"] as? [[String: Any]]) {
            let x = try #require(cell["x"] as? Int), width = try #require(cell["width"] as? Int), height = try #require(cell["height"] as? Int)
            let pts = try #require(cell["pts"] as? Double)
            let expected = await Self.look(try Self.reference(input, frame: Int((pts * 30).rounded()), width: width, height: height))
            let actual = Self.look(sheet.cropped(x: x, y: 0, width: width, height: height))
            let untouched = Self.look(flatSheet.cropped(x: x, y: 0, width: width, height: height))
            func close(_ look: Look) -> Bool {
                abs(look.luma - expected.luma) <= 6 && abs(look.colourfulness - expected.colourfulness) <= 0.1 * expected.colourfulness
            }
            #expect(close(actual), "\(name) at \(pts): vtrim \(actual), ffmpeg \(expected)")
            // The check can tell: the plain conversion is not close.
            #expect(!close(untouched), "\(name) at \(pts): untouched \(untouched), ffmpeg \(expected)")
        }
    }
}
