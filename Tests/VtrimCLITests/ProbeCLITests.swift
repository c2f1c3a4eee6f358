import Foundation
import TestSupport
import Testing

/// `vtrim probe` run end to end: stdout, stderr and exit status.
struct ProbeCLITests {
    @Test func jsonHasTheContractKeys() async throws {
        let result = try await Run.vtrim(["probe", "--json", TestPaths.fixture("rot90.mp4")])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let objects = result.jsonLines
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        for key in ["path", "duration", "start_time", "size", "format", "bit_rate", "video", "audio", "warnings"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        let video = try #require(object["video"] as? [String: Any])
        for key in ["codec", "profile", "width", "height", "sar", "display_width", "display_height", "rotation",
                    "mirrored", "display_matrix", "fps", "has_b_frames"] {
            #expect(video[key] != nil, "missing video.\(key)")
        }
        #expect(video["rotation"] as? Int == 90)
        #expect(video["mirrored"] as? Bool == false)
        #expect(video["width"] as? Int == 240)
        #expect(video["display_width"] as? Int == 320)
        #expect((video["display_matrix"] as? [Int])?.count == 9)
        #expect(object["duration"] as? Double == 2.0)
        #expect(object["path"] as? String == TestPaths.fixture("rot90.mp4"))
        let audio = try #require((object["audio"] as? [[String: Any]])?.first)
        for key in ["codec", "sample_rate", "channels", "duration"] { #expect(audio[key] != nil, "missing audio.\(key)") }
        #expect((object["warnings"] as? [Any])?.isEmpty == true)
    }

    @Test func audioOnlyHasNullVideo() async throws {
        let result = try await Run.vtrim(["probe", "--json", TestPaths.fixture("audio-only.m4a")])
        #expect(result.status == 0)
        let object = try #require(result.jsonLines.first)
        #expect(object["video"] is NSNull)
        #expect((object["audio"] as? [Any])?.count == 1)
    }

    /// One bad input among good ones: each bad one gets one stderr line naming it, JSON error objects
    /// in input order, the good ones still probed, exit 1.
    @Test func badInputsAmongGoodOnes() async throws {
        let inputs = ["h264-aac.mp4", "empty.mp4", "no-such.mp4", "not-video.mp4", "hevc.mp4"].map(TestPaths.fixture)
        let result = try await Run.vtrim(["probe", "--json"] + inputs)
        #expect(result.status == 1)
        let objects = result.jsonLines
        #expect(objects.map { $0["path"] as? String } == inputs)
        let codes = objects.map { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == [nil, "not_media", "not_found", "not_media", nil])
        for object in objects {
            #expect(object["warnings"] is [Any])
        }
        let lines = result.stderrLines.dropLast()
        #expect(lines.count == 3)
        #expect(result.stderrLines.last?.hasPrefix("vtrim: 2 ok, 3 failed, 0 skipped in ") == true)
        for (line, name) in zip(lines, ["empty.mp4", "no-such.mp4", "not-video.mp4"]) {
            #expect(line.hasPrefix("vtrim: error: ") && line.contains(name), "\(line)")
        }
    }

    @Test func humanOutputIsAShortBlock() async throws {
        let result = try await Run.vtrim(["probe", TestPaths.fixture("transpose.mp4")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("h264 (High) 240x320"))
        #expect(result.stdout.contains("shown 320x240, rotated 90° clockwise, mirrored"))
        #expect(result.stdout.contains("duration  2.000 s"))
        #expect(result.stdoutLines.count == 6)
    }

    @Test func folderWithoutRecursiveIsUsageError() async throws {
        let result = try await Run.vtrim(["probe", TestPaths.packageRoot + "/fixtures"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("-r/--recursive"))
        #expect(result.stdout.isEmpty)
    }

    @Test func recursiveFolderIsSortedAndOnlyMedia() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.file("sub"), withIntermediateDirectories: true)
        for (source, target) in [("hevc.mp4", "b.mp4"), ("rot90.mp4", "sub/a.MOV"), ("audio-only.m4a", "a.m4a")] {
            try FileManager.default.copyItem(atPath: TestPaths.fixture(source), toPath: folder.file(target))
        }
        try "notes".write(toFile: folder.file("notes.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: folder.file(".hidden.mp4"))
        let result = try await Run.vtrim(["probe", "-r", "--json", folder.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.map { $0["path"] as? String } == ["a.m4a", "b.mp4", "sub/a.MOV"].map(folder.file))
    }

    @Test func strictTurnsWarningsIntoFailures() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A WebM without a container duration (cut from a live recording) warns "duration_estimated".
        let live = folder.file("live.webm")
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("vp9-opus.webm"), "-c", "copy",
                                           "-live", "1", "-f", "webm", live])
        try #require(make.status == 0, "\(make)")
        let relaxed = try await Run.vtrim(["probe", "--json", live])
        #expect(relaxed.status == 0)
        #expect((relaxed.jsonLines.first?["warnings"] as? [[String: Any]])?.first?["code"] as? String == "duration_estimated")
        #expect(relaxed.stderr.hasPrefix("vtrim: warning: \(live): the container states no duration"))
        let strict = try await Run.vtrim(["probe", "--json", "--strict", live])
        #expect(strict.status == 1)
        let error = try #require(strict.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "strict_warning")
    }

    @Test func unreadableFileAsUnprivilegedUser() async throws {
        guard getuid() == 0 else {
            // Not root: permissions apply directly.
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let path = folder.file("locked.mp4")
            try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: path)
            chmod(path, 0)
            let result = try await Run.vtrim(["probe", "--json", path])
            #expect(result.status == 1)
            #expect((result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "unreadable")
            return
        }
        // Root ignores file permissions: drop to nobody with setpriv.
        try #require(TestPaths.toolExists("setpriv"), "setpriv (util-linux) is needed to drop privileges")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        chmod(folder.path, 0o755)
        let path = folder.file("locked.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: path)
        chmod(path, 0o600)
        let result = try await Run.tool("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                              TestPaths.vtrimBinary, "probe", "--json", path])
        #expect(result.status == 1, "\(result)")
        #expect((result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "unreadable")
        #expect(result.stderr == "vtrim: error: \(path): permission denied\n")
    }

    @Test func damagedFileDoesNotFloodStderr() async throws {
        let result = try await Run.vtrim(["probe", "--quiet", TestPaths.fixture("truncated.mp4"), TestPaths.fixture("not-video.mp4")])
        #expect(result.status == 1)
        // One line each: the truncation warning and the error; none of FFmpeg's own.
        #expect(result.stderrLines.count == 2, "\(result)")
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("vtrim: ") })
        #expect(result.stderr.contains("truncated"))
        let verbose = try await Run.vtrim(["probe", "--verbose", TestPaths.fixture("not-video.mp4")])
        #expect(verbose.stderr.contains("moov atom not found"))
    }

    /// A whole file whose container states a wildly wrong duration (a fragmented MP4 claiming 143165 s for
    /// 1 s): the warning names the container's figure, and the duration everyone uses is the measured one.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
    func wildlyWrongDurationIsMeasured() async throws {
        let path = try #require(TestPaths.sharedMedia) + "/androidx-media/sample_fragmented.mp4"
        try #require(FileManager.default.fileExists(atPath: path))
        let result = try await Run.vtrim(["probe", "--json", path])
        #expect(result.status == 0, "\(result)")
        let object = try #require(result.jsonLines.first)
        let duration = try #require(object["duration"] as? Double)
        #expect(abs(duration - 1.001) < 0.05, "\(object)")
        #expect(object["readable_duration"] as? Double == duration)
        #expect(object["duration_source"] as? String == "streams")
        let warnings = object["warnings"] as? [[String: Any]] ?? []
        #expect(warnings.contains { $0["code"] as? String == "duration_suspect" && ($0["message"] as? String ?? "").contains("143165") },
                "\(warnings)")
        // The strip spans that second: every cell is a frame.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let thumbs = try await Run.vtrim(["thumbs", "--json", "--count", "4", "--height", "90", "-o", folder.file("s.png"), path])
        #expect(thumbs.status == 0, "\(thumbs)")
        let strip = try #require(thumbs.jsonLines.first)
        #expect((strip["end"] as? Double ?? 0) < 1.1, "\(strip)")
        #expect(!((strip["warnings"] as? [[String: Any]]) ?? []).contains { $0["code"] as? String == "sample_failed" })
    }
}

