import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MediaEngine
import TestSupport
import Testing

/// `vtrim thumbs --storyboard`: each format's structure read by a reader of its own (a BIF parser, the HLS tags,
/// the MPD fragment as XML, Jellyfin's folder and sheet layout), and every cell against ffmpeg's decode of the
/// frame at its time.
struct StoryboardTests {
    /// h264-aac.mp4: 4 s of 160x120 at 30 fps. A thumbnail every 0.5 s, 64 px wide (48 high), 3x2 per sheet:
    /// 8 thumbnails, 2 sheets of 192x96 (the second with 2 cells).
    static let options = ["--every", "0.5", "--width", "64", "--tile", "3x2"]

    static func storyboard(_ format: String, in folder: TemporaryFolder, extra: [String] = []) async throws -> (input: String, report: [String: Any]) {
        let input = folder.file("clip.mp4")
        if !FileManager.default.fileExists(atPath: input) { try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: input) }
        let result = try await Run.vtrim(["thumbs", "--json", input, "--storyboard", format] + options + extra)
        #expect(result.status == 0, "\(result)")
        return (input, try #require(result.jsonLines.first))
    }

    /// A JPEG decoded by ffmpeg (not vtrim) into RGB.
    static func decodeJPEG(_ path: String, width: Int, height: Int) async throws -> RGBImage {
        let raw = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let pixels = [UInt8](raw.stdoutData)
        try #require(raw.status == 0 && pixels.count == width * height * 3, "\(path): \(pixels.count) bytes for \(width)x\(height)")
        return RGBImage(width: width, height: height, stride: width * 3, pixels: pixels)
    }

    /// Each thumbnail is the frame shown at its time: closer to ffmpeg's decode of that frame than to its neighbours'.
    static func expectTrueFrames(_ thumbnails: [RGBImage], times: [Double], input: String) async throws {
        let frames = try await Reference.frames(input, width: 64, height: 48)
        for (thumbnail, time) in zip(thumbnails, times) {
            let shown = try #require(Reference.frameShown(at: time, in: frames))
            let index = try #require(frames.firstIndex { $0.seconds == shown.seconds })
            let psnr = ImageCompare.psnr(thumbnail, shown.image)
            #expect(psnr >= 28, "thumbnail at \(time) s: \(psnr) dB")
            for neighbour in [index - 1, index + 1] where frames.indices.contains(neighbour) {
                #expect(psnr > ImageCompare.psnr(thumbnail, frames[neighbour].image), "thumbnail at \(time) s looks more like frame \(neighbour)")
            }
        }
    }

