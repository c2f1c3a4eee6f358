import Foundation
import MediaEngine
import TestSupport
import Testing

/// Half-copied files (fixtures/make-truncated.sh: a faststart MP4, an MP4 with its index at the end,
/// Matroska and MPEG-TS cut to 10/33/66/99 % of their bytes) through probe, thumbs and every cut mode:
/// never a result that looks whole and is not.
struct TruncationTests {
    /// The truncated files (test media, made once).
    static func folder() async throws -> String {
        let script = TestPaths.fixture("make-truncated.sh")
        let marker = try await TestMedia.file("faststart-100.mp4", key: ["make-truncated.sh", script, TestPaths.fixture("h264-aac.mp4")]) { output in
            let made = try await Run.tool(script, [(output as NSString).deletingLastPathComponent])
            guard made.status == 0 else { throw ReferenceError(message: "fixtures/make-truncated.sh failed: \(made)") }
        }
        return (marker as NSString).deletingLastPathComponent
    }

    /// `vtrim probe --json` of every file: readable_duration by name, in one run.
    static let probed = Once { () async throws -> [String: Double] in
        let folder = try await Self.folder()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        let result = try await Run.vtrim(["probe", "--json"] + names.sorted().map { folder + "/" + $0 })
        var readable: [String: Double] = [:]
        for object in result.jsonLines {
            if let path = object["path"] as? String { readable[(path as NSString).lastPathComponent] = object["readable_duration"] as? Double }
        }
        return readable
    }

    static func readable(_ path: String) async throws -> Double {
        try #require(try await probed.value[(path as NSString).lastPathComponent])
    }

    static let readableKinds = ["faststart-%d.mp4", "matroska-%d.mkv", "ts-%d.ts"]
    static let cases: [(String, Int)] = readableKinds.flatMap { kind in [10, 33, 66, 99].map { (kind, $0) } }

    static func file(_ kind: String, _ percent: Int) async throws -> String {
        try await folder() + "/" + String(format: kind, percent)
    }

    /// Where the video that really decodes ends (seconds from the container start): ffmpeg's last
    /// decoded frame plus one frame (30 fps).
    static func decodableEnd(_ path: String) async throws -> Double {
        try #require(try await Reference.frameTimes(path).max()) + 1.0 / 30
    }

