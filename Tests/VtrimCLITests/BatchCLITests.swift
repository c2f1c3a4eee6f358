import Foundation
import MediaEngine
import TestSupport
import Testing

/// Batch runs over folders: walking, naming, collisions, resumable runs, shards, fail-fast, reports,
/// interrupts and progress.
struct BatchCLITests {
    /// A small tree: good clips (one rotated, one in a subfolder), a broken file, non-media files,
    /// a hidden file and a symlink loop.
    static func makeTree() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("vtrim-batch")
        let files = [("h264-aac.mp4", "in/a.mp4"), ("rot90.mp4", "in/b.mp4"), ("hevc.mp4", "in/sub/c.mp4"),
                     ("not-video.mp4", "in/sub/d-broken.mp4"), ("h264-aac.mkv", "in/e.mkv"), ("hevc.mp4", "in/.hidden.mp4")]
        for (fixture, target) in files {
            let path = folder.file(target)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestPaths.fixture(fixture), toPath: path)
        }
        try "notes".write(toFile: folder.file("in/readme.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.file("in/sub/loop"), withDestinationPath: folder.file("in"))
        return folder
    }

    static let goodOrder = ["in/a.mp4", "in/b.mp4", "in/e.mkv", "in/sub/c.mp4", "in/sub/d-broken.mp4"]

    @Test func walksSortedSkipsHiddenAndLoops() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let result = try await Run.vtrim(["probe", "--json", "-r", tree.file("in")])
        #expect(result.status == 1)
        #expect(result.jsonLines.map { $0["path"] as? String } == Self.goodOrder.map(tree.file))
        let codes = result.jsonLines.map { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == [nil, nil, nil, nil, "not_media"])
        #expect(result.stderr.contains("vtrim: 4 ok, 1 failed, 0 skipped in "))
    }

    @Test func includeAndExcludeGlobs() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let only = try await Run.vtrim(["probe", "--json", "-r", tree.file("in"), "--include", "*.mkv", "--include", "*.txt"])
        #expect(only.jsonLines.map { $0["path"] as? String } == ["in/e.mkv", "in/readme.txt"].map(tree.file))
        let without = try await Run.vtrim(["probe", "--json", "-r", tree.file("in"), "--exclude", "sub/*"])
        #expect(without.status == 0)
        #expect(without.jsonLines.map { $0["path"] as? String } == ["in/a.mp4", "in/b.mp4", "in/e.mkv"].map(tree.file))
    }

    @Test func outputFolderMirrorsTheTreeAndTemplatesName() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let result = try await Run.vtrim(["thumbs", "--json", "-r", tree.file("in"), "--exclude", "*broken*", "--count", "2",
                                    "--output-dir", tree.file("out"), "--name", "{stem}-{index}.png", "-j", "2"])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.map { $0["output"] as? String } ==
                ["out/a-1.png", "out/b-2.png", "out/e-3.png", "out/sub/c-4.png"].map(tree.file))
        for object in result.jsonLines {
            #expect(FileManager.default.fileExists(atPath: object["output"] as? String ?? ""))
        }
    }

    @Test func collidingOutputsAreRefusedBeforeAnyWork() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let result = try await Run.vtrim(["thumbs", "-r", tree.file("in"), "--output-dir", tree.file("out"), "--name", "strip.png"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("would both write"))
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: tree.file("out/strip.png")))
    }

    /// --frames-dir mirrors the walked tree like --output-dir, so same-named files in different
    /// subfolders keep their own cells; two inputs whose cells would share names are refused up front.
    @Test func framesFolderMirrorsTheTreeAndRefusesSharedNames() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: tree.file("in/sub/a.mp4"))
        let walked = try await Run.vtrim(["thumbs", "-r", tree.file("in"), "--exclude", "*broken*", "--count", "2", "--height", "32",
                                    "--output-dir", tree.file("out"), "--frames-dir", tree.file("frames")])
        #expect(walked.status == 0, "\(walked)")
        for name in ["frames/a.thumb-000.png", "frames/a.thumb-001.png", "frames/sub/a.thumb-000.png", "frames/sub/c.thumb-001.png"] {
            #expect(FileManager.default.fileExists(atPath: tree.file(name)), "\(name)")
        }
        let direct = try await Run.vtrim(["thumbs", tree.file("in/a.mp4"), tree.file("in/sub/a.mp4"), "--count", "2", "--height", "32",
                                    "--output-dir", tree.file("out2"), "--name", "{index}.png", "--frames-dir", tree.file("frames2"),
                                    "--overwrite"])
        #expect(direct.status == 1)
        #expect(direct.stderr.contains("would both write \(tree.file("frames2/a.thumb-*.png"))"), "\(direct.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.file("frames2")).isEmpty)
    }

    @Test func skipExistingResumesAndIgnoresStaleTemporaries() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let arguments = ["thumbs", "--json", "-r", tree.file("in"), "--exclude", "*broken*", "--count", "2", "--output-dir", tree.file("out")]
        // A temporary file a killed run left (its process long gone) must not count as an output.
        try FileManager.default.createDirectory(atPath: tree.file("out"), withIntermediateDirectories: true)
        let stale = tree.file("out/.a.thumbs.vtrim-tmp-\(TestPaths.hostName)+2147480000+1.png")
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale))
        let first = try await Run.vtrim(arguments + ["--skip-existing"])
        #expect(first.status == 0, "\(first)")
        #expect(first.jsonLines.allSatisfy { $0["skipped"] == nil })
        #expect(!FileManager.default.fileExists(atPath: stale))
        let again = try await Run.vtrim(arguments + ["--skip-existing"])
        #expect(again.status == 0)
        #expect(again.jsonLines.allSatisfy { $0["skipped"] as? Bool == true && $0["reason"] != nil })
        #expect(again.stderr.contains("0 ok, 0 failed, 4 skipped"))
    }

    /// Two machines sharing an output folder (`--shard` over NFS): a temporary file is cleaned only when
    /// it is provably dead — this host, a pid that is gone, the same final name and extension.
    @Test func otherHostsTemporariesAreNeverTouched() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        try FileManager.default.createDirectory(atPath: tree.file("out"), withIntermediateDirectories: true)
        let host = TestPaths.hostName
        let cases: [(name: String, removed: Bool)] = [
            (".a.thumbs.vtrim-tmp-\(host)+2147480000+7.png", true),               // this host, dead pid
            (".a.thumbs.vtrim-tmp-other-\(host)+2147480000+7.png", false),        // another host's run in progress
            (".a.thumbs.vtrim-tmp-\(host)+1+7.png", false),                      // this host, a live process
            (".a.thumbs.vtrim-tmp-\(host)+2147480000+7.jpg", false),             // another output's extension
            (".a.thumbs.vtrim-tmp-2147480000-7.png", false),                     // no host: not provably dead
        ]
        for item in cases { try Data("half".utf8).write(to: URL(fileURLWithPath: tree.file("out/" + item.name))) }
        let run = try await Run.vtrim(["thumbs", tree.file("in/a.mp4"), "--count", "2", "--output-dir", tree.file("out")])
        #expect(run.status == 0, "\(run)")
        for item in cases {
            #expect(FileManager.default.fileExists(atPath: tree.file("out/" + item.name)) != item.removed, "\(item.name)")
        }
    }

    @Test func shardsTogetherCoverTheRunExactlyOnce() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let all = try await Run.vtrim(["probe", "--json", "-r", tree.file("in")]).jsonLines.compactMap { $0["path"] as? String }
        var union: [String] = []
        for shard in 1...3 {
            union += try await Run.vtrim(["probe", "--json", "-r", tree.file("in"), "--shard", "\(shard)/3"]).jsonLines.compactMap { $0["path"] as? String }
        }
        #expect(union.sorted() == all.sorted())
        #expect(Set(union).count == union.count)
        #expect(try await Run.vtrim(["probe", "-r", tree.file("in"), "--shard", "4/3"]).status == 64)
    }

    @Test func failFastStopsStartingNewInputs() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let inputs = [tree.file("in/sub/d-broken.mp4"), tree.file("in/a.mp4"), tree.file("in/b.mp4")]
        let result = try await Run.vtrim(["probe", "--json", "-j", "1", "--fail-fast"] + inputs)
        #expect(result.status == 1)
        let objects = result.jsonLines
        #expect(objects.map { $0["path"] as? String } == inputs)
        #expect((objects[0]["error"] as? [String: Any])?["code"] as? String == "not_media")
        #expect(objects[1]["skipped"] as? Bool == true && objects[2]["skipped"] as? Bool == true)
    }

    @Test func oneBrokenFileAmongGoodOnesInParallel() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let result = try await Run.vtrim(["cut", "--json", "-r", tree.file("in"), "--start", "0.5", "--end", "end-0.5",
                                    "--output-dir", tree.file("out"), "-j", "3"])
        #expect(result.status == 1)
        let objects = result.jsonLines
        #expect(objects.map { $0["path"] as? String } == Self.goodOrder.map(tree.file))
        #expect(objects.filter { $0["error"] != nil }.count == 1)
        #expect(FileManager.default.fileExists(atPath: tree.file("out/sub/c.cut.mp4")))
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: tree.file("out/sub"))) ?? []).contains { $0.contains("vtrim-tmp") })
    }

    @Test func cutListWritesOneOutputPerRow() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let list = folder.file("cuts.csv")
        try "0,1,intro\n1.5,2.5,\"middle, part\"\n3,,\n".write(toFile: list, atomically: true, encoding: .utf8)
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("h264-aac.mp4"), "--list", list, "--output-dir", folder.path])
        #expect(result.status == 0, "\(result)")
        let objects = result.jsonLines
        #expect(objects.map { $0["output"] as? String } ==
                ["h264-aac.intro.cut.mp4", "h264-aac.middle, part.cut.mp4", "h264-aac.3.cut.mp4"].map(folder.file))
        #expect(objects.map { ($0["effective"] as? [String: Any])?["end"] as? Double } == [1, 2.5, 4])
        #expect((objects[1]["segment"] as? [String: Any])?["label"] as? String == "middle, part")
        let bad = folder.file("bad.csv")
        try "zero,1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try await Run.vtrim(["cut", TestPaths.fixture("h264-aac.mp4"), "--list", bad]).status == 64)
    }

    /// SIGINT during a batch: no new job starts, the running one stops, nothing half-written stays,
    /// exit 130 with the summary; a re-run with --skip-existing completes the rest.
    @Test func interruptedBatchLeavesNoPartialFilesAndResumes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for index in 0..<6 {
            try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: folder.file("in/clip\(index).mp4"),
                                             createFolders: true)
        }
        let arguments = ["cut", "--json", "-r", folder.file("in"), "--start", "0", "--end", "end", "--mode", "exact",
                         "--preset", "veryslow", "--output-dir", folder.file("out"), "-j", "1", "--skip-existing"]
        let child = try await Child(TestPaths.vtrimBinary, arguments)
        // Let at least one exact cut finish, then interrupt the next one midway (its temporary file growing).
        let finishedOne = await Readiness.wait(for: child) {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.file("out"))) ?? [])
                .contains { $0.hasSuffix(".cut.mp4") && !$0.hasPrefix(".") }
        }
        #expect(finishedOne)
        #expect(await Readiness.wait(for: child) { (Readiness.growingFile(in: folder.file("out")) ?? 0) > 0 })
        child.signal(SIGINT)
        let result = await child.result()
        let stderr = result.stderr
        #expect(result.status == 130, "\(stderr)")
        #expect(stderr.contains("(interrupted)"))
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.file("out"))
        #expect(!written.contains { $0.contains("vtrim-tmp") }, "\(written)")
        #expect(written.count < 6)
        for name in written {
            #expect(try await MediaFacts.decodeErrors(folder.file("out/" + name)).isEmpty, "\(name)")
        }
        let rerun = try await Run.vtrim(arguments)
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.jsonLines.filter { $0["skipped"] as? Bool == true }.count == written.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).count == 6)
    }

    @Test func progressLineOnlyOnATerminal() async throws {
        let tree = try Self.makeTree()
        defer { tree.remove() }
        let command = "\(TestPaths.vtrimBinary) probe -r \(tree.file("in")) > /dev/null"
        // `script` gives the command a pseudo-terminal; what it wrote there comes back on stdout.
        let terminal = try await Run.tool("script", ["-q", "-e", "-c", command, "/dev/null"])
        #expect(terminal.stdout.contains("\r\u{1B}[K[0/5] 0%") || terminal.stdout.contains("\r\u{1B}[K["), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("vtrim: 4 ok, 1 failed"))
        let piped = try await Run.vtrim(["probe", "-r", tree.file("in")])
        #expect(!piped.stderr.contains("\r"))
        let quiet = try await Run.tool("script", ["-q", "-e", "-c", command.replacingOccurrences(of: "probe -r", with: "probe --quiet -r"), "/dev/null"])
        #expect(!quiet.stdout.contains("\u{1B}[K"))
        #expect(!quiet.stdout.contains("ok,"))
    }

    @Test func fromTheEndSyntaxOverManyFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // "The last 1 s of every file": each file's own end.
        let result = try await Run.vtrim(["cut", "--json", TestPaths.fixture("h264-aac.mp4"), TestPaths.fixture("hevc.mp4"),
                                    "--start", "end-1", "--end", "end", "--output-dir", folder.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.jsonLines.map { ($0["effective"] as? [String: Any])?["start"] as? Double } == [3, 1])
    }
}

extension FileManager {
    func copyItem(atPath source: String, toPath target: String, createFolders: Bool) throws {
        if createFolders {
            try createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        try copyItem(atPath: source, toPath: target)
    }
}
