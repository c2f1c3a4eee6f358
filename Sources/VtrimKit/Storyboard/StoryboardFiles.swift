import DiskNames
import Foundation
import MediaEngine

/// The index files of each storyboard format, from its plan and what was written. Pure text and bytes.
enum StoryboardFiles {
    /// Roku/Emby BIF v0's header and index: the magic, version 0, the image count, the interval in ms (the
    /// timestamps' multiplier), 44 reserved zero bytes, then N+1 little-endian (timestamp, offset) pairs — the last
    /// 0xFFFFFFFF and the end of the data. `ends`: where each image ends; nil when an offset passes 4 GiB (BIF's
    /// offsets are 32-bit) or the interval is not a whole number of milliseconds from 1 to 2^32−1.
    static func bifHeader(imageEnds ends: [UInt64], intervalSeconds: Double) -> [UInt8]? {
        var bytes: [UInt8] = [0x89, 0x42, 0x49, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        let milliseconds = (intervalSeconds * 1000).rounded()
        guard milliseconds.isFinite, milliseconds >= 1, milliseconds <= Double(UInt32.max), ends.count < Int(UInt32.max) else { return nil }
        append(0)
        append(UInt32(ends.count))
        append(UInt32(milliseconds))
        bytes += [UInt8](repeating: 0, count: 44)
        var offset = bifHeaderSize(count: ends.count)
        for (index, end) in ends.enumerated() {
            guard offset <= UInt64(UInt32.max) else { return nil }
            append(UInt32(index))
            append(UInt32(offset))
            offset = end
        }
        guard offset <= UInt64(UInt32.max) else { return nil }
        append(0xFFFF_FFFF)
        append(UInt32(offset))
        return bytes
    }

    static func bifHeaderSize(count: Int) -> UInt64 { 64 + UInt64(count + 1) * 8 }

    /// The peak bits per second of the sheets: each sheet's size over the time it spans (HLS's BANDWIDTH, DASH's
    /// bandwidth, Jellyfin's TrickplayInfo.Bandwidth).
    static func bandwidth(sheetBytes: [Int], plan: StoryboardPlan) -> Int {
        sheetBytes.enumerated().map { index, size in
            let seconds = max(plan.intervalSeconds, plan.sheetDuration(index))
            return Int((Double(size) * 8 / seconds).rounded(.up))
        }.max() ?? 0
    }

    /// The index files beside a folder format's sheets (name, text): HLS's playlists, DASH's adaptation set; none for
    /// Jellyfin (its server keeps the index) and BIF (one file).
    static func indexFiles(plan: StoryboardPlan, bandwidth: Int) -> [(name: String, text: String)] {
        switch plan.format {
        case .hls:
            return [("index.m3u8", hlsPlaylist(plan: plan)),
                    ("image-stream.m3u8", hlsStreamInf(plan: plan, bandwidth: bandwidth, uri: "index.m3u8"))]
        case .dash:
            return [("thumbnails.mpd", dashAdaptationSet(plan: plan, bandwidth: bandwidth))]
        case .jellyfin, .bif:
            return []
        }
    }

    /// An HLS image media playlist (Roku's and Apple's image-track form): one EXTINF per sheet, the last shorter.
    static func hlsPlaylist(plan: StoryboardPlan) -> String {
        let target = Int((plan.sheetSeconds).rounded(.up))
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-VERSION:7", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-IMAGES-ONLY"]
        for (index, name) in plan.sheetNames.enumerated() {
            lines.append("#EXTINF:\(String(format: "%.3f", plan.sheetDuration(index))),")
            lines.append("#EXT-X-TILES:RESOLUTION=\(plan.thumbnailWidth)x\(plan.thumbnailHeight),LAYOUT=\(plan.columns)x\(plan.rows),DURATION=\(String(format: "%.3f", plan.intervalSeconds))")
            lines.append(name)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The line a master playlist adds for the image stream (`uri`: the playlist, relative to where the line is;
    /// RESOLUTION is a thumbnail's, as in Roku's and the image-playlist specification's examples).
    static func hlsStreamInf(plan: StoryboardPlan, bandwidth: Int, uri: String) -> String {
        "#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(plan.thumbnailWidth)x\(plan.thumbnailHeight),CODECS=\"jpeg\",URI=\"\(uri)\"\n"
    }

    /// The DASH thumbnail AdaptationSet (DASH-IF IOP 6.2.6): a SegmentTemplate over the sheets, one per
    /// `columns × rows × interval`, each the tile grid the EssentialProperty names.
    static func dashAdaptationSet(plan: StoryboardPlan, bandwidth: Int) -> String {
        let duration = Int((plan.sheetSeconds * 1000).rounded())
        return """
        <AdaptationSet id="thumbnails" contentType="image" mimeType="image/jpeg">
          <SegmentTemplate media="$Number$.jpg" timescale="1000" duration="\(duration)" startNumber="0"/>
          <Representation id="thumbnails-\(plan.thumbnailWidth)" bandwidth="\(bandwidth)" width="\(plan.sheetWidth)" height="\(plan.sheetHeight)">
            <EssentialProperty schemeIdUri="http://dashif.org/guidelines/thumbnail_tile" value="\(plan.columns)x\(plan.rows)"/>
          </Representation>
        </AdaptationSet>

        """
    }
}

/// A BIF file written as it is made: the header and index's room left at the start, each JPEG appended as it is
/// encoded (none held in memory), the header and index written over that room last.
struct BIFWriter {
    private let path: String
    private let input: String
    private let handle: FileHandle
    private let count: Int
    private let intervalSeconds: Double
    private var ends: [UInt64] = []
    private var written: UInt64

    init(path: String, count: Int, intervalSeconds: Double, input: String) throws(MediaError) {
        guard DiskFile.write([UInt8](repeating: 0, count: Int(StoryboardFiles.bifHeaderSize(count: count))), to: path) else {
            throw MediaError(.writeFailed, path: input, operation: "write", reason: "cannot write \(path)")
        }
        let descriptor = DiskFile.open(path, O_WRONLY)
        guard descriptor >= 0 else { throw MediaError(.writeFailed, path: input, operation: "open", reason: "cannot write \(path)") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.path = path
        self.input = input
        self.handle = handle
        self.count = count
        self.intervalSeconds = intervalSeconds
        written = StoryboardFiles.bifHeaderSize(count: count)
        handle.seekToEndOfFile()
    }

    /// Appends one JPEG; refused once the file would pass BIF's 4 GiB.
    mutating func append(_ jpeg: [UInt8]) throws(MediaError) {
        written += UInt64(jpeg.count)
        guard written <= UInt64(UInt32.max) else {
            throw MediaError(.tooLarge, path: input, operation: "bif", reason: "the BIF file would pass 4 GiB (its offsets are 32-bit); use a larger --every or a smaller --width")
        }
        do { try handle.write(contentsOf: Data(jpeg)) } catch {
            throw MediaError(.writeFailed, path: input, operation: "write", reason: "cannot write \(path) (\(error.localizedDescription))")
        }
        ends.append(written)
    }

    /// Writes the header and index and closes the file; its size in bytes.
    func finish() throws(MediaError) -> Int {
        guard ends.count == count, let header = StoryboardFiles.bifHeader(imageEnds: ends, intervalSeconds: intervalSeconds) else {
            throw MediaError(.tooLarge, path: input, operation: "bif", reason: "the BIF file cannot index its \(ends.count) thumbnails (4 GiB at most, an interval of 1 ms to 49 days)")
        }
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(header))
            try handle.close()
        } catch {
            throw MediaError(.writeFailed, path: input, operation: "write", reason: "cannot write \(path) (\(error.localizedDescription))")
        }
        return Int(written)
    }
}
