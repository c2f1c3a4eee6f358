import DiskNames
import Foundation
import LibraryFiles
import MediaEngine

/// `--export-list FILE`: the ranges a run keeps, resolved against the file (`end-5` becomes a time), written as a
/// cut list. An output like the cut itself: never the input, never over a file without `--overwrite`, written
/// through a temporary file and renamed; a dry run checks it and writes nothing.
public struct ListExport: Sendable {
    public var path: String
    public var format: CutListFormat
    public var timing: ListTiming

    public init(path: String, format: CutListFormat, timing: ListTiming) {
        self.path = path
        self.format = format
        self.timing = timing
    }

    /// Decides the list of what `request` keeps of `input`: its target checked and its text rendered, before any
    /// output is written (a list that cannot be written fails the input with nothing written).
    func prepare(for request: CutRequest, input: String) throws(MediaError) -> PreparedListExport {
        let target = OutputTarget(path: path, overwrite: request.overwrite)
        try target.check(input: input, dryRun: request.dryRun)
        let media = ListMedia(try Probe.probe(path: input))
        let ranges: [ListRange]
        do { ranges = try request.keptRanges(durationSeconds: media.durationSeconds ?? 0, path: input) } catch {
            throw MediaError(.invalidRange, path: input, operation: "export list", reason: error.message)
        }
        do {
            return PreparedListExport(target: target, text: try CutLists.render(ranges, format: format, media: media, timing: timing))
        } catch {
            throw MediaError(.listUnwritable, path: input, operation: "export list", reason: "--export-list \(path): \(error.message)")
        }
    }
}

/// A cut list decided (`ListExport.prepare`), written once the run's outputs are: the list says what they hold.
struct PreparedListExport: Sendable {
    var target: OutputTarget
    var text: String

    /// Written through a temporary file and renamed, like every output.
    func write(input: String) throws(MediaError) {
        let target = self.target, text = self.text
        try writeAtomically(target, input: input) { temporary throws(MediaError) in
            // A name carrying bytes that are not UTF-8 is written as those bytes, the name on disk.
            guard DiskFile.write(DiskName.bytes(text), to: temporary) else {
                throw MediaError(.writeFailed, path: input, operation: "write", reason: "cannot write the cut list \(target.path)")
            }
        }
    }
}
