import Foundation
import MediaEngine
import TestSupport
import Testing

/// Faults a video tool meets in the field: interrupted and killed runs, full disks, read-only and
/// missing folders, odd names, inputs that change while read, FIFOs, absurd picture sizes.
@Suite(.serialized)
struct HardeningTests {
    /// A 720p clip long enough to interrupt an exact cut or a dense strip midway.
    static func longClip(_ folder: TemporaryFolder) async throws -> String {
        let path = folder.file("long.mp4")
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi",
                                           "-i", "sine=sample_rate=48000", "-t", "12", "-c:v", "libx264", "-preset", "ultrafast",
                                           "-g", "60", "-c:a", "aac", path])
        try #require(make.status == 0, "\(make.stderr)")
        return path
    }

    static func temporaries(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(".vtrim-tmp-") }
    }

    /// Starts vtrim, waits until it is under way (`cpuSeconds` of CPU, and a temporary output growing in
    /// `growing` when given), sends `signal`, returns exit status and stderr.
    static func interrupt(_ arguments: [String], cpuSeconds: Double, growing: String? = nil, signal: Int32) async throws -> (status: Int32, stderr: String) {
        let child = try await Child(TestPaths.vtrimBinary, arguments)
        let underWay = await Readiness.wait(for: child) {
            Readiness.cpuSeconds(child.pid) >= cpuSeconds && (growing.map { (Readiness.growingFile(in: $0) ?? 0) > 0 } ?? true)
        }
        #expect(underWay, "vtrim \(arguments.prefix(2).joined(separator: " ")) ended or stalled before it was under way")
        child.signal(signal)
        let result = await child.result()
        return (result.signaled ? -result.status : result.status, result.stderr)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func interruptedExactCutLeavesNothing(_ signal: Int32, _ status: Int32) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.longClip(folder)
        let result = try await Self.interrupt(["cut", input, "--start", "1", "--end", "11", "--mode", "exact", "--preset", "slow",
                                         "-o", folder.file("out.mp4")], cpuSeconds: 0.5, growing: folder.path, signal: signal)
        #expect(result.status == status, "\(result.stderr)")
        #expect(Self.temporaries(in: folder.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4")))
    }

    @Test func interruptedThumbsLeavesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.longClip(folder)
        let result = try await Self.interrupt(["thumbs", input, "--every", "0.04", "--columns", "30", "--height", "200",
                                         "--frames-dir", folder.file("frames"), "-o", folder.file("s.png")], cpuSeconds: 0.5, signal: SIGINT)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(Self.temporaries(in: folder.path).isEmpty)
        #expect(Self.temporaries(in: folder.file("frames")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.file("s.png")))
    }

    /// SIGKILL cannot be caught: at most a recognisable temporary file stays, and the next run removes it.
    @Test func killedRunLeavesAMarkedTemporaryTheNextRunCleans() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.longClip(folder)
        let arguments = ["cut", input, "--start", "1", "--end", "11", "--mode", "exact", "--preset", "slow", "-o", folder.file("out.mp4")]
        let killed = try await Self.interrupt(arguments, cpuSeconds: 0.5, growing: folder.path, signal: SIGKILL)
        #expect(killed.status == -SIGKILL)
        let left = Self.temporaries(in: folder.path)
        #expect(left.count <= 1)
        #expect(left.allSatisfy { $0.hasPrefix(".out.vtrim-tmp-") && $0.hasSuffix(".mp4") })
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4")))
        let rerun = try await Run.vtrim(["cut", input, "--start", "1", "--end", "2", "-o", folder.file("out.mp4")])
        #expect(rerun.status == 0, "\(rerun)")
        #expect(Self.temporaries(in: folder.path).isEmpty)
    }

    /// A full disk (simulated with `ulimit -f`): a clean write error, nothing half-written; SIGXFSZ is
    /// ignored so the write fails instead of killing vtrim.
    @Test(arguments: ["cut", "thumbs"])
    func fullDiskIsAWriteError(_ command: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file(command == "cut" ? "out.mp4" : "out.png")
        let arguments = command == "cut"
            ? "cut '\(TestPaths.fixture("h264-aac.mp4"))' --start 0 --end 4 --json -o '\(output)'"
            : "thumbs '\(TestPaths.fixture("h264-aac.mp4"))' --count 40 --height 240 --json -o '\(output)'"
        let result = try await Run.tool("bash", ["-c", "ulimit -f 8; exec '\(TestPaths.vtrimBinary)' \(arguments)"])
        #expect(result.status == 1, "\(result)")
        #expect((result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "write_failed")
        #expect(result.stderrLines.filter { $0.hasPrefix("vtrim: error:") }.count == 1)
        #expect(folder.entries().isEmpty, "\(folder.entries())")
    }

    @Test func readOnlyAndMissingFolders() async throws {
        try #require(getuid() != 0 || TestPaths.toolExists("setpriv"), "setpriv is needed to drop privileges")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        chmod(folder.path, 0o755)
        let input = folder.file("in.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: input)
        chmod(input, 0o644)
        let unprivileged = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
        // The folder belongs to root: nobody may not write into it.
        let readOnly = try await Run.tool(unprivileged.first ?? TestPaths.vtrimBinary,
                                    Array(unprivileged.dropFirst()) + (unprivileged.isEmpty ? [] : [TestPaths.vtrimBinary])
                                        + ["cut", "--json", input, "--start", "0", "--end", "1"])
        #expect(readOnly.status == 1, "\(readOnly)")
        #expect((readOnly.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "write_failed")
        #expect(folder.entries() == ["in.mp4"])
        let missing = try await Run.vtrim(["thumbs", "--json", input, "-o", folder.file("no/such/folder/x.png")])
        #expect(missing.status == 1)
        let error = try #require(missing.jsonLines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "write_failed")
        #expect((error["message"] as? String)?.contains("does not exist") == true)
    }

    @Test func theInputIsNeverOverwrittenWhateverItsSpelling() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.file("dir"), withIntermediateDirectories: true)
        let input = folder.file("dir/clip.mp4")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("hevc.mp4"), toPath: input)
        try FileManager.default.createSymbolicLink(atPath: folder.file("alias.mp4"), withDestinationPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        for (cwd, output) in [(folder.file("dir"), "./clip.mp4"), (folder.file("dir"), "../dir/clip.mp4"), (folder.path, "alias.mp4"),
                              (folder.path, "dir//clip.mp4")] {
            for mode in ["copy", "exact"] {
                let result = try await Run.vtrim(["cut", "--json", input, "--start", "0", "--end", "1", "--mode", mode, "-o", output, "--overwrite"], in: cwd)
                #expect(result.status == 1, "\(output)")
                #expect((result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String == "output_is_input")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }

    @Test func namesWithSpacesUnicodeAndALeadingDash() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for name in ["my clip.mp4", "ünïcödé ✓.mp4", "-dash.mp4"] {
            try FileManager.default.copyItem(atPath: TestPaths.fixture("rot90.mp4"), toPath: folder.file(name))
        }
        let result = try await Run.vtrim(["thumbs", "--json", "--count", "2", "--", "my clip.mp4", "ünïcödé ✓.mp4", "-dash.mp4"], in: folder.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.map { $0["output"] as? String } == ["my clip.thumbs.png", "ünïcödé ✓.thumbs.png", "-dash.thumbs.png"])
        let cut = try await Run.vtrim(["cut", "--json", "--start", "0.5", "--end", "1.5", "--", "-dash.mp4", "ünïcödé ✓.mp4"], in: folder.path)
        #expect(cut.status == 0, "\(cut)")
        #expect(FileManager.default.fileExists(atPath: folder.file("ünïcödé ✓.cut.mp4")))
        #expect(FileManager.default.fileExists(atPath: folder.file("-dash.cut.mp4")))
    }

    @Test func fifoIsRefusedWithoutWaiting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fifo = folder.file("pipe.mp4")
        try #require(mkfifo(fifo, 0o644) == 0)
        for command in [["probe"], ["thumbs"], ["cut", "--start", "0", "--end", "1"]] {
            let result = try await Run.vtrim(command + ["--json", fifo])
            #expect(result.status == 1)
            let error = try #require(result.jsonLines.first?["error"] as? [String: Any])
            #expect(error["code"] as? String == "unreadable")
            #expect((error["message"] as? String)?.contains("FIFO") == true)
        }
    }

    /// A file cut short or grown while vtrim reads it: a result or a clean error, never a crash.
    @Test func inputShrinkingWhileRead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.longClip(folder)
        let size = try MediaFacts.fileSize(input)
        let child = try await Child(TestPaths.vtrimBinary, ["thumbs", input, "--every", "0.1", "--columns", "20", "-o", folder.file("s.png")])
        // Shrink the input once vtrim is reading it.
        await Readiness.wait(for: child) { Readiness.cpuSeconds(child.pid) >= 0.1 }
        truncate(input, off_t(size / 3))
        let result = await child.result()
        let stderr = result.stderr
        #expect(!result.signaled)
        #expect([0, 1].contains(result.status))
        #expect(stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("vtrim: ") }, "\(stderr)")
        #expect(Self.temporaries(in: folder.path).isEmpty)
    }

    /// A picture header claiming 16384x16384: refused before decoding, with bounded memory.
    @Test(.enabled(if: !TestPaths.sanitized, "memory figures of a sanitized build"))
    func hugePictureIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let small = folder.file("small.jpg")
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=gray:size=16x16", "-frames:v", "1", small])
        try #require(make.status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: small)))
        // SOF0 (FF C0): length(2) precision(1) height(2) width(2).
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0x40; bytes[sof + 6] = 0x00
        bytes[sof + 7] = 0x40; bytes[sof + 8] = 0x00
        let huge = folder.file("huge.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: huge))
        let result = try await Run.tool("/usr/bin/time", ["-f", "%M", TestPaths.vtrimBinary, "thumbs", "--json", huge, "-o", folder.file("h.png")])
        #expect(result.status == 1, "\(result)")
        let code = (result.jsonLines.first?["error"] as? [String: Any])?["code"] as? String
        #expect(code == "too_large", "\(result)")
        let peakKiB = Int(result.stderrLines.last ?? "") ?? Int.max
        #expect(peakKiB < 300_000, "peak RSS \(peakKiB) KiB")
    }

    /// Memory stays flat over a long batch: 200 files peak no higher than 20 (within 25 %).
    @Test(.enabled(if: !TestPaths.sanitized, "memory figures of a sanitized build"))
    func rssFlatOverA200FileBatch() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for count in [20, 200] {
            let batch = folder.file("b\(count)")
            try FileManager.default.createDirectory(atPath: batch, withIntermediateDirectories: true)
            for index in 0..<count {
                let source = ["h264-aac.mp4", "rot90.mp4", "hevc.mp4", "vp9-opus.webm"][index % 4]
                // Copies, not hard links: a link changes the fixture's change time, and cuts running beside
                // this test then find their input "changed since the cut was planned".
                try FileManager.default.copyItem(atPath: TestPaths.fixture(source), toPath: "\(batch)/\(index).\((source as NSString).pathExtension)")
            }
        }
        func peak(_ count: Int) async throws -> Int {
            let result = try await Run.tool("/usr/bin/time", ["-f", "%M", TestPaths.vtrimBinary, "thumbs", "-r", folder.file("b\(count)"),
                                                        "--count", "3", "--quiet", "--output-dir", folder.file("o\(count)"), "-j", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            return Int(result.stderrLines.last ?? "") ?? Int.max
        }
        let small = try await peak(20), large = try await peak(200)
        #expect(Double(large) <= Double(small) * 1.25, "peak RSS \(small) KiB for 20 files, \(large) KiB for 200")
    }
}

