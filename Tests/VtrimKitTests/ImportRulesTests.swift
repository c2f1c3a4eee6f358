import Foundation
import Testing

/// The house's rules (DESIGN.md), checked on the sources as text: which module may import which, and that
/// Package.swift declares every module a target imports (a module that merely happens to be built, because
/// another dependency pulls it in, may vanish with that dependency's next version).
struct ImportRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules of the platform, which need no declaration.
    static let system: Set<String> = ["Foundation", "FoundationEssentials", "FoundationXML", "Glibc", "Darwin", "Dispatch", "Synchronization",
                                      "Testing", "XCTest"]

    /// What each of vtrim's own modules may import besides the platform's (the house, DESIGN.md): TimelineCore
    /// imports nothing at all; only MediaEngine imports CAV; LibraryFiles and WorkerProtocol hold no engine; VtrimServer
    /// reaches the engine only through the worker protocol (it cannot import VtrimKit or MediaEngine, so it cannot
    /// link them) and keeps its state through SQLite (CSQLite); the command line never touches FFmpeg.
    static let allowed: [String: Set<String>] = [
        "TimelineCore": [],
        "MediaEngine": ["CAV", "CFreeType", "Locking", "DiskNames"],
        "DiskNames": [],
        "Locking": [],
        "LibraryFiles": ["CFileSystem", "DiskNames"],
        "WorkerProtocol": ["LibraryFiles", "TimelineCore"],
        "VtrimKit": ["MediaEngine", "TimelineCore", "LibraryFiles", "WorkerProtocol", "Locking", "CProcess", "DiskNames", "RemoteInput"],
        "RemoteInput": ["CCurl", "Locking"],
        "VtrimServer": ["WorkerProtocol", "LibraryFiles", "TimelineCore", "Locking", "CSQLite", "DiskNames", "Hummingbird", "ServiceLifecycle", "Logging", "NIOCore"],
        "vtrim": ["VtrimKit", "TimelineCore", "LibraryFiles", "WorkerProtocol", "VtrimServer", "ArgumentParser", "DiskNames"],
    ]

    /// The server's target cannot link the engine: Package.swift gives it no path to MediaEngine, VtrimKit or CAV
    /// (its dependencies, and theirs, are engine-free).
    @Test func serverTargetCannotLinkTheEngine() async throws {
        let targets = try Self.declaredTargets()
        let byName = Dictionary(targets.map { ($0.name, $0.dependencies) }, uniquingKeysWith: { first, _ in first })
        var reachable: Set<String> = [], pending = ["VtrimServer"]
        while let next = pending.popLast() {
            for dependency in byName[next] ?? [] where !reachable.contains(dependency) {
                reachable.insert(dependency)
                pending.append(dependency)
            }
        }
        #expect(reachable.isDisjoint(with: ["VtrimKit", "MediaEngine", "CAV", "CFreeType"]), "VtrimServer reaches \(reachable.sorted())")
    }

    /// `import X` lines of every Swift file below `folder` (`@testable`, `@_implementationOnly` included).
    static func imports(in folder: URL) -> [(file: String, module: String)] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("@") }
                guard words.count >= 2, words[0] == "import" else { continue }
                found.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), words[1]))
            }
        }
        return found
    }

    /// Each target's folder and the modules Package.swift lists as its dependencies (targets and products).
    static func declaredTargets() throws -> [(name: String, folder: String, dependencies: Set<String>)] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [(String, String, Set<String>)] = []
        let kinds = [".target(", ".executableTarget(", ".testTarget("]
        var index = manifest.startIndex
        while let start = kinds.compactMap({ manifest.range(of: $0, range: index..<manifest.endIndex) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            // The call's text: up to its matching parenthesis.
            var depth = 0, end = start.upperBound
            var cursor = manifest.index(before: start.upperBound)
            while cursor < manifest.endIndex {
                if manifest[cursor] == "(" { depth += 1 }
                if manifest[cursor] == ")" { depth -= 1; if depth == 0 { end = cursor; break } }
                cursor = manifest.index(after: cursor)
            }
            let call = String(manifest[start.lowerBound..<end])
            index = end
            let strings = call.matches(of: /name: "([^"]+)"/).map { String($0.1) }
            guard let name = strings.first else { continue }
            let quoted = Set(call.matches(of: /"([A-Za-z][A-Za-z0-9_-]*)"/).map { String($0.1) })
            let isTest = call.hasPrefix(".testTarget(")
            let folder = call.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) } ?? (isTest ? "Tests/\(name)" : "Sources/\(name)")
            targets.append((name, folder, quoted.subtracting([name])))
        }
        return targets
    }

    @Test func modulesImportOnlyWhatTheHouseAllows() async {
        for (module, permitted) in Self.allowed {
            for (file, imported) in Self.imports(in: Self.root.appendingPathComponent("Sources/\(module)")) {
                if module == "TimelineCore" {
                    #expect(Bool(false), "\(file): TimelineCore imports nothing, not even \(imported)")
                    continue
                }
                #expect(Self.system.contains(imported) || permitted.contains(imported), "\(file): \(module) may not import \(imported)")
            }
        }
    }

    @Test func packageDeclaresEveryModuleATargetImports() async throws {
        let targets = try Self.declaredTargets()
        #expect(targets.count >= 10, "targets read from Package.swift: \(targets.map(\.name))")
        for target in targets {
            for (file, imported) in Self.imports(in: Self.root.appendingPathComponent(target.folder)) where !Self.system.contains(imported) {
                #expect(target.dependencies.contains(imported), "\(file) imports \(imported), which Package.swift does not declare for \(target.name)")
            }
        }
    }

    /// No FFmpeg type in MediaEngine's public API: the public declarations' lines name no AV… type.
    @Test func mediaEngineKeepsFFmpegTypesToItself() async {
        guard let walker = FileManager.default.enumerator(at: Self.root.appendingPathComponent("Sources/MediaEngine"),
                                                          includingPropertiesForKeys: nil) else { return }
        for case let url as URL in walker where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("public ") && line.contains(/\b(AV[A-Z][A-Za-z]+|Unsafe(Mutable)?Pointer<AV)/) {
                #expect(Bool(false), "\(url.lastPathComponent):\(number + 1): an FFmpeg type in a public declaration: \(line)")
            }
        }
    }

    /// Every Swift file below Sources, with its lines.
    static func sources() -> [(path: String, lines: [Substring])] {
        guard let walker = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, [Substring])] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            files.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        return files
    }

    /// Threads share nothing the compiler cannot check: `@unchecked Sendable` only on the lock types themselves.
    @Test func uncheckedSendableOnlyOnTheLocks() {
        var found: [String] = []
        for (path, lines) in Self.sources() {
            for (number, line) in lines.enumerated() where line.contains("@unchecked Sendable") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                found.append("\(path):\(number + 1)")
            }
        }
        #expect(found.count <= 3 && found.allSatisfy { $0.hasPrefix("Sources/Locking/") }, "\(found)")
    }

    /// No function in Sources runs past 80 lines, but the bitstream parsers of `CodecHeaders/` (a syntax read field by
    /// field reads best as one function).
    @Test func functionsFitOnAScreen() {
        let declaration = /^\s*(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|package|static|final|override|mutating|nonisolated|convenience|required|class)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<])/
        var long: [String] = []
        for (path, lines) in Self.sources() where !path.contains("/CodecHeaders/") {
            var index = 0
            while index < lines.count {
                defer { index += 1 }
                guard lines[index].firstMatch(of: declaration) != nil else { continue }
                var depth = 0, started = false, end = index
                while end < lines.count {
                    let code = String(lines[end].split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                        .replacing(/"(?:\\.|[^"\\])*"/, with: "\"\"")
                    depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
                    started = started || code.contains("{")
                    if started && depth <= 0 { break }
                    if !started && end > index + 6 { break }
                    end += 1
                }
                if started, end - index + 1 > 80 { long.append("\(path):\(index + 1) (\(end - index + 1) lines)") }
            }
        }
        #expect(long.isEmpty, "\(long)")
    }
}
