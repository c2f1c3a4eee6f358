import Foundation
import Glibc
import Synchronization
import Testing

/// What a finished process printed and how it exited.
public struct RunResult: Sendable, CustomStringConvertible {
    /// The exit status, or the signal that ended it (`signaled`).
    public let status: Int32
    public let signaled: Bool
    public let stderr: String
    public let stdoutData: Data
    /// Decoded on use: some tools print megabytes of raw pictures, which are never read as text.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    public init(status: Int32, stderr: String, stdoutData: Data, signaled: Bool = false) {
        self.status = status
        self.signaled = signaled
        self.stderr = stderr
        self.stdoutData = stdoutData
    }

    public var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    public var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Each stdout line parsed as a JSON object.
    public var jsonLines: [[String: Any]] {
        stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    public var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

public enum Run {
    /// Runs the built `vtrim` with `arguments`.
    public static func vtrim(_ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) async throws -> RunResult {
        try await tool(TestPaths.vtrimBinary, arguments, in: directory, environment: environment)
    }

    /// Runs an executable (absolute path or a name on PATH) to its end.
    public static func tool(_ executable: String, _ arguments: [String], in directory: String? = nil,
                            environment: [String: String]? = nil) async throws -> RunResult {
        try await Child(executable, arguments, in: directory, environment: environment).result()
    }
}

/// A process a test started — the one way tests spawn one. Both pipes are read as the output comes (on threads of
/// their own, so a chatty process never blocks on a full pipe), and its end is awaited without holding a thread of
/// Swift's cooperative pool (the server tests in the same run need them). Children run a few at a time
/// (`ProcessSlots`: as many as the machine has cores), so the tests — started all at once — load the machine as
/// one run did before; a child holds its slot until its result is taken, so take it before starting another.
public final class Child {
    /// The program's own process: under VTRIM_TEST_CPU_LOG the one /usr/bin/time started (so a test's signals and
    /// CPU readings reach what it ran, not the wrapper) — time's own until it has forked it (the tests that signal
    /// wait for CPU used first).
    public var pid: Int32 {
        guard wrapped else { return processID }
        let children = (try? String(contentsOfFile: "/proc/\(processID)/task/\(processID)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) } ?? processID
    }
    private let processID: Int32
    private let wrapped: Bool
    private let process: Process
    private let output: Drain
    private let errors: Drain
    private let exit = Exit()

    public init(_ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) async throws {
        // The turn first, then the pipes: hundreds of tests wait for a turn at once, and pipes made before it stayed
        // open while they waited (1,300 descriptors in a full run; every child inherited them, and Foundation's
        // Process.run crashed walking them).
        await ProcessSlots.shared.acquire()
        process = Process()
        // VTRIM_TEST_CPU_LOG=FILE: each child runs under /usr/bin/time, which appends the test's name, the program
        // and its seconds (wall, user, system) to FILE — where a run's CPU goes, for sizing CI's sets. (A child killed by
        // a signal then ends with time's status 128 + n: the one test that kills with SIGKILL fails under the log.)
        var command = [executable] + arguments
        wrapped = ProcessInfo.processInfo.environment["VTRIM_TEST_CPU_LOG"] != nil
        if let log = ProcessInfo.processInfo.environment["VTRIM_TEST_CPU_LOG"] {
            let name = (Test.current?.name ?? "-").replacingOccurrences(of: "%", with: "%%")
            command = ["/usr/bin/time", "-a", "-o", log, "-f", "\(name)\t\((executable as NSString).lastPathComponent)\t%e\t%U\t%S"] + command
        }
        if command[0].hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let outputPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        let exit = exit
        process.terminationHandler = { ended in exit.finish(ended.terminationStatus, signaled: ended.terminationReason == .uncaughtSignal) }
        do {
            try process.run()
        } catch {
            await ProcessSlots.shared.release()
            throw error
        }
        processID = process.processIdentifier
        output = Drain(outputPipe.fileHandleForReading.fileDescriptor)
        errors = Drain(errorPipe.fileHandleForReading.fileDescriptor)
        // The child has its copies; the reading ends are the drains' own duplicates.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        try? outputPipe.fileHandleForReading.close()
        try? errorPipe.fileHandleForReading.close()
    }

    public var isRunning: Bool { exit.status == nil }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the end and everything printed; gives back the slot.
    public func result() async -> RunResult {
        let (status, signaled) = await exit.wait()
        let stdout = await output.data(), stderr = await errors.data()
        await ProcessSlots.shared.release()
        return RunResult(status: status, stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout, signaled: signaled)
    }
}

/// How many children run at once, and who waits for a turn (first come, first served).
actor ProcessSlots {
    static let shared = ProcessSlots(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// A pipe's reading end read to its end on a thread of its own (a duplicate of the descriptor, closed when done).
private final class Drain: Sendable {
    private let state = Mutex<(data: Data?, waiting: [CheckedContinuation<Data, Never>])>((nil, []))

    init(_ descriptor: Int32) {
        let own = dup(descriptor)
        let thread = Thread { [self] in
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while own >= 0 {
                let count = read(own, &buffer, buffer.count)
                if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
            }
            if own >= 0 { close(own) }
            let waiting = state.withLock { state in
                state.data = data
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume(returning: data) }
        }
        thread.start()
    }

    func data() async -> Data {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Data? in
                if state.data == nil { state.waiting.append(continuation) }
                return state.data
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A child's exit status, awaited.
private final class Exit: Sendable {
    private let state = Mutex<(status: (Int32, Bool)?, waiting: [CheckedContinuation<(Int32, Bool), Never>])>((nil, []))

    var status: (Int32, Bool)? { state.withLock { $0.status } }

    func finish(_ status: Int32, signaled: Bool) {
        let waiting = state.withLock { state in
            state.status = (status, signaled)
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume(returning: (status, signaled)) }
    }

    func wait() async -> (Int32, Bool) {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (Int32, Bool)? in
                if state.status == nil { state.waiting.append(continuation) }
                return state.status
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A fresh temporary folder, removed by `remove()`.
public struct TemporaryFolder: Sendable {
    public let path: String

    public init(_ label: String = "vtrim-test") throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Names of the entries in the folder, sorted.
    public func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Reading report objects: `notes` and `warnings` are lists of `{code, message}`.
extension Dictionary where Key == String, Value == Any {
    public func codes(_ key: String) -> [String] {
        ((self[key] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
    }

    public func messages(_ key: String) -> [String] {
        ((self[key] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
    }
}
