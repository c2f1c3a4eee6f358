import Foundation
import TestSupport
import Testing

/// vtrim's concurrent paths, each run once on a small clip: what `scripts/thread-sanitizer` runs against a
/// ThreadSanitizer build (a race makes it exit 66, which no test accepts). Smart cuts encode both edges on threads
/// of their own, and a join the next range's while it writes this one; thumbnails decode runs of samples on
/// several threads; batches run inputs on several; crafted timing used to abort on an overlapping access.
@Suite struct ConcurrencyTests {
    /// 8 s of 320×180 H.264 (B-frames, 1 s GOPs) with AAC.
    static func clip(_ folder: TemporaryFolder) async throws -> String {
        let path = folder.file("clip.mp4")
        try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi",
                                             "-i", "sine=sample_rate=48000", "-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2",
                                             "-g", "30", "-c:a", "aac", path]).status == 0)
        return path
    }

    static func expectClean(_ result: RunResult, _ what: String) {
        #expect(result.status == 0, "\(what): \(result)")
        #expect(!result.stderr.contains("ThreadSanitizer") && !result.stderr.contains("Simultaneous accesses"), "\(what): \(result.stderr)")
    }

    @Test func smartCutAndJoinEncodeEdgesConcurrently() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clip(folder)
        Self.expectClean(try await Run.vtrim(["cut", input, "--start", "0.5", "--end", "6.2", "--mode", "smart", "-o", folder.file("s.mp4")]), "smart cut")
        Self.expectClean(try await Run.vtrim(["cut", input, "--keep", "0.2..2.1", "--keep", "2.5..4.6", "--keep", "5..7.5", "--mode", "smart",
                                        "--audio-seams", "exact", "-o", folder.file("j.mp4")]), "smart join")
        Self.expectClean(try await Run.vtrim(["cut", input, "--keep", "0.2..2.1", "--keep", "2.5..4.6", "--mode", "exact", "-o", folder.file("e.mkv")]),
                         "exact join")
    }

    /// The frame-spliced path (VP9 into WebM) and MPEG-2's (its copied GOPs closed, its seams' decode delays chosen) on
    /// their edge threads: 3-range smart joins.
    @Test func frameCodecJoinsEncodeEdgesConcurrently() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sources = [("vp9.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"]),
                       ("mpeg2.ts", ["-c:v", "mpeg2video", "-bf", "2", "-b:v", "1M", "-maxrate", "2M", "-bufsize", "1M", "-c:a", "mp2"])]
        for (name, encoding) in sources {
            let input = folder.file(name)
            try #require(try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-f", "lavfi", "-i",
                                                 "sine=sample_rate=48000", "-t", "4", "-g", "15"] + encoding + [input]).status == 0)
            Self.expectClean(try await Run.vtrim(["cut", input, "--keep", "0.3..1.3", "--keep", "1.7..2.6", "--keep", "2.95..3.9", "--mode", "smart",
                                            "-o", folder.file("join-" + name)]), "smart join of \(name)")
        }
    }

    @Test func samplersAndBatchesRunOnSeveralThreads() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clip(folder)
        try FileManager.default.copyItem(atPath: input, toPath: folder.file("copy.mp4"))
        Self.expectClean(try await Run.vtrim(["thumbs", input, "--every", "0.25", "--height", "60", "-o", folder.file("t.png")]), "thumbs")
        Self.expectClean(try await Run.vtrim(["thumbs", "-j", "2", "--storyboard", "jellyfin", "--every", "1", "--width", "160", input,
                                        folder.file("copy.mp4")]), "storyboards")
        Self.expectClean(try await Run.vtrim(["cut", "-j", "2", "--start", "1", "--end", "3", "--mode", "smart", "--output-dir", folder.file("out"),
                                        input, folder.file("copy.mp4")]), "batch of smart cuts")
    }

    /// A crafted `stts` (first delta 1000 ticks) through the smart and exact writers.
    @Test func craftedTimingThroughBothWriters() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("crafted.mp4")
        try Data(MP4Craft.settingField(of: TestPaths.fixture("h264-aac.mp4"), box: "stts", offset: 12, to: 1000)).write(to: URL(fileURLWithPath: path))
        for mode in ["smart", "exact"] {
            let result = try await Run.vtrim(["cut", path, "--start", "0.5", "--end", "2.5", "--mode", mode, "-o", folder.file("\(mode).mp4")])
            #expect(result.status == 0 || result.status == 1, "\(mode): \(result)")
            #expect(!result.stderr.contains("ThreadSanitizer") && !result.stderr.contains("Simultaneous accesses"), "\(mode): \(result.stderr)")
        }
    }

    /// Proposals: two inputs at once (-j 2), each decoding its audio and its video (frame threads) in one pass, then the
    /// one-step cut, which proposes and joins with its edges on their threads.
    @Test func proposalsRunOnSeveralThreads() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try await Self.clip(folder)
        let other = folder.file("other.mp4")
        try FileManager.default.copyItem(atPath: input, toPath: other)
        Self.expectClean(try await Run.vtrim(["propose", "-j", "2", "--silence", "--black", "--scenes", input, other]), "proposals")
        Self.expectClean(try await Run.vtrim(["cut", input, "--propose", "scenes,silence", "--join", "--mode", "smart", "-o", folder.file("p.mp4")]),
                         "proposed join")
    }

    /// A split proposal of two inputs at once: each scene pass keeps the pictures after its cuts (no keyframe there, no
    /// B-frames) and hands them to the heads, which encode them on threads of their own.
    @Test func keptPicturesGoToTheHeadsThreads() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let shots = try await TestMedia.shots(keyframesAtCuts: false, bFrames: false)
        let (a, b) = (folder.file("a.mp4"), folder.file("b.mp4"))
        try FileManager.default.copyItem(atPath: shots, toPath: a)
        try FileManager.default.copyItem(atPath: shots, toPath: b)
        let result = try await Run.vtrim(["cut", a, b, "--propose", "scenes", "--output-dir", folder.path, "-j", "2", "--json"])
        Self.expectClean(result, "split proposals")
        #expect(result.jsonLines.count == 12, "\(result)")
    }
}
