import Foundation

/// Expands the command line's inputs into the list of files to process, in order.
/// Files are taken as given (a missing one becomes that input's `not_found` error later); folders
/// need `recursive` and contribute their media files, sorted.
public struct InputWalker: Sendable {
    /// Extensions (lower case) a folder contributes.
    public static let mediaExtensions: Set<String> = [
        "3g2", "3gp", "asf", "avi", "flv", "m2t", "m2ts", "m4a", "m4b", "m4v", "mkv", "mov", "mp4",
        "mpeg", "mpg", "mts", "mxf", "ogg", "ogv", "opus", "qt", "ts", "vob", "webm", "wmv",
    ]

    public enum WalkError: Error, Equatable, CustomStringConvertible {
        case folderNeedsRecursive(String)

        public var description: String {
            switch self {
            case let .folderNeedsRecursive(path):
                return "\(path) is a folder; pass -r/--recursive to process the media files in it"
            }
        }
    }

    public var recursive: Bool

    public init(recursive: Bool) {
        self.recursive = recursive
    }

    /// Folders given without `recursive`: a usage error the CLI reports before any work starts.
    public func checkFolders(_ inputs: [String]) throws(WalkError) {
        guard !recursive else { return }
        for input in inputs where Self.isDirectory(input) {
            throw .folderNeedsRecursive(input)
        }
    }

    public func expand(_ inputs: [String]) throws(WalkError) -> [String] {
        try checkFolders(inputs)
        var result: [String] = []
        for input in inputs {
            if Self.isDirectory(input) {
                result += mediaFiles(in: input)
            } else {
                result.append(input)
            }
        }
        return result
    }

    private func mediaFiles(in folder: String) -> [String] {
        let root = URL(fileURLWithPath: folder)
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return [] }
        var files: [String] = []
        for case let url as URL in enumerator {
            guard Self.mediaExtensions.contains(url.pathExtension.lowercased()) else { continue }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let relative = url.path.dropFirst(root.path.count).drop(while: { $0 == "/" })
            files.append(folder.hasSuffix("/") ? folder + relative : folder + "/" + relative)
        }
        return files.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