    @Test(arguments: cases)
    func probeWarnsAndMeasuresWhatIsThere(kind: String, percent: Int) async throws {
        let path = try await Self.file(kind, percent)
        let result = try await Run.vtrim(["probe", "--json", path])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object.codes("warnings").contains("truncated"), "\(result)")
        #expect(result.stderr.contains("truncated"))
        let duration = try #require(object["duration"] as? Double)
        let readable = try #require(object["readable_duration"] as? Double)
        let truth = try await Self.decodableEnd(path)
        #expect(readable <= duration)
        // MP4's index gives decode times: at most a few frames (the B-frame delay) short, never long.
        #expect(readable <= truth + 0.04 && readable >= truth - 0.2, "readable \(readable), decodable to \(truth)")
    }

    @Test(arguments: ["faststart-100.mp4", "indexlast-100.mp4", "matroska-100.mkv", "ts-100.ts"])
    func wholeFilesAreNotFlagged(name: String) async throws {
        let path = try await Self.folder() + "/" + name
        let object = try #require(try await Run.vtrim(["probe", "--json", path]).jsonLines.first)
        #expect(!object.codes("warnings").contains("truncated"))
        #expect(object["readable_duration"] as? Double == object["duration"] as? Double)
        #expect((object["video"] as? [String: Any])?["decodable"] as? Bool == true)
    }

    /// An MP4 whose index sits after the media cannot be read without it: a clean error that says why.
    @Test(arguments: [10, 33, 66, 99])
    func indexAtTheEndIsAnError(percent: Int) async throws {
        let path = try await Self.file("indexlast-%d.mp4", percent)
        for arguments in [["probe"], ["thumbs", "-o", path + ".png"], ["cut", "--start", "0", "--end", "1", "-o", path + ".cut.mp4"]] {
            let result = try await Run.vtrim([arguments[0], "--json", path] + arguments.dropFirst())
            #expect(result.status == 1, "\(result)")
            let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
            #expect(error["code"] as? String == "not_media")
            #expect((error["message"] as? String)?.contains("truncated") == true, "\(error)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("vtrim: error: \(path): "), "\(result.stderr)")
        }
    }

    /// Every cell shows the frame at its time, compared with ffmpeg's decode of the whole file; cells past
    /// the readable end are grey with `sample_failed`, never the last frame again.
    @Test(arguments: cases)
    func thumbsNeverShowAnotherFrame(kind: String, percent: Int) async throws {
        let path = try await Self.file(kind, percent)
        let whole = try await Self.file(kind, 100)
        let png = path + ".png"
        let result = try await Run.vtrim(["thumbs", "--json", path, "--count", "8", "--height", "90", "-o", png, "--overwrite"])
        let object = try #require(result.jsonLines.first, "\(result)")
        let readable = try await Self.readable(path)
        guard result.status == 0 else {
            // Nothing readable where the first cell is: the input fails as a whole.
            #expect((object["error"] as? [String: Any])?["code"] as? String == "decode_failed", "\(result)")
            return
        }
        let cells = try #require(object["cells"] as? [[String: Any]])
        let strip = try PNGFile.read(png)
        let reference = try await Reference.frames(whole, width: 120, height: 90)
        var failed = 0
        for cell in cells {
            let time = try #require(cell["time"] as? Double)
            if time >= readable {
                #expect(cell["error"] != nil && cell["pts"] is NSNull, "cell at \(time) past \(readable): \(cell)")
            }
            guard cell["error"] == nil else {
                failed += 1
                continue
            }
            let x = try #require(cell["x"] as? Int)
            let expected = try #require(Reference.frameShown(at: time, in: reference))
            let psnr = ImageCompare.psnr(strip.cropped(x: x, y: 0, width: 120, height: 90), expected.image)
            #expect(psnr >= 35, "\(path) cell at \(time): PSNR \(psnr) against ffmpeg's frame at \(expected.seconds)")
        }
        #expect(object.codes("warnings").contains("sample_failed") == (failed > 0), "\(result)")
    }

    /// Under the sanitizers the readers meet every truncation through the copy writer; the exact and smart writers
    /// (the same reading) at 66 % only.
    static let cutCases: [(String, Int, String)] = cases.flatMap { kind, percent in
        ["copy", "exact", "smart"].map { (kind, percent, $0) }
    }.filter { !TestPaths.sanitized || $0.2 == "copy" || $0.1 == 66 }

    /// A cut over the readable end warns `truncated` before writing, ends where the data does (never a
    /// last frame held to the requested end), says so in `actual`; `--strict` refuses and writes nothing.
    @Test(arguments: cutCases)
    func cutsStopWhereTheDataDoes(kind: String, percent: Int, mode: String) async throws {
        let path = try await Self.file(kind, percent)
        let output = path + ".\(mode).cut" + (kind.hasSuffix("mp4") ? ".mp4" : kind.hasSuffix("mkv") ? ".mkv" : ".ts")
        let readable = try await Self.readable(path)
        let end = 3.8
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "0", "--end", String(end), "--mode", mode, "-o", output, "--overwrite"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let warnings = object.codes("warnings")
        if readable < end - 0.001, !warnings.contains("end_clamped") {
            #expect(warnings.contains("truncated"), "\(result)")
        }
        let actual = try #require(object["actual"] as? [String: Any])
        let duration = try #require(actual["duration"] as? Double)
        let written = try await Reference.frameTimes(output)
        let lastShown = try #require(written.max()) + 1.0 / 30
        #expect(duration <= readable + 0.15, "wrote \(duration) s of \(readable) s readable")
        #expect(lastShown >= duration - 0.07, "the output claims \(duration) s but its frames end at \(lastShown)")

        if warnings.contains("truncated") {
            let strict = folderFile(path, "strict-\(mode)")
            let refused = try await Run.vtrim(["cut", path, "--start", "0", "--end", String(end), "--mode", mode, "-o", strict, "--strict"])
            #expect(refused.status == 1 && refused.stderr.contains("--strict"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: strict))
        }
    }

    /// A range that lies before the truncation is cut whole: a note, not a warning.
    /// An audiobook whose index claims hours but whose file holds 1 MB (a truncated download): probe warns; a
    /// cut of a range past what the file holds fails naming the truncation (it wrote a 258-byte file, or failed
    /// "av_seek_frame failed"); a join whose ranges lie before and past the truncation says so once.
    @Test func truncatedAudiobookIsNamed() async throws {
        guard let shared = TestPaths.sharedMedia else { return }
        let input = shared + "/androidx-media/large_stbl_truncated_after_moov.m4b"
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let probe = try await Run.vtrim(["probe", "--json", input])
        #expect(probe.status == 0 && (probe.jsonLines.first?.codes("warnings").contains("truncated") ?? false), "\(probe)")
        let cut = try await Run.vtrim(["cut", input, "--start", "1", "--end", "5", "-o", folder.file("a.m4a")])
        #expect(cut.status == 1 && cut.stderr.contains("truncated") && cut.stderr.contains("past what can be read"), "\(cut)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.m4a")))
        let join = try await Run.vtrim(["cut", "--json", TestPaths.fixture("truncated.mp4"), "--keep", "0.5..1", "--keep", "1.5..3",
                                  "--mode", "exact", "-o", folder.file("j.mp4")])
        #expect(join.status == 0, "\(join)")
        let warnings = (join.jsonLines.first?["warnings"] as? [[String: Any]] ?? []) + (join.jsonLines.first?["notes"] as? [[String: Any]] ?? [])
        let truncation = warnings.filter { ($0["code"] as? String).map { ["truncated", "input_truncated"].contains($0) } ?? false }
        #expect(truncation.count == 1, "one truncation message: \(truncation)")
    }

    @Test func rangeBeforeTheTruncationIsWhole() async throws {
        let path = try await Self.file("faststart-%d.mp4", 66)
        let result = try await Run.vtrim(["cut", "--json", path, "--start", "0.5", "--end", "1.5", "-o", path + ".early.mp4",
                                    "--overwrite", "--strict"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        #expect(object.codes("warnings").isEmpty)
        #expect(object.codes("notes").contains("input_truncated"))
    }

    private func folderFile(_ path: String, _ label: String) -> String {
        path + ".\(label)" + (path.hasSuffix(".ts") ? ".ts" : path.hasSuffix(".mkv") ? ".mkv" : ".mp4")
    }

    /// One damaged timestamp (a video PES whose PTS reads 2^33 − 1, found by fuzz/fuzz.py's `tsfield`) does
    /// not make a 4 s MPEG-TS hours long: the duration stays the container's, with no `duration_suspect`.
    @Test func anOutlierTimestampIsNotTheEnd() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.fixture("h264-aac.ts"))))
        // The 60th video PES start: a payload-unit start whose PES header (00 00 01 E0) carries a PTS.
        var seen = 0, patched = false
        for offset in stride(from: 0, to: bytes.count - 188, by: 188) where bytes[offset] == 0x47 && bytes[offset + 1] & 0x40 != 0 {
            let adaptation = (bytes[offset + 3] >> 4) & 2 != 0 ? 1 + Int(bytes[offset + 4]) : 0
            let pes = offset + 4 + adaptation
            guard pes + 14 <= offset + 188, bytes[pes..<(pes + 4)].elementsEqual([0, 0, 1, 0xE0]), bytes[pes + 7] & 0x80 != 0 else { continue }
            seen += 1
            guard seen == 60 else { continue }
            let pts: UInt64 = (1 << 33) - 1
            bytes[pes + 9] = (bytes[pes + 9] & 0xF1) | UInt8((pts >> 29) & 0x0E)
            bytes[pes + 10] = UInt8((pts >> 22) & 0xFF)
            bytes[pes + 11] = UInt8(((pts >> 14) & 0xFE) | 1)
            bytes[pes + 12] = UInt8((pts >> 7) & 0xFF)
            bytes[pes + 13] = UInt8(((pts << 1) & 0xFE) | 1)
            patched = true
            break
        }
        try #require(patched)
        let damaged = folder.file("outlier.ts")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let run = try await Run.vtrim(["probe", "--json", damaged])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        let duration = try #require(object["duration"] as? Double)
        #expect(abs(duration - 4.02) < 0.05, "duration \(duration)")
        #expect(!run.stderr.contains("duration_suspect") && !(run.stdout.contains("duration_suspect")), "\(run)")
    }
}
