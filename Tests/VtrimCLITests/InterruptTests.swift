import Foundation
import TestSupport
import Testing

/// Ctrl-C on CPU-bound work with every core busy (`-j` = cores): vtrim stops within a second, keeps
/// nothing half-written, reports every input (those never started as skipped, "interrupted") and counts
/// them in the summary.
@Suite(.serialized)
struct InterruptTests {
    static let cores = ProcessInfo.processInfo.activeProcessorCount
    /// A normal build stops within 1 s of CPU it can have: the limit grows with the machine's load beyond its cores
    /// (the run's other tests and CI's background builds beside it: 1.24 s once, 2 cores loaded); sanitizers slow
    /// every checkpoint down.
    static var exitLimitSeconds: Double {
        var loads = [Double](repeating: 0, count: 1)
        let loaded = getloadavg(&loads, 1) == 1 ? max(1, loads[0] / Double(max(1, cores))) : 1
        return (TestPaths.sanitized ? 5.0 : 1.0) * min(loaded, 4)
    }

    /// Four 1080p clips of 6 s (x264 ultrafast: cheap to make, costly to decode densely).
    static func clips(_ folder: TemporaryFolder, count: Int = 4) async throws -> [String] {
        let first = folder.file("in/clip0.mp4")
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        let make = try await Run.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi",
                                           "-i", "sine=sample_rate=48000", "-t", "6", "-c:v", "libx264", "-preset", "ultrafast",
                                           "-g", "60", "-c:a", "aac", first])
        try #require(make.status == 0, "\(make.stderr)")
        for index in 1..<count {
            try FileManager.default.copyItem(atPath: first, toPath: folder.file("in/clip\(index).mp4"))
        }
        return (0..<count).map { folder.file("in/clip\($0).mp4") }
    }

    struct Interrupted {
        var status: Int32
        var secondsToExit: Double
        var stdout: RunResult
    }

    /// Starts vtrim, waits until the work is under way — `cpuSeconds` of CPU used, and a temporary output
    /// growing in `growing` when given — sends the signal and times how long vtrim takes to exit.
    static func interrupt(_ arguments: [String], cpuSeconds: Double, growing: String? = nil, signal: Int32 = SIGINT) async throws -> Interrupted {
        let child = try await Child(TestPaths.vtrimBinary, arguments)
        let underWay = await Readiness.wait(for: child) {
            Readiness.cpuSeconds(child.pid) >= cpuSeconds && (growing.map { (Readiness.growingFile(in: $0) ?? 0) > 0 } ?? true)
        }
        #expect(underWay, "vtrim \(arguments.prefix(2).joined(separator: " ")) ended or stalled before it was under way")
        let sent = Date()
        child.signal(signal)
        let result = await child.result()
        return Interrupted(status: result.status, secondsToExit: Date().timeIntervalSince(sent), stdout: result)
    }

    static func leftovers(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.contains("vtrim-tmp") }
    }

    /// Every input has its JSON line: done, failed as interrupted, or skipped as interrupted; the summary
    /// counts the skipped ones.
    static func checkReport(_ run: Interrupted, inputs: [String]) {
        let lines = run.stdout.jsonLines
        #expect(lines.count == inputs.count, "\(run.stdout)")
        var skipped = 0
        for object in lines {
            if object["skipped"] as? Bool == true {
                skipped += 1
                #expect(object["reason"] as? String == "interrupted", "\(object)")
            } else if let error = object["error"] as? [String: Any] {
                #expect(error["code"] as? String == "interrupted", "\(object)")
            }
        }
        #expect(run.stdout.stderr.contains("\(skipped) skipped"), "\(run.stdout.stderr)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func thumbsBatchAtAllCores(_ signal: Int32) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inputs = try await Self.clips(folder, count: 3 * Self.cores)
        // Dense sheets (150 cells each): no input is done when the signal comes.
        let run = try await Self.interrupt(["thumbs", "--json", "-j", String(Self.cores), "--every", "0.04", "--columns", "15",
                                      "--height", "180", "--output-dir", folder.file("out")] + inputs, cpuSeconds: 1.0, signal: signal)
        #expect(run.status == (signal == SIGINT ? 130 : 143), "\(run.stdout)")
        #expect(run.secondsToExit < Self.exitLimitSeconds, "took \(run.secondsToExit) s to exit")
        Self.checkReport(run, inputs: inputs)
        #expect(run.stdout.jsonLines.contains { $0["skipped"] as? Bool == true }, "\(run.stdout)")
        #expect(Self.leftovers(folder.path).isEmpty)
    }

    /// One 1080p input: its samples are split over every core.
    /// Storyboards beside their videos: an interrupted batch leaves no `.trickplay` folder it made empty (they
    /// stayed behind), and the storyboards it finished are whole.
    @Test func storyboardBatchLeavesNoEmptyFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inputs = try await Self.clips(folder, count: 3 * Self.cores)
        let run = try await Self.interrupt(["thumbs", "--json", "-r", "-j", String(Self.cores), "--storyboard", "jellyfin", "--every", "0.1",
                                      "--width", "480", folder.file("in")], cpuSeconds: 1.0)
        #expect(run.status == 130, "\(run.stdout)")
        Self.checkReport(run, inputs: inputs)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("in"))) ?? []
        for name in names where name.hasSuffix(".trickplay") {
            let inside = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("in/\(name)"))) ?? []
            #expect(!inside.isEmpty && inside.allSatisfy { !$0.contains(".tmp-") }, "\(name) holds \(inside)")
        }
        #expect(Self.leftovers(folder.path).isEmpty)
    }

    @Test func singleThumbsInput() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inputs = try await Self.clips(folder, count: 1)
        let run = try await Self.interrupt(["thumbs", "--json", "--every", "0.04", "--columns", "15", "--height", "360", "-o", folder.file("s.png")] + inputs,
                                     cpuSeconds: 1.0)
        #expect(run.status == 130, "\(run.stdout)")
        #expect(run.secondsToExit < Self.exitLimitSeconds, "took \(run.secondsToExit) s to exit")
        Self.checkReport(run, inputs: inputs)
        #expect(!FileManager.default.fileExists(atPath: folder.file("s.png")))
        #expect(Self.leftovers(folder.path).isEmpty)
    }

    @Test(arguments: ["exact", "smart"])
    func cutBatchAtAllCores(mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inputs = try await Self.clips(folder, count: 2 * Self.cores)
        // The default preset, as users run it: 1080p re-encoding keeps every job busy past the signal (smart
        // cuts re-encode only the edges, but a start inside a 2 s GOP is 45 frames of head).
        let run = try await Self.interrupt(["cut", "--json", "-j", String(Self.cores), "--mode", mode,
                                      "--start", "0.5", "--end", "5.5", "--output-dir", folder.file("out")] + inputs,
                                     cpuSeconds: 1.0, growing: folder.file("out"))
        #expect(run.status == 130, "\(run.stdout)")
        #expect(run.secondsToExit < Self.exitLimitSeconds, "took \(run.secondsToExit) s to exit")
        Self.checkReport(run, inputs: inputs)
        #expect(Self.leftovers(folder.path).isEmpty)
        // What was finished is whole; nothing else is there.
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("out"))) ?? []
        let done = run.stdout.jsonLines.filter { $0["output"] != nil && $0["error"] == nil && $0["skipped"] == nil }.count
        #expect(written.count == done, "\(written)")
    }
}
