import Foundation
import Glibc

/// Test media made once per content: what makes a file (ffmpeg's arguments, or a recipe's own words), the versions of
/// the tools that make it and the size and time of every input file it names key a folder in the cache
/// (`$VTRIM_TEST_MEDIA`, else `~/.cache/vtrim/test-media`), made there once — into a temporary folder renamed into
/// place — and shared by every test of the run, the sanitizer passes and later runs. Tests read what it gives them
/// and never change it (they copy a file first).
public enum TestMedia {
    public static let folder: String = {
        if let path = ProcessInfo.processInfo.environment["VTRIM_TEST_MEDIA"] { return path }
        let home = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return home + "/vtrim/test-media"
    }()

    /// The file `ffmpeg arguments… output` makes, `name` its file name (its extension chooses the muxer).
    public static func ffmpeg(_ arguments: [String], name: String) async throws -> String {
        try await file(name, key: ["ffmpeg"] + arguments) { output in
            let made = try await Run.tool("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [output])
            guard made.status == 0 else { throw ReferenceError(message: "ffmpeg \(arguments.joined(separator: " ")): \(made.stderr)") }
        }
    }

    /// `name` in the folder `make` fills (it is given the file's path there; it may write more beside it), made once for
    /// `key`.
    public static func file(_ name: String, key: [String], make: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        let identity = try await identity(of: key)
        return try await Made.shared.once(identity) {
            let final = folder + "/" + identity
            if FileManager.default.fileExists(atPath: final + "/" + name) { return final + "/" + name }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = folder + "/.\(identity).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
            do {
                try await make(temporary + "/" + name)
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw error
            }
            // Another run may have made it meanwhile: theirs stands, ours goes.
            if rename(temporary, final) != 0 { try? FileManager.default.removeItem(atPath: temporary) }
            return final + "/" + name
        }
    }

    /// The cache's name for a recipe: a hash of its words, the tools' versions and what it reads.
    static func identity(of key: [String]) async throws -> String {
        var words = key + [try await Versions.shared.ffmpeg()]
        for word in key where word.hasPrefix("/") {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: word) {
                words.append("\((attributes[.size] as? NSNumber)?.int64Value ?? -1)@\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)")
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in words.joined(separator: "\u{0}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// What each recipe made in this run, so tests asking at once wait for one making.
    private actor Made {
        static let shared = Made()
        private var tasks: [String: Task<String, any Error>] = [:]

        func once(_ identity: String, _ make: @escaping @Sendable () async throws -> String) async throws -> String {
            if let task = tasks[identity] { return try await task.value }
            let task = Task { try await make() }
            tasks[identity] = task
            return try await task.value
        }
    }

    /// The version line of the ffmpeg on PATH, asked once.
    private actor Versions {
        static let shared = Versions()
        private var line: String?

        func ffmpeg() async throws -> String {
            if let line { return line }
            let found = try await Run.tool("ffmpeg", ["-version"]).stdout.split(separator: "\n").first.map(String.init) ?? "ffmpeg"
            line = found
            return found
        }
    }
}

/// A value a test file makes once, asynchronously (media, the frame times of its sources), however many tests ask at once.
public actor Once<Value: Sendable> {
    private let make: @Sendable () async throws -> Value
    private var task: Task<Value, any Error>?

    public init(_ make: @escaping @Sendable () async throws -> Value) { self.make = make }

    public var value: Value {
        get async throws {
            if let task { return try await task.value }
            let made = Task { try await make() }
            task = made
            return try await made.value
        }
    }
}

/// What a run already read of a file — its frame times, ffprobe's view of it — by its path, size and modification time
/// (a file written again is read again), so the cases that share a source start one ffprobe between them, not one each.
public enum FileFacts {
    public static func once<Value: Sendable>(_ path: String, _ kind: String, _ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let key = "\(kind) \(path) \((attributes?[.size] as? NSNumber)?.int64Value ?? -1) \((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        let value = try await Store.shared.value(key) { try await read() }
        guard let typed = value as? Value else { throw ReferenceError(message: "\(kind) of \(path) read as another type") }
        return typed
    }

    private actor Store {
        static let shared = Store()
        private var values: [String: Task<any Sendable, any Error>] = [:]

        func value(_ key: String, _ read: @escaping @Sendable () async throws -> any Sendable) async throws -> any Sendable {
            if let task = values[key] { return try await task.value }
            let task = Task { try await read() }
            values[key] = task
            return try await task.value
        }
    }
}

extension TestMedia {
    /// Shots of distinct content after 1.2 s of black: cuts at 1.2, 4.2, 6.7, 9.7 and 11.7 s (an animated zoom among
    /// them), H.264. `keyframesAtCuts`: x264's own scene cuts put a keyframe at each; without them, a keyframe every 2 s
    /// and none at the cuts, so smart clips of the shots have heads. `bFrames`: x264's default B-frames, or none (as
    /// phones record).
    public static func shots(keyframesAtCuts: Bool = true, bFrames: Bool = true) async throws -> String {
        let sources = ["color=black:s=320x180:r=30:d=1.2", "testsrc2=s=320x180:r=30:d=3", "smptebars=s=320x180:r=30:d=2.5",
                       "mandelbrot=s=320x180:r=30,trim=duration=3", "rgbtestsrc=s=320x180:r=30:d=2", "testsrc=s=320x180:r=30:d=2"]
        let inputs = sources.flatMap { ["-f", "lavfi", "-i", $0] }
        let joined = sources.indices.map { "[\($0)]" }.joined() + "concat=n=\(sources.count):v=1:a=0,format=yuv420p[v]"
        let encoding = ["-c:v", "libx264", "-g", "60"] + (keyframesAtCuts ? [] : ["-sc_threshold", "0"]) + (bFrames ? [] : ["-bf", "0"])
        let name = "shots" + (keyframesAtCuts ? "" : "-mid-gop") + (bFrames ? "" : "-no-b")
        return try await ffmpeg(inputs + ["-filter_complex", joined, "-map", "[v]"] + encoding, name: name + ".mp4")
    }
}