/// Probing reads a file's ends, not all of it: a finished Matroska file's tail is entered through its cues (FFmpeg's
/// Matroska demuxer resyncs a byte seek from near the file's start, and read a 10-minute 1080p file whole).
struct ProbeReadsTests {
    /// Not under the sanitizers: LeakSanitizer refuses to run under ptrace.
    @Test(.enabled(if: TestPaths.toolExists("strace") && !TestPaths.sanitized, "strace is absent, or a sanitized build"))
    func probingAFinishedMatroskaFileReadsItsEndsOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("long.mkv")
        // 40 s of lossless 320x240 in ~1 s clusters: tens of MB, with cues at the end.
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi",
                                           "-i", "sine=sample_rate=48000", "-t", "40", "-c:v", "libx264", "-preset", "ultrafast",
                                           "-qp", "0", "-c:a", "aac", path])
        try #require(make.status == 0, "\(make.stderr)")
        let size = try #require((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue)
        let log = folder.file("reads.log")
        // -y names each descriptor's file: only the reads of the probed file count.
        let run = try await Run.tool("strace", ["-f", "-y", "-e", "trace=read,pread64", "-o", log, TestPaths.vtrimBinary, "probe", "--json", path])
        #expect(run.status == 0, "\(run)")
        let object = try #require(run.jsonLines.first)
        #expect(abs((object["readable_duration"] as? Double ?? 0) - 40) < 0.1, "\(object)")
        // Sum what every read of the file returned.
        let bytesRead = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").reduce(0) { total, line in
            guard line.contains("read("), line.contains("<\(path)>"), let equals = line.range(of: " = ", options: .backwards) else { return total }
            return total + max(0, Int(line[equals.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
        // Its last 10 s and its header: under half of it (the byte seek read all of it).
        #expect(bytesRead < size / 2, "read \(bytesRead) of \(size) bytes")
    }
}
