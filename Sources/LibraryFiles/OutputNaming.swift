import Foundation

/// Where a command's outputs go: beside the input by default, one named file (`-o`, one input only), or
/// a folder (`--output-dir`) that mirrors the input tree's relative paths.
public enum OutputChoice: Sendable, Equatable {
    case besideInput
    case file(String)
    case folder(String)

    /// The output path for `input`, e.g. suffix ".thumbs.png" or ".cut.mp4".
    public func path(for input: String, suffix: String) -> String {
        OutputNamer(choice: self, template: nil).path(for: InputItem(path: input, relativePath: (input as NSString).lastPathComponent),
                                                     defaultName: "{stem}" + suffix, fields: [:])
    }

    /// The input path without its extension.
    public static func stemPath(_ input: String) -> String {
        let name = (input as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return input }
        let extensionLength = name.distance(from: dot, to: name.endIndex)
        return String(input.dropLast(extensionLength))
    }

    public static func fileExtension(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

/// Output file names: `--name TEMPLATE` (or a command's default) with placeholders, in the folder the
/// choice gives. Placeholders: {stem} {ext} {name} (the input's file name), {index} (1-based position,
/// or the cut-list row), {start} {end} (the range as given), {label} (cut-list label), and any others
/// a command supplies.
public struct OutputNamer: Sendable, Equatable {
    public let choice: OutputChoice
    public let template: String?

    public init(choice: OutputChoice, template: String?) {
        self.choice = choice
        self.template = template
    }

    /// Outputs below --output-dir may need the input tree's subfolders created.
    public var createsFolders: Bool {
        if case .folder = choice { return true }
        return false
    }

    public static let placeholders = ["stem", "ext", "name", "index", "start", "end", "label"]

    /// Whether `template` names a cut list's rows (or a split proposal's clips) apart: it holds one of the placeholders
    /// that differ between them.
    public static func distinguishesRows(_ template: String) -> Bool {
        ["index", "start", "end", "label"].contains { template.contains("{\($0)}") }
    }

    public func path(for item: InputItem, defaultName: String, fields: [String: String]) -> String {
        let fileName = Self.inputFileName(item.path)
        var values = fields
        values["stem"] = values["stem"] ?? (OutputChoice.stemPath(fileName))
        values["ext"] = values["ext"] ?? OutputChoice.fileExtension(fileName)
        values["name"] = values["name"] ?? fileName
        let name = Self.fill(template ?? defaultName, values)
        switch choice {
        case let .file(path):
            return path
        case .besideInput:
            // A URL's outputs go to the current folder.
            let folder = Self.isURL(item.path) ? "" : (item.path as NSString).deletingLastPathComponent
            return folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        case let .folder(folder):
            let below = (item.relativePath as NSString).deletingLastPathComponent
            let base = below.isEmpty ? folder : (folder as NSString).appendingPathComponent(below)
            return (base as NSString).appendingPathComponent(name)
        }
    }

    /// The input's file name: for a URL, its last path component without the query — or, where that is a generic
    /// name players give every playlist (`index.m3u8`), the folder above it with its extension (`lecture-12.m3u8`).
    public static func inputFileName(_ path: String) -> String {
        guard isURL(path) else { return (path as NSString).lastPathComponent }
        let afterScheme = path[(path.range(of: "://")?.upperBound ?? path.startIndex)...]
        let withoutQuery = afterScheme.prefix { $0 != "?" && $0 != "#" }
        var components = withoutQuery.split(separator: "/").map(String.init)
        let host = components.isEmpty ? "input" : components.removeFirst()
        guard let last = components.last else { return sanitize(host) }
        let ext = OutputChoice.fileExtension(last)
        let stem = ext.isEmpty ? last : String(last.dropLast(ext.count + 1))
        if genericStems.contains(stem.lowercased()), components.count >= 2 {
            return sanitize(components[components.count - 2]) + (ext.isEmpty ? "" : "." + ext)
        }
        return sanitize(last)
    }

    /// A URL without its user, password or query (where tokens live), for messages; other paths as they are.
    public static func redactedIfURL(_ path: String) -> String {
        guard isURL(path), let scheme = path.range(of: "://") else { return path }
        let rest = path[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let host = rest[..<authorityEnd].split(separator: "@").last.map(String.init) ?? ""
        let pathPart = rest[authorityEnd...].prefix { $0 != "?" && $0 != "#" }
        return String(path[..<scheme.upperBound]) + host + pathPart + (rest[authorityEnd...].contains("?") ? "?…" : "")
    }

    static let genericStems: Set<String> = ["index", "master", "playlist", "manifest", "prog_index", "main", "stream", "chunklist", "media"]

    static func isURL(_ path: String) -> Bool {
        guard let range = path.range(of: "://") else { return false }
        let scheme = path[..<range.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// Replaces `{key}` with its value in one left-to-right pass over the template: a value is never
    /// scanned again (a stem containing "{index}" stays as it is), so names do not depend on the order
    /// of the values. Unknown keys stay as written (the CLI rejects them up front).
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(where: { $0 == "}" || $0 == "{" }), rest[close] == "}",
               let value = values[String(rest[afterOpen..<close])] {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "{"
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }

    /// Placeholders in `template` that no command knows.
    public static func unknownPlaceholders(in template: String) -> [String] {
        var unknown: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let key = String(rest[rest.index(after: open)..<close])
            if !placeholders.contains(key) { unknown.append(key) }
            rest = rest[rest.index(after: close)...]
        }
        return unknown
    }

    /// Makes a piece of text safe inside a file name (cut-list labels).
    public static func sanitize(_ text: String) -> String {
        let cleaned = text.map { "/\\\0".contains($0) || $0.isNewline ? "_" : $0 }
        let trimmed = String(cleaned).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "_" : trimmed
    }
}

/// Two inputs that would write the same file: found before any work starts.
public struct OutputCollision: Error, CustomStringConvertible {
    public let output: String
    public let inputs: [String]

    public var description: String {
        "\(inputs.map(OutputNamer.redactedIfURL).joined(separator: " and ")) would both write \(output); use --name with {index}, or walk their common folder with -r so that --output-dir and --frames-dir mirror its subfolders"
    }

    /// The first output claimed by more than one input, comparing resolved paths.
    public static func find(_ outputs: [(input: String, output: String)]) -> OutputCollision? {
        var owners: [String: [String]] = [:]
        var order: [String] = []
        for (input, output) in outputs {
            let key = URL(fileURLWithPath: output).standardizedFileURL.path
            if owners[key] == nil { order.append(key) }
            owners[key, default: []].append(input)
        }
        for key in order where (owners[key]?.count ?? 0) > 1 {
            return OutputCollision(output: key, inputs: owners[key] ?? [])
        }
        return nil
    }
}

/// The names of cut outputs: the containers vtrim writes cuts into (the engine's muxers, `EditOutput.extensions`;
/// a test checks the two lists agree; then the sound containers, `SoundContainer.extensions`), and the extension a cut
/// of a file takes by default.
public enum CutOutputName {
    public static let extensions = ["mp4", "mov", "m4v", "m4a", "3gp", "3g2", "mkv", "webm", "ts", "m2ts", "mts", "avi",
                                    "mp3", "m4b", "aac", "flac", "opus", "ogg", "oga", "wav", "mka"]

    public static func canWrite(fileName: String) -> Bool {
        extensions.contains(OutputChoice.fileExtension(fileName).lowercased())
    }

    /// The input's own extension where vtrim writes that container, else Matroska (which holds any codec).
    public static func outputExtension(for input: String) -> String {
        let ext = OutputChoice.fileExtension(OutputNamer.inputFileName(input))
        // A playlist's cut is a file (MP4) unless `-o` names a playlist.
        if ["m3u8", "m3u", "mpd"].contains(ext.lowercased()) { return "mp4" }
        if ext.isEmpty { return "mp4" }
        return extensions.contains(ext.lowercased()) ? ext : "mkv"
    }
}
