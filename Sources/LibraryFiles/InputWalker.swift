import DiskNames
import Foundation
import Glibc

/// One file to process, and where it sits under the folder it came from (for `--output-dir` mirroring).
public struct InputItem: Sendable, Equatable {
    public let path: String
    /// The path below the folder given on the command line ("sub/clip.mp4"); the file name for files
    /// given directly.
    public let relativePath: String
    /// Found by walking a folder (not named on the command line).
    public let foundInFolder: Bool

    public init(path: String, relativePath: String, foundInFolder: Bool = false) {
        self.path = path
        self.relativePath = relativePath
        self.foundInFolder = foundInFolder
    }
}

/// Expands the command line's inputs into the list of files to process, in a deterministic order.
/// Files are taken as given (a missing one becomes that input's `not_found` error later); folders need
/// `recursive` and contribute, sorted by path, their media files — or with `include` globs the files
/// matching one — minus those matching an `exclude` glob, and minus the files vtrim itself wrote there
/// (`isVtrimOutput`) unless `includeOutputs`, so a second run never cuts a cut. Hidden files and folders are skipped;
/// symlinked folders are followed once (a loop is never entered twice); a file reached twice is listed once.
public struct InputWalker: Sendable {
    /// Extensions (lower case) a folder contributes by default: every container and raw video stream FFmpeg 5.1 reads
    /// as video — its demuxers' own lists (mov/mp4, Matroska, AVI, FLV, DV, NUT, raw H.264/HEVC/AV1/MPEG-4/VC-1, Y4M)
    /// and the names of those that go by content instead (MPEG program and transport streams, elementary MPEG-1/2
    /// video, MXF, ASF, RealMedia, WTV, IVF) — and the audio files vtrim cuts.
    public static let mediaExtensions: Set<String> = [
        "264", "265", "3g2", "3gp", "3gpp", "aac", "asf", "avc", "avi", "divx", "dif", "dv", "f4v", "flac", "flv", "h264", "h265", "hevc", "ivf",
        "m1v", "m2p", "m2t", "m2ts", "m2v", "m4a", "m4b", "m4v", "mj2", "mjpeg", "mjpg", "mk3d", "mka", "mkv", "mod", "mov", "mp3", "mp4", "mpe",
        "mpeg", "mpg", "mpv", "mts", "mxf", "nut", "obu", "oga", "ogg", "ogm", "ogv", "opus", "psp", "qt", "rm", "rmvb", "tod", "ts",
        "vc1", "vob", "wav", "webm", "wmv", "wtv", "y4m",
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
    /// Globs (fnmatch) tried against the path below the folder and against the file name.
    public var include: [String]
    public var exclude: [String]
    /// Walks take vtrim's own outputs too (`--include-outputs`).
    public var includeOutputs: Bool

    public init(recursive: Bool, include: [String] = [], exclude: [String] = [], includeOutputs: Bool = false) {
        self.recursive = recursive
        self.include = include
        self.exclude = exclude
        self.includeOutputs = includeOutputs
    }

    /// A name vtrim's default output naming gives: `{stem}.cut.{ext}`, a cut list's `{stem}.{row}.cut.{ext}`,
    /// serve's `{stem}.{start}-{end}.cut.{ext}` and its `-2`, `-3`…, serve's joins `{stem}.join-{ranges}.{ext}`,
    /// `{stem}.thumbs.{ext}` (sheets, VTT).
    /// `<stem>.trickplay`, `<stem>.trickplay-hls`, `<stem>.trickplay-dash` (`thumbs --storyboard`).
    public static func isStoryboardFolder(_ name: String) -> Bool {
        [".trickplay", ".trickplay-hls", ".trickplay-dash"].contains { name.hasSuffix($0) }
    }

    public static func isVtrimOutput(_ name: String) -> Bool {
        let stem = (name as NSString).deletingPathExtension
        if stem.hasSuffix(".cut") || stem.hasSuffix(".thumbs") { return true }
        // serve's joins: `….join-3`, repeated `….join-3-2`
        // (A regex is slow: only names holding `.join-` are matched, so a walk of 100,000 files does not pay for it.)
        if stem.contains(".join-"), stem.firstMatch(of: Self.joinSuffix) != nil { return true }
        // serve's repeated cuts: `….cut-2`
        guard let dash = stem.lastIndex(of: "-"), stem[..<dash].hasSuffix(".cut") else { return false }
        let number = stem[stem.index(after: dash)...]
        return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
    }

    /// serve's join outputs: `{stem}.join-{ranges}`, then `-2`, `-3`….
    static var joinSuffix: Regex<(Substring, Substring?)> { /\.join-\d+(-\d+)?$/ }

    /// The file name stem of the input a vtrim output was made from: `beach` for `beach.cut.mp4`,
    /// `beach.thumbs.png` and serve's `beach.1.5-3.cut-2.mp4`; nil for a name vtrim does not write.
    public static func sourceStem(ofOutput name: String) -> String? {
        guard isVtrimOutput(name) else { return nil }
        var stem = (name as NSString).deletingPathExtension
        if let join = stem.firstMatch(of: Self.joinSuffix) {
            stem = String(stem[..<join.range.lowerBound])
            return stem.isEmpty ? nil : stem
        }
        if let dash = stem.lastIndex(of: "-"), stem[..<dash].hasSuffix(".cut"), !stem.hasSuffix(".cut") { stem = String(stem[..<dash]) }
        for suffix in [".cut", ".thumbs"] where stem.hasSuffix(suffix) { stem.removeLast(suffix.count) }
        // serve's `{stem}.{start}-{end}` (JSON numbers: 1.5, 3, 12.25).
        if let range = stem.firstMatch(of: /\.\d+(\.\d+)?-\d+(\.\d+)?$/) { stem = String(stem[..<range.range.lowerBound]) }
        return stem.isEmpty ? nil : stem
    }

    /// Folders given without `recursive`: a usage error the CLI reports before any work starts.
    public func checkFolders(_ inputs: [String]) throws(WalkError) {
        guard !recursive else { return }
        for input in inputs where Self.isDirectory(input) {
            throw .folderNeedsRecursive(input)
        }
    }

    public func expand(_ inputs: [String]) throws(WalkError) -> [String] {
        try items(inputs).map(\.path)
    }

    public func items(_ inputs: [String]) throws(WalkError) -> [InputItem] {
        try walk(inputs).items
    }

    /// The files to process, and the folders given that held none (reported as `no_media`).
    public func walk(_ inputs: [String]) throws(WalkError) -> (items: [InputItem], emptyFolders: [String]) {
        try checkFolders(inputs)
        var result: [InputItem] = []
        var empty: [String] = []
        var seen = Set<FileIdentity>()
        for input in inputs {
            if Self.isDirectory(input) {
                var visited = Set<FileIdentity>()
                var found: [InputItem] = []
                walk(folder: input, relative: "", visited: &visited, into: &found)
                if found.isEmpty { empty.append(input) }
                found.sort { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
                for item in found where seen.insert(FileIdentity(item.path) ?? .unique(item.path)).inserted {
                    result.append(item)
                }
            } else {
                let identity = FileIdentity(input) ?? .unique(input)
                if seen.insert(identity).inserted {
                    // A URL's name without its query (tokens stay out of progress lines and output names).
                    result.append(InputItem(path: input, relativePath: OutputNamer.inputFileName(input)))
                }
            }
        }
        return (result, empty)
    }

    private func walk(folder: String, relative: String, visited: inout Set<FileIdentity>, into found: inout [InputItem]) {
        guard let identity = FileIdentity(folder), visited.insert(identity).inserted,
              let names = DiskFile.names(in: folder) else { return }
        for name in names where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            let below = relative.isEmpty ? name : relative + "/" + name
            guard let info = DiskFile.status(path) else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                // Storyboards vtrim (or Jellyfin) wrote beside the videos hold pictures only: not walked.
                if !includeOutputs, Self.isStoryboardFolder(name) { continue }
                walk(folder: path, relative: below, visited: &visited, into: &found)
            } else if info.st_mode & S_IFMT == S_IFREG, wanted(name: name, relative: below) {
                found.append(InputItem(path: path, relativePath: below, foundInFolder: true))
            }
        }
    }

    private func wanted(name: String, relative: String) -> Bool {
        func matches(_ pattern: String) -> Bool {
            DiskName.withCString(pattern) { glob in
                DiskName.withCString(relative) { fnmatch(glob, $0, 0) } == 0 || DiskName.withCString(name) { fnmatch(glob, $0, 0) } == 0
            }
        }
        let included = include.isEmpty
            ? Self.mediaExtensions.contains((name as NSString).pathExtension.lowercased())
            : include.contains(where: matches)
        return included && !exclude.contains(where: matches) && (includeOutputs || !Self.isVtrimOutput(name))
    }

    public static func isDirectory(_ path: String) -> Bool { DiskFile.isDirectory(path) }
}

/// A file's device and inode (symlinks followed), to notice loops and files reached twice.
enum FileIdentity: Hashable {
    case inode(UInt64, UInt64)
    case unique(String)

    init?(_ path: String) {
        guard let info = DiskFile.status(path) else { return nil }
        self = .inode(UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
