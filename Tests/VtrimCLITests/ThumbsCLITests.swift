import Foundation
import MediaEngine
import TestSupport
import Testing

/// `vtrim thumbs` end to end: the PNG on disk, the JSON report, stderr and exit status.
struct ThumbsCLITests {
    @Test func defaultStripAndReport() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("strip.png")
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "-o", output])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let object = try #require(result.jsonLines.first)
        for key in ["path", "output", "width", "height", "mode", "cells", "warnings"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["output"] as? String == output)
        #expect(object["mode"] as? String == "accurate")
        #expect(object["width"] as? Int == 1200 && object["height"] as? Int == 90)
        let cells = try #require(object["cells"] as? [[String: Any]])
        #expect(cells.count == 10)
        // Centres of ten equal parts of 4 s: 0.2, 0.6, …, 3.8; the frame used is the one shown then.
        for (index, cell) in cells.enumerated() {
            for key in ["index", "time", "pts", "x", "y", "width", "height"] { #expect(cell[key] != nil) }
            let time = try #require(cell["time"] as? Double)
            #expect(abs(time - (0.2 + 0.4 * Double(index))) < 1e-9)
            let pts = try #require(cell["pts"] as? Double)
            #expect(pts <= time + 1e-9 && time - pts < 1.0 / 30)
            #expect(cell["x"] as? Int == index * 120 && cell["width"] as? Int == 120)
        }
        let image = try PNGFile.read(output)
        #expect(image.width == 1200 && image.height == 90)
        // No temporary file is left beside the output.
        #expect(folder.entries() == ["strip.png"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.range(of: Data("vtrim:source".utf8)) != nil)
        #expect(bytes.range(of: Data(TestPaths.fixture("h264-aac.mp4").utf8)) != nil)
    }

    @Test(arguments: ["h264-aac.mp4", "rot90.mp4", "rot180.mp4", "rot270.mp4", "mirror.mp4", "transpose.mp4"],
          ["accurate", "fast"])
    func everyCellIsUpright(_ file: String, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("strip.png")
        let result = try await Run.vtrim(["thumbs", TestPaths.fixture(file), "-o", output, "--count", "4", "--height", "120", "--mode", mode])
        #expect(result.status == 0, "\(result)")
        let strip = try PNGFile.read(output)
        #expect(strip.width == 4 * 160 && strip.height == 120)
        for index in 0..<4 {
            let cell = strip.cropped(x: index * 160, y: 0, width: 160, height: 120)
            #expect(ImageCompare.markersUpright(cell), "\(file) cell \(index)")
        }
    }

    @Test func gridFramesFolderAndEvery() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "--every", "0.5", "--columns", "3",
                                    "--height", "60", "--output-dir", folder.file("out"), "--frames-dir", folder.file("frames")])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let cells = try #require(object["cells"] as? [[String: Any]])
        #expect(cells.map { $0["time"] as? Double } == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5])
        #expect(object["width"] as? Int == 240 && object["height"] as? Int == 180)
        #expect(cells[4]["x"] as? Int == 80 && cells[4]["y"] as? Int == 60)
        #expect(FileManager.default.fileExists(atPath: folder.file("out/h264-aac.thumbs.png")))
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder.file("frames")).sorted()
        #expect(frames.count == 8 && frames.first == "h264-aac.thumb-000.png")
        let first = try PNGFile.read(folder.file("frames/h264-aac.thumb-000.png"))
        #expect(first.width == 80 && first.height == 60)
    }

    @Test func videoLineLayout() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Demo config: 375 pt wide, 30x50 thumbnails, max 2 s → 10 thumbs in the window, 0.2 s apart;
        // the 4 s clip → 20 cells of 30 pt, 600 pt of content; at 2 px per point 1200x100 px.
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "-o", folder.file("vl.png"),
                                    "--strip-width", "375", "--thumb-size", "30x50", "--max-duration", "2", "--scale", "2"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(abs((object["time_spacing"] as? Double ?? 0) - 0.2) < 1e-12)
        let cells = try #require(object["cells"] as? [[String: Any]])
        #expect(cells.count == 20)
        for (index, cell) in cells.enumerated() {
            #expect(abs((cell["time"] as? Double ?? -1) - 0.2 * Double(index)) < 1e-9)
            #expect(cell["x"] as? Int == 60 * index && cell["width"] as? Int == 60)
        }
        #expect(object["width"] as? Int == 1200 && object["height"] as? Int == 100)
        let image = try PNGFile.read(folder.file("vl.png"))
        #expect(image.width == 1200 && image.height == 100)
    }

    /// A clip whose length is not a multiple of the spacing ends in a partial cell, so the whole clip is
    /// reachable (VideoLine drops the tail).
    @Test func videoLinePartialLastCell() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // vfr.mp4 lasts 1.934 s; window 1.5 s over 10 thumbs of 30 pt → 0.15 s per cell → 12.89 cells.
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("vfr.mp4"), "-o", folder.file("p.png"),
                                    "--strip-width", "375", "--thumb-size", "30x50", "--window-max", "1.5"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let cells = try #require(object["cells"] as? [[String: Any]])
        #expect(cells.count == 13)
        let last = try #require(cells.last)
        #expect(last["x"] as? Int == 360)
        #expect(last["width"] as? Int == 27)
        #expect((last["time"] as? Double ?? 9) < 1.934)
        #expect(object["width"] as? Int == 387)
    }

    @Test func usageErrors() async throws {
        let two = [TestPaths.fixture("h264-aac.mp4"), TestPaths.fixture("hevc.mp4")]
        for arguments in [
            ["thumbs"] + two + ["-o", "/tmp/x.png"],
            ["thumbs", TestPaths.fixture("h264-aac.mp4"), "--every", "1", "--count", "3"],
            ["thumbs", TestPaths.fixture("h264-aac.mp4"), "--count", "0"],
            ["thumbs", TestPaths.fixture("h264-aac.mp4"), "--strip-width", "375"],
            ["thumbs", TestPaths.fixture("h264-aac.mp4"), "--start", "banana"],
            ["thumbs", TestPaths.fixture("h264-aac.mp4"), "--mode", "slow"],
        ] {
            let result = try await Run.vtrim(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func existingOutputIsKeptWithoutOverwrite() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("keep.png")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: output))
        let refused = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("hevc.mp4"), "-o", output])
        #expect(refused.status == 1)
        #expect((refused.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "output_exists")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "precious")
        let replaced = try await Run.vtrim(["thumbs", TestPaths.fixture("hevc.mp4"), "-o", output, "--overwrite"])
        #expect(replaced.status == 0)
        #expect(try PNGFile.read(output).height == 90)
        #expect(folder.entries() == ["keep.png"])
    }

    @Test func theInputIsNeverTheOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A video named like a picture, so the output names pass the extension check and reach the file check.
        let input = folder.file("clip.png")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.png"), withDestinationPath: input)
        for output in [input, "./clip.png", folder.file("link.png")] {
            let result = try await Run.vtrim(["thumbs", "--json", input, "-o", output, "--overwrite"], in: folder.path)
            #expect(result.status == 1, "\(output)")
            #expect((result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "output_is_input")
        }
        // A video's own name is no picture name: refused before anything is opened.
        let video = folder.file("clip.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: video)
        #expect(try await Run.vtrim(["thumbs", video, "-o", video, "--overwrite"], in: folder.path).status == 64)
        #expect(try Data(contentsOf: URL(fileURLWithPath: video)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }

    /// A file without pictures: sound gets its waveform (issue 49), no media fails alone.
    @Test func inputsWithoutPicturesFailCleanly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("audio-only.m4a"), TestPaths.fixture("empty.mp4"),
                                    "--output-dir", folder.path])
        #expect(result.status == 1)
        #expect(result.jsonLines.first?["mode"] as? String == "waveform", "\(result)")
        #expect(result.jsonLines.compactMap { ($0["error"] as? [String: Any])?["code"] as? String } == ["not_media"])
        #expect(result.stderrLines.filter { $0.hasPrefix("vtrim: error: ") }.count == 1)
        #expect(result.stderrLines.last == nil || result.stderrLines.last?.hasPrefix("vtrim: 1 ok, 1 failed, 0 skipped in ") == true)
    }

    @Test func tooWideIsRefusedWithAHint() async throws {
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "--count", "300", "--height", "200",
                                    "--output-dir", FileManager.default.temporaryDirectory.path])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "too_large")
        #expect((error["message"] as? String)?.contains("--columns") == true)
    }

    @Test func strictKeepsNoOutput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let live = folder.file("live.webm")
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("vp9-opus.webm"), "-c", "copy", "-live", "1", "-f", "webm", live])
        try #require(make.status == 0)
        let result = try await Run.vtrim(["thumbs", "--strict", live, "-o", folder.file("s.png")])
        #expect(result.status == 1)
        #expect(folder.entries() == ["live.webm"])
    }

    /// `--dry-run` prints the plan the real run executes: the same layout, outputs and cells (times and
    /// boxes), and writes nothing — not even the folders a real run would create.
    @Test(arguments: [
        ["--count", "4", "--height", "48", "--columns", "2", "--vtt"],
        ["--strip-width", "375", "--thumb-size", "30x50", "--window-max", "1.5"],
        ["--every", "0.7", "--height", "40", "--start", "0.5", "--end", "3"],
    ])
    func dryRunIsTheRealRunsPlan(options: [String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("out/sheet.png"), frames = folder.file("cells")
        let common = ["thumbs", "--json", TestPaths.fixture("rot90.mp4"), "--output-dir", folder.file("out"), "--name", "sheet.png",
                      "--frames-dir", frames] + options
        let dry = try await Run.vtrim(common + ["--dry-run"])
        #expect(dry.status == 0, "\(dry)")
        #expect(folder.entries().isEmpty, "a dry run wrote \(folder.entries())")
        let planned = try #require(dry.jsonLines.first)
        #expect(planned["dry_run"] as? Bool == true)
        let real = try await Run.vtrim(common)
        #expect(real.status == 0, "\(real)")
        let done = try #require(real.jsonLines.first)
        #expect(done["output"] as? String == output)
        for key in ["output", "format", "width", "height", "mode", "layout", "columns", "rows", "cell_width", "cell_height", "start", "end",
                    "vtt"] {
            #expect(String(describing: planned[key]) == String(describing: done[key]), "\(key)")
        }
        let plannedCells = try #require(planned["cells"] as? [[String: Any]]), doneCells = try #require(done["cells"] as? [[String: Any]])
        #expect(plannedCells.count == doneCells.count)
        for (plan, cell) in zip(plannedCells, doneCells) {
            for key in ["index", "time", "x", "y", "width", "height"] {
                #expect(String(describing: plan[key]) == String(describing: cell[key]), "cell \(String(describing: plan["index"])) \(key)")
            }
        }
        #expect((planned["frames"] as? [String]) == doneCells.compactMap { $0["file"] as? String })
    }

    /// Every output of an input is checked before any is written: a cell picture that exists already fails
    /// the input with nothing written — no sheet, no track, no other cell.
    @Test func anExistingFramesFileLeavesNothingWritten() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cells = folder.file("cells")
        try FileManager.default.createDirectory(atPath: cells, withIntermediateDirectories: true)
        let taken = (cells as NSString).appendingPathComponent("h264-aac.thumb-002.png")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: taken))
        let result = try await Run.vtrim(["thumbs", "--json", TestPaths.fixture("h264-aac.mp4"), "--count", "4", "--height", "40", "--vtt",
                                    "--frames-dir", cells, "-o", folder.file("sheet.png")])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "output_exists", "\(result)")
        #expect(folder.entries() == ["cells"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cells) == ["h264-aac.thumb-002.png"])
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "mine")
    }
}
