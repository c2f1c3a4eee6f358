import Foundation
import MediaEngine
import TestSupport
import Testing
import TimelineCore

/// `--timestamps` and `--header`: text drawn with FreeType, checked against the same library's rendering.
struct ThumbsTextTests {
    private func run(_ input: String, _ output: String, _ extra: [String]) async throws -> [String: Any] {
        let result = try await Run.vtrim(["thumbs", "--json", input, "-o", output] + extra)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        return try #require(result.jsonLines.first)
    }

    private func box(_ cell: [String: Any]) -> PixelBox {
        PixelBox(x: cell["x"] as? Int ?? 0, y: cell["y"] as? Int ?? 0, width: cell["width"] as? Int ?? 0, height: cell["height"] as? Int ?? 0)
    }

    @Test(arguments: [(96, "grid"), (48, "grid"), (60, "videoline")])
    func timestampsChangeOnlyTheCornerAndMatchTheLibrarysRendering(_ height: Int, _ layout: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("h264-aac.mp4")
        let options = layout == "grid" ? ["--count", "8", "--height", String(height), "--columns", "4"]
            : ["--strip-width", "300", "--thumb-size", "80x\(height)"]
        let plain = try await run(input, folder.file("plain.png"), options)
        let stamped = try await run(input, folder.file("stamped.png"), options + ["--timestamps"])
        let renderer = try #require(TextRenderer())
        var expected = try PNGFile.read(folder.file("plain.png"))
        let actual = try PNGFile.read(folder.file("stamped.png"))
        let cells = try #require(stamped["cells"] as? [[String: Any]])
        #expect(cells.count == (plain["cells"] as? [[String: Any]])?.count)
        let times = cells.compactMap { $0["time"] as? Double }
        let spacing = zip(times, times.dropFirst()).map { $1 - $0 }.min() ?? 1
        var boxes: [PixelBox] = []
        for cell in cells {
            let pts = try #require(cell["pts"] as? Double)
            let text = TimeFormatting.truncatedClock(seconds: pts, fractionDigits: spacing < 1 ? 1 : 0, hours: false)
            #expect(text.hasPrefix("0:0") && text.count == (spacing < 1 ? 6 : 4), "\(text)")
            let cellBox = box(cell)
            let drawn = CellLabel.draw(text, on: &expected, cell: cellBox, renderer: renderer)
            // The corner: the right part of the bottom half of the cell.
            #expect(drawn.y >= cellBox.y + cellBox.height / 2 && drawn.y + drawn.height <= cellBox.y + cellBox.height)
            #expect(drawn.x + drawn.width <= cellBox.x + cellBox.width && drawn.x >= cellBox.x)
            boxes.append(drawn)
        }
        #expect(actual == expected, "the stamped sheet differs from the reference rendering")
        // Nothing outside the text boxes changed, and every box did change.
        let original = try PNGFile.read(folder.file("plain.png"))
        var changedOutside = 0
        var changedInside = Array(repeating: 0, count: boxes.count)
        for y in 0..<actual.height {
            for x in 0..<actual.width where actual.pixel(x: x, y: y) != original.pixel(x: x, y: y) {
                if let index = boxes.firstIndex(where: { $0.contains(x: x, y: y) }) { changedInside[index] += 1 } else { changedOutside += 1 }
            }
        }
        #expect(changedOutside == 0)
        #expect(changedInside.allSatisfy { $0 > 20 }, "\(changedInside)")
    }

