import Foundation

/// Where a command's outputs go: beside the input by default (`<stem><suffix>`), one named file
/// (`-o`, one input only), or a folder (`--output-dir`).
public enum OutputChoice: Sendable, Equatable {
    case besideInput
    case file(String)
    case folder(String)

    /// The output path for `input`, e.g. suffix ".thumbs.png" or ".cut.mp4".
    public func path(for input: String, suffix: String) -> String {
        switch self {
        case let .file(path):
            return path
        case .besideInput:
            return Self.stemPath(input) + suffix
        case let .folder(folder):
            let name = URL(fileURLWithPath: Self.stemPath(input)).lastPathComponent
            return (folder.hasSuffix("/") ? folder : folder + "/") + name + suffix
        }
    }

    /// The input path without its extension.
    static func stemPath(_ input: String) -> String {
        let name = (input as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return input }
        let extensionLength = name.distance(from: dot, to: name.endIndex)
        return String(input.dropLast(extensionLength))
    }

    static func fileExtension(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}
