import Foundation

/// Rows of ../shared/media/MANIFEST.tsv (what ffprobe 5.1 reports for each real-world file).
public struct ManifestRow: Sendable, CustomStringConvertible {
    public let values: [String: String]

    public subscript(_ key: String) -> String? {
        guard let value = values[key], !value.isEmpty, value != "N/A" else { return nil }
        return value
    }

    public var file: String { values["file"] ?? "" }
    public var description: String { file }

    /// Files of MANIFEST-pending.tsv that the suites now pass: they run with MANIFEST.tsv's rows whether or not the
    /// machine's copy of the media has moved their rows yet. VTRIM_PENDING_MEDIA=all runs every pending row.
    static let passingPending: Set<String> = ["androidx-media/dolbyVision-hdr.MOV", "metadata-extractor-images/sample_mpeg2.m2v",
                                              "androidx-media/sample_sef_slow_motion.mp4"]

    public static func load() -> [ManifestRow] {
        guard let media = TestPaths.sharedMedia else { return [] }
        let rows = table(media + "/MANIFEST.tsv")
        let listed = Set(rows.map(\.file))
        let everyPending = ProcessInfo.processInfo.environment["VTRIM_PENDING_MEDIA"] == "all"
        return rows + table(media + "/MANIFEST-pending.tsv").filter {
            !listed.contains($0.file) && (everyPending || passingPending.contains($0.file))
        }
    }

    private static func table(_ path: String) -> [ManifestRow] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst()
        return lines.map { fields in
            ManifestRow(values: Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: max(0, header.count - fields.count)))))
        }
    }

    public var path: String { (TestPaths.sharedMedia ?? "") + "/" + file }
}

extension Array where Element == ManifestRow {
    /// A real-file matrix as the sanitizer pass runs it (scripts/sanitizers): the first file of each video codec and
    /// container, since every real file already runs once there (CutConformanceTests); the normal pass runs them all.
    public var sanitizerShare: [ManifestRow] {
        guard TestPaths.sanitized else { return self }
        var seen = Set<String>()
        return filter { seen.insert(($0["video_codec"] ?? "") + "/" + ($0.file as NSString).pathExtension.lowercased()).inserted }
    }
}
