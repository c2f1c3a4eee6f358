import Foundation
import LibraryFiles
import WorkerProtocol

/// What the list shows, sorts and filters by once a clip is probed: a few facts of `vtrim probe`'s object (the
/// whole object stays in the engine's answer to `GET /api/clips/{id}`, a few of them in memory), or why it cannot
/// be read. Kept per file version in the on-disk index.
struct ClipSummary: Sendable, Equatable {
    var durationSeconds: Double?
    /// The video's codec, or the first audio stream's for a clip without a picture.
    var codec: String?
    var hasVideo: Bool
    var displayWidth: Int?
    var displayHeight: Int?
    /// The engine's refusal code (`invalid_data`, `no_streams`, …) for a clip that cannot be read.
    var failure: String?

    init(durationSeconds: Double?, codec: String?, hasVideo: Bool, displayWidth: Int?, displayHeight: Int?, failure: String?) {
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.hasVideo = hasVideo
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.failure = failure
    }

    init(probe: JSON) {
        let video = probe.member("video").flatMap { $0 == .null ? nil : $0 }
        let audio: JSON? = {
            if case let .array(streams)? = probe.member("audio") { return streams.first }
            return nil
        }()
        func text(_ value: JSON?) -> String? {
            if case let .string(string)? = value { return String(string.prefix(32)) }
            return nil
        }
        func whole(_ value: JSON?) -> Int? {
            guard let number = value?.doubleValue, number.isFinite, number >= 0, number < 1e6 else { return nil }
            return Int(number)
        }
        let duration = probe.member("duration")?.doubleValue
        self.init(durationSeconds: duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                  codec: text(video?.member("codec")) ?? text(audio?.member("codec")),
                  hasVideo: video != nil, displayWidth: whole(video?.member("display_width")),
                  displayHeight: whole(video?.member("display_height")), failure: nil)
    }

    init(failure code: String) {
        self.init(durationSeconds: nil, codec: nil, hasVideo: false, displayWidth: nil, displayHeight: nil, failure: String(code.prefix(40)))
    }

    /// Whether the clip passes the filters (a filter on probed facts fails an unreadable clip).
    func passes(_ filters: ClipQuery.Filters) -> Bool {
        if failure != nil { return filters.isEmpty }
        if let wanted = filters.hasVideo, wanted != hasVideo { return false }
        if let codec = filters.codec, codec != self.codec?.lowercased() { return false }
        if let minimum = filters.minimumSeconds, (durationSeconds ?? -1) < minimum { return false }
        if let maximum = filters.maximumSeconds, (durationSeconds ?? .infinity) > maximum { return false }
        return true
    }

    var jsonFields: [(String, JSON)] {
        [("duration", durationSeconds.map(JSON.number) ?? .null), ("codec", codec.map(JSON.string) ?? .null),
         ("has_video", failure == nil ? .bool(hasVideo) : .null),
         ("display_width", displayWidth.map { .int(Int64($0)) } ?? .null),
         ("display_height", displayHeight.map { .int(Int64($0)) } ?? .null),
         ("unreadable", failure.map(JSON.string) ?? .null)]
    }
}

/// The library's index on disk, beside the tile cache: every file the last scan listed with its version and, once
/// probed, its summary, so a restarted server lists a large library at once (then checks it with a walk in the
/// background) and never probes a file again that has not changed.
///
/// A text file of our own rather than SQLite: the whole of it is read at start and written whole (to a temporary
/// file, then renamed) every few seconds while it changes, which is all the index needs — one tab-separated line per
/// file, no query language, no dependency. Paths holding a tab or a line break are not kept (they are still served).
enum LibraryIndexFile {
    // 2: the version's inode and change time after its mtime (an index of 1 is read as none: probed again once).
    static let header = "vtrim-library-index 2"

    struct Entry: Equatable {
        var root: Int
        var relative: String
        var version: FileVersion
        var isOutput: Bool
        var summary: ClipSummary?
    }

    /// The entries of the index at `path` made for `roots`, or none when it is missing, unreadable, of another
    /// format or for other folders (stale: it is rebuilt by the walk).
    static func load(_ path: String, roots: [String]) -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
        guard lines.next().map(String.init) == header, lines.next().map(String.init) == rootsLine(roots) else { return [] }
        var entries: [Entry] = []
        while let line = lines.next() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 13, let root = Int(fields[0]), roots.indices.contains(root), isRelativeMediaPath(fields[1]),
                  let size = Int64(fields[2]), size >= 0, let modified = Int64(fields[3]), let inode = UInt64(fields[4]),
                  let changed = Int64(fields[5]) else { continue }
            var summary: ClipSummary?
            if fields[7] == "1" {
                let duration = Double(fields[8]).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
                let codec = fields[9] == "-" ? nil : String(fields[9].prefix(32))
                let width = Int(fields[11].split(separator: "x").first ?? "").flatMap { (0..<1_000_000).contains($0) ? $0 : nil }
                let height = Int(fields[11].split(separator: "x").last ?? "").flatMap { (0..<1_000_000).contains($0) ? $0 : nil }
                summary = fields[12] == "-"
                    ? ClipSummary(durationSeconds: duration, codec: codec, hasVideo: fields[10] == "1", displayWidth: width,
                                  displayHeight: height, failure: nil)
                    : ClipSummary(failure: String(fields[12]))
            }
            let version = FileVersion(sizeBytes: size, modifiedNanoseconds: modified, inode: inode, changedNanoseconds: changed)
            entries.append(Entry(root: root, relative: String(fields[1]), version: version, isOutput: fields[6] == "1", summary: summary))
        }
        return entries
    }

    /// Writes the index whole (temporary file, then rename: a reader never sees half of it).
    static func save(_ entries: [Entry], roots: [String], to path: String) {
        var text = header + "\n" + rootsLine(roots) + "\n"
        text.reserveCapacity(entries.count * 96)
        for entry in entries where !entry.relative.contains("\t") && !entry.relative.contains("\n") {
            var fields = [String(entry.root), entry.relative, String(entry.version.sizeBytes), String(entry.version.modifiedNanoseconds),
                          String(entry.version.inode), String(entry.version.changedNanoseconds), entry.isOutput ? "1" : "0"]
            if let summary = entry.summary {
                let size = "\(summary.displayWidth.map(String.init) ?? "-")x\(summary.displayHeight.map(String.init) ?? "-")"
                fields += ["1", summary.durationSeconds.map { "\($0)" } ?? "-", summary.codec.map { clean($0) } ?? "-",
                           summary.hasVideo ? "1" : "0", size, summary.failure.map { clean($0) } ?? "-"]
            } else {
                fields += ["0", "-", "-", "-", "-", "-"]
            }
            text += fields.joined(separator: "\t") + "\n"
        }
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// What a walk could have listed: a relative path of visible parts (no `..`, no leading `/`) naming a media
    /// file. The index is a file on disk like any other: what it says is checked before it is served.
    static func isRelativeMediaPath(_ text: Substring) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }), let name = parts.last else { return false }
        return InputWalker.mediaExtensions.contains((String(name) as NSString).pathExtension.lowercased())
    }

    private static func rootsLine(_ roots: [String]) -> String {
        "roots\t" + roots.map(clean).joined(separator: "\t")
    }

    private static func clean(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
