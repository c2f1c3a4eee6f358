import Foundation
import LibraryFiles
import MediaEngine
import RemoteInput
import WorkerProtocol

/// A plain file behind a URL (an MP4, MKV, TS…), read by bounded range requests through the engine's AVIO reader:
/// a probe of an MP4 reads its `moov` and little else; a cut, the packets around its range.
struct RemoteFileView {
    let name: String
    let file: RemoteFile
    let fetcher: HTTPFetcher
    var warnings: [MediaWarning] = []

    static func open(_ url: RemoteURL, fetcher: HTTPFetcher, insecure: Bool) throws(MediaError) -> RemoteFileView {
        let file: RemoteFile
        do { file = try RemoteFile.open(url, fetcher: fetcher) } catch { throw RemoteView.error(error) }
        var view = RemoteFileView(name: url.redacted, file: file, fetcher: fetcher)
        if file.rangeIgnored {
            view.warnings.append(MediaWarning(code: "range_ignored", message: "the server ignores range requests: the whole file (\(file.sizeBytes) bytes) was fetched once"))
        }
        if insecure { view.warnings.append(MediaWarning(code: "insecure", message: "read with --insecure: the server's TLS certificate was not checked")) }
        InputSources.register(view.name, source: RemoteBytes(file: file))
        return view
    }

    func finish() { InputSources.unregister(source: name) }

    /// A playlist served under a name without `.m3u8`.
    var beginsLikePlaylist: Bool {
        var head = [UInt8](repeating: 0, count: 7)
        let count = head.withUnsafeMutableBytes { (try? file.read(into: $0, at: 0)) ?? 0 }
        return count == 7 && head == Array("#EXTM3U".utf8)
    }

    var fields: [(String, JSON)] {
        let totals = fetcher.ledger.current
        var source: [(String, JSON)] = [("url", .string(name)), ("size", .int(file.sizeBytes)), ("range_ignored", .bool(file.rangeIgnored))]
        source.append(("fetched_requests", .int(Int64(totals.requests))))
        source.append(("fetched_bytes", .int(totals.bytes)))
        source.append(("retries", .int(Int64(totals.retries))))
        return [("source", .object(source))]
    }

    /// The version a plan is checked against: a URL's is its size (RemoteFile itself refuses a file that changes
    /// while it is read); a spool's, the spool's; a file's, its own.
    static func version(of path: String) -> FileVersion? {
        if let source = InputSources.byteSource(for: path) { return FileVersion(sizeBytes: source.sizeBytes, modifiedNanoseconds: 0) }
        return FileVersion.of(InputSources.window(for: path)?.diskPath ?? path)
    }
}

/// A RemoteFile as the engine's byte source, its errors in the engine's words.
final class RemoteBytes: InputByteSource {
    let file: RemoteFile
    init(file: RemoteFile) { self.file = file }
    var sizeBytes: Int64 { file.sizeBytes }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(MediaError) -> Int {
        do { return try file.read(into: buffer, at: offset) } catch { throw RemoteView.error(error) }
    }
}