    @Test func jellyfinFolderHoldsFullSheets() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (input, report) = try await Self.storyboard("jellyfin", in: folder)
        let sheets = folder.file("clip.trickplay/64 - 3x2")
        #expect(report["output"] as? String == sheets)
        let listing = try FileManager.default.contentsOfDirectory(atPath: sheets).sorted()
        #expect(listing == ["0.jpg", "1.jpg"], "\(listing)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("clip.trickplay")) == ["64 - 3x2"])
        let storyboard = try #require(report["storyboard"] as? [String: Any])
        #expect(storyboard["thumbnail_width"] as? Int == 64 && storyboard["thumbnail_height"] as? Int == 48)
        #expect(storyboard["tile_columns"] as? Int == 3 && storyboard["tile_rows"] as? Int == 2 && storyboard["thumbnail_count"] as? Int == 8)
        #expect(storyboard["interval"] as? Double == 0.5 && (storyboard["bandwidth"] as? Int ?? 0) > 0)
        #expect((storyboard["files"] as? [String])?.count == 2)
        // Every sheet a full 3x2 grid, cells left→right then top→bottom.
        var decoded: [RGBImage] = []
        for name in ["0.jpg", "1.jpg"] { decoded.append(try await Self.decodeJPEG(sheets + "/" + name, width: 192, height: 96)) }
        let thumbnails = (0..<8).map { index in decoded[index / 6].cropped(x: (index % 6 % 3) * 64, y: (index % 6 / 3) * 48, width: 64, height: 48) }
        try await Self.expectTrueFrames(thumbnails, times: (0..<8).map { Double($0) * 0.5 }, input: input)
        // The last sheet's empty cells are black.
        let empty = decoded[1].cropped(x: 128, y: 48, width: 64, height: 48)
        #expect(empty.pixels.allSatisfy { $0 < 24 })
        // Run again: the storyboard exists (an error without --overwrite, skipped with --skip-existing).
        let again = try await Run.vtrim(["thumbs", "--json", input, "--storyboard", "jellyfin"] + Self.options)
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again)")
        let skipped = try await Run.vtrim(["thumbs", "--json", input, "--storyboard", "jellyfin", "--skip-existing"] + Self.options)
        #expect(skipped.status == 0 && skipped.stdout.contains("skipped"), "\(skipped)")
        // Another width goes beside it, untouched; no temporary folder is left.
        _ = try await Self.storyboard("jellyfin", in: folder, extra: ["--width", "32"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("clip.trickplay")).sorted() == ["32 - 3x2", "64 - 3x2"])
    }

    /// BIF v0 read back field by field: magic, version, count, interval, reserved bytes, the index and its end.
    @Test func bifIsReadBack() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (input, report) = try await Self.storyboard("bif", in: folder)
        let path = folder.file("clip-64-0.5.bif")
        #expect(report["output"] as? String == path)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        #expect(Array(bytes[0..<8]) == [0x89, 0x42, 0x49, 0x46, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(u32(8) == 0 && u32(12) == 8 && u32(16) == 500)
        #expect(bytes[20..<64].allSatisfy { $0 == 0 })
        var images: [RGBImage] = []
        for entry in 0..<8 {
            #expect(u32(64 + entry * 8) == entry)
            let start = u32(68 + entry * 8), end = u32(68 + (entry + 1) * 8)
            try #require(start < end && end <= bytes.count)
            #expect(bytes[start] == 0xFF && bytes[start + 1] == 0xD8, "entry \(entry) is not a JPEG")
            let picture = folder.file("entry\(entry).jpg")
            try Data(bytes[start..<end]).write(to: URL(fileURLWithPath: picture))
            await images.append(try Self.decodeJPEG(picture, width: 64, height: 48))
        }
        #expect(UInt32(truncatingIfNeeded: u32(64 + 8 * 8)) == 0xFFFF_FFFF && u32(68 + 8 * 8) == bytes.count)
        try await Self.expectTrueFrames(images, times: (0..<8).map { Double($0) * 0.5 }, input: input)
    }

    /// The HLS image playlist's tags, and the line for a master playlist.
    @Test func hlsPlaylistNamesTheTiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try await Self.storyboard("hls", in: folder)
        let base = folder.file("clip.trickplay-hls/64 - 3x2")
        let lines = try String(contentsOfFile: base + "/index.m3u8", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "#EXTM3U" && lines.contains("#EXT-X-IMAGES-ONLY") && lines.last == "#EXT-X-ENDLIST")
        let durations = lines.filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).dropLast()) }
        #expect(durations == [3, 1], "\(durations)")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-TILES:") }.allSatisfy { $0 == "#EXT-X-TILES:RESOLUTION=64x48,LAYOUT=3x2,DURATION=0.500" })
        #expect(lines.filter { $0.hasSuffix(".jpg") } == ["0.jpg", "1.jpg"])
        #expect(lines.contains { $0.hasPrefix("#EXT-X-TARGETDURATION:3") })
        let inf = try String(contentsOfFile: base + "/image-stream.m3u8", encoding: .utf8)
        #expect(inf.hasPrefix("#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=") && inf.contains("RESOLUTION=64x48") && inf.contains("URI=\"index.m3u8\""), "\(inf)")
    }

    /// The DASH AdaptationSet parses as XML and names the tile grid, the sheets' template and size.
    @Test func dashFragmentParses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try await Self.storyboard("dash", in: folder)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: folder.file("clip.trickplay-dash/64 - 3x2/thumbnails.mpd")))
        let root = try #require(document.rootElement())
        #expect(root.name == "AdaptationSet" && root.attribute(forName: "mimeType")?.stringValue == "image/jpeg")
        let template = try #require(root.elements(forName: "SegmentTemplate").first)
        #expect(template.attribute(forName: "media")?.stringValue == "$Number$.jpg" && template.attribute(forName: "duration")?.stringValue == "3000")
        #expect(template.attribute(forName: "timescale")?.stringValue == "1000" && template.attribute(forName: "startNumber")?.stringValue == "0")
        let representation = try #require(root.elements(forName: "Representation").first)
        #expect(representation.attribute(forName: "width")?.stringValue == "192" && representation.attribute(forName: "height")?.stringValue == "96")
        let property = try #require(representation.elements(forName: "EssentialProperty").first)
        #expect(property.attribute(forName: "schemeIdUri")?.stringValue == "http://dashif.org/guidelines/thumbnail_tile")
        #expect(property.attribute(forName: "value")?.stringValue == "3x2")
    }

    /// Fast mode: keyframes (1 s apart here) stand in for their thumbnails, but a thumbnail whose keyframe lies
    /// more than one interval before it is drawn from the frame at its time, and counted.
    @Test func fastModeKeepsNearKeyframesOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, report) = try await Self.storyboard("bif", in: folder, extra: ["--mode", "fast", "--every", "0.25"])
        let cells = try #require(report["cells"] as? [[String: Any]])
        let storyboard = try #require(report["storyboard"] as? [String: Any])
        for cell in cells {
            let time = try #require(cell["time"] as? Double), pts = try #require(cell["pts"] as? Double)
            #expect(pts <= time + 1e-6 && time - pts <= 0.25 + 1e-6, "thumbnail at \(time) s shows \(pts) s")
        }
        #expect((storyboard["drawn_accurately"] as? Int ?? 0) > 0, "\(storyboard)")
    }

    @Test func storyboardOptionsAreChecked() async throws {
        let input = TestPaths.fixture("h264-aac.mp4")
        for (extra, needle) in [(["--count", "3"], "--count"), (["--height", "90"], "--height"), (["--width", "63"], "even"),
                                (["-o", "x.bif"], "-o and --name"), (["--columns", "3"], "--tile"), (["--tile", "0x3"], "tile"),
                                (["--every", "0.0000000000000000001"], "--every")] {
            let result = try await Run.vtrim(["thumbs", input, "--storyboard", "bif"] + extra)
            #expect(result.status == 64 && result.stderr.contains(needle), "\(extra): \(result)")
        }
    }
}
