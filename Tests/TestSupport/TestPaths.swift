import Foundation

/// Where tests find the package, its fixtures, the shared real-world media and the built binary.
public enum TestPaths {
    /// The package root, from this file's location (Tests/TestSupport/TestPaths.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static func fixture(_ name: String) -> String {
        packageRoot + "/fixtures/" + name
    }

    /// `../shared/media` beside the project (or $VTRIM_SHARED_MEDIA); nil when absent, and tests
    /// that need it are skipped.
    public static let sharedMedia: String? = {
        let path = ProcessInfo.processInfo.environment["VTRIM_SHARED_MEDIA"]
            ?? URL(fileURLWithPath: packageRoot).deletingLastPathComponent().appendingPathComponent("shared/media").path
        return FileManager.default.fileExists(atPath: path + "/MANIFEST.tsv") ? path : nil
    }()

    /// The `vtrim` built beside the test bundle (or $VTRIM_BIN).
    public static let vtrimBinary: String = {
        if let path = ProcessInfo.processInfo.environment["VTRIM_BIN"] { return path }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vtrim").path,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("vtrim").path,
            packageRoot + "/.build/release/vtrim",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[candidates.count - 1]
    }()

    /// The binary under test is built with sanitizers (scripts/sanitizers): memory figures mean nothing.
    public static let sanitized = ProcessInfo.processInfo.environment["VTRIM_SANITIZED"] != nil

    /// This machine's name, as vtrim writes it into temporary file names.
    public static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        return gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
    }()

    public static func toolExists(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }
}