    @Test func timeTexts() async {
        #expect(TimeFormatting.truncatedClock(seconds: 0, fractionDigits: 0) == "0:00:00")
        #expect(TimeFormatting.truncatedClock(seconds: 1.8333, fractionDigits: 1) == "0:00:01.8")
        #expect(TimeFormatting.truncatedClock(seconds: 3725.999, fractionDigits: 2) == "1:02:05.99")
        #expect(TimeFormatting.truncatedClock(seconds: 0.3, fractionDigits: 1) == "0:00:00.3")
        #expect(TimeFormatting.truncatedClock(seconds: -5, fractionDigits: 0) == "0:00:00")
        #expect(TimeFormatting.truncatedClock(seconds: 61.25, fractionDigits: 1, hours: false) == "1:01.2")
        #expect(TimeFormatting.truncatedClock(seconds: 3725, fractionDigits: 0, hours: false) == "1:02:05")
        #expect(TimeFormatting.fractionDigits(forSpacing: 1) == 0 && TimeFormatting.fractionDigits(forSpacing: 0.5) == 1
                && TimeFormatting.fractionDigits(forSpacing: 0.04) == 2 && TimeFormatting.fractionDigits(forSpacing: 0.001) == 3)
    }

    @Test func headerListsWhatProbeSaysAboveUnchangedCells() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = TestPaths.fixture("h264-aac.mp4")
        let options = ["--count", "6", "--columns", "3", "--height", "90"]
        _ = try await run(input, folder.file("plain.png"), options)
        let report = try await run(input, folder.file("headed.png"), options + ["--header"])
        let probe = try #require(try await Run.vtrim(["probe", "--json", input]).jsonLines.first)
        let video = try #require(probe["video"] as? [String: Any])
        let audio = try #require((probe["audio"] as? [[String: Any]])?.first)
        let lines = try #require(report["header"] as? [String])
        #expect(lines.count == 3)
        #expect(lines[0] == "h264-aac.mp4")
        let duration = try #require(probe["duration"] as? Double)
        #expect(lines[1].contains(TimeFormatting.truncatedClock(seconds: duration, fractionDigits: 2)))
        #expect(lines[1].contains("\(video["display_width"] as? Int ?? 0)x\(video["display_height"] as? Int ?? 0)"))
        let size = try #require(probe["size"] as? Int), bitRate = try #require(probe["bit_rate"] as? Int)
        // The size as `vtrim probe` says it: one unit system everywhere (binary, KiB).
        #expect(lines[1].contains(String(format: "%.1f KiB", Double(size) / 1024)), "\(lines[1])")
        #expect(try await Run.vtrim(["probe", input]).stdout.contains(String(format: "%.1f KiB", Double(size) / 1024)))
        #expect(lines[1].contains("\(Int((Double(bitRate) / 1000).rounded())) kb/s"))
        #expect(lines[1].contains("\(video["fps"] as? Int ?? 0) fps"))
        #expect(lines[2] == "video: \(video["codec"] as? String ?? "") (\(video["profile"] as? String ?? "")) · audio: \(audio["codec"] as? String ?? "") 48 kHz 1 ch")
        let band = try #require(report["header_height"] as? Int)
        #expect(band >= 40)
        let plain = try PNGFile.read(folder.file("plain.png")), headed = try PNGFile.read(folder.file("headed.png"))
        #expect(headed.width == plain.width && headed.height == plain.height + band)
        #expect(headed.cropped(x: 0, y: band, width: plain.width, height: plain.height) == plain)
        let cells = try #require(report["cells"] as? [[String: Any]])
        #expect(cells.first?["y"] as? Int == band && cells.last?["y"] as? Int == band + 90)
        // The band holds text: light pixels on the dark background.
        let header = headed.cropped(x: 0, y: 0, width: headed.width, height: band)
        let light = stride(from: 0, to: header.pixels.count, by: 3).filter { header.pixels[$0] > 150 }.count
        #expect(light > 200, "\(light) light pixels")
    }

    @Test func aNameTheFontCannotDrawIsNoFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.file("映像 テスト ✓.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: input)
        let report = try await run(input, folder.file("sheet.jpg"), ["--count", "2", "--header", "--timestamps"])
        #expect((report["header"] as? [String])?.first == "映像 テスト ✓.mp4")
        #expect((report["warnings"] as? [Any])?.isEmpty == true)
        // The glyphs come from a fallback font or are replacement boxes; either way they are drawn.
        let renderer = try #require(TextRenderer())
        #expect(renderer.render("映像", pixelSize: 20).coverage.contains { $0 > 0 })
    }

    @Test func headerIsForContactSheets() async throws {
        let result = try await Run.vtrim(["thumbs", TestPaths.fixture("h264-aac.mp4"), "--strip-width", "300", "--thumb-size", "40x30",
                                    "--header", "-o", "/tmp/never.png"])
        #expect(result.status == 64, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.png"))
    }

    /// Narrow (portrait) contact sheets at the default size: the header wraps inside the sheet instead of
    /// running off its edge mid-word, and each timestamp takes at most 3/5 of its cell's width.
    @Test(arguments: ["fixture", "portrait"])
    func narrowSheetsFitTheirHeaderAndTimestamps(_ source: String) async throws {
        let input: String
        var options = ["--count", "8", "--columns", "4", "--header", "--timestamps"]
        if source == "portrait" {
            guard let media = TestPaths.sharedMedia else { return }
            input = media + "/mediabunny/1080p-portrait-derotated.mp4"
            guard FileManager.default.fileExists(atPath: input) else { return }
        } else {
            input = TestPaths.fixture("h264-aac.mp4")
            options += ["--height", "38"]  // 4 cells of 51x38: as narrow as the portrait sheet
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = try await run(input, folder.file("sheet.png"), options)
        let sheet = try PNGFile.read(folder.file("sheet.png"))
        #expect(sheet.width <= 210, "\(sheet.width)")
        let band = try #require(report["header_height"] as? Int)
        // No text in the band's right margin (text cut off at the edge would reach it)…
        let margin = 5
        for y in 0..<band {
            for x in (sheet.width - margin)..<sheet.width {
                let pixel = sheet.pixel(x: x, y: y)
                #expect(pixel.0 == 32 && pixel.1 == 32 && pixel.2 == 32, "text at \(x),\(y) in the margin")
                if pixel.0 != 32 { return }
            }
        }
        // …and every word of the header is there: the band grew to more rows than lines.
        let renderer = try #require(TextRenderer())
        #expect((report["header"] as? [String])?.count == 3)
        #expect(band > SheetHeader.height(lines: ["one row", "each", "line"], width: sheet.width, renderer: renderer))
        for cell in try #require(report["cells"] as? [[String: Any]]) {
            var scratch = sheet
            let drawn = CellLabel.draw(TimeFormatting.truncatedClock(seconds: cell["pts"] as? Double ?? 0, fractionDigits: 1, hours: false),
                                       on: &scratch, cell: box(cell), renderer: renderer)
            #expect(drawn.width <= box(cell).width * 3 / 5 + 2, "\(drawn) in \(box(cell))")
        }
    }
}
