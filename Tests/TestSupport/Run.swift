import Foundation

/// What a finished process printed and how it exited.
public struct RunResult: Sendable, CustomStringConvertible {
    public let status: Int32
    public let stderr: String
    public let stdoutData: Data
    /// Decoded on use: some tools print megabytes of raw pictures, which are never read as text.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    public init(status: Int32, stderr: String, stdoutData: Data) {
        self.status = status
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
    public static func vtrim(_ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) throws -> RunResult {
        try tool(TestPaths.vtrimBinary, arguments, in: directory, environment: environment)
    }

    /// Runs an executable (absolute path or a name on PATH).
    public static func tool(_ executable: String, _ arguments: [String], in directory: String? = nil,
                            environment: [String: String]? = nil) throws -> RunResult {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so a chatty process cannot block on a full pipe.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stderr: String(decoding: errorData, as: UTF8.self), stdoutData: outputData)
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
