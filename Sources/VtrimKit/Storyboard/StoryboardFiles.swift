import Foundation

/// The index files of each storyboard format, from its plan and what was written. Pure text and bytes.
enum StoryboardFiles {
    /// Roku/Emby BIF v0: the magic, version 0, the image count, the interval in ms (the timestamps' multiplier),
    /// 44 reserved zero bytes, then N+1 little-endian (timestamp, offset) pairs — the last 0xFFFFFFFF and the end
    /// of the data — then the JPEGs. Nil when the data would pass 4 GiB (BIF's offsets are 32-bit).
    static func bif(images: [[UInt8]], intervalSeconds: Double) -> [UInt8]? {
        var bytes: [UInt8] = [0x89, 0x42, 0x49, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        let milliseconds = (intervalSeconds * 1000).rounded()
        guard milliseconds >= 1, milliseconds <= Double(UInt32.max) else { return nil }
        append(0)
        append(UInt32(images.count))
        append(UInt32(milliseconds))
        bytes += [UInt8](repeating: 0, count: 44)
        var offset = UInt64(64 + (images.count + 1) * 8)
        for (index, image) in images.enumerated() {
            guard offset <= UInt64(UInt32.max) else { return nil }
            append(UInt32(index))
            append(UInt32(offset))
            offset += UInt64(image.count)
        }
        guard offset <= UInt64(UInt32.max) else { return nil }
        append(0xFFFF_FFFF)
        append(UInt32(offset))
        for image in images { bytes += image }
        return bytes
    }

    /// The peak bits per second of the sheets: each sheet's size over the time it spans (HLS's BANDWIDTH, DASH's
    /// bandwidth, Jellyfin's TrickplayInfo.Bandwidth).
    static func bandwidth(sheetBytes: [Int], plan: StoryboardPlan) -> Int {
        sheetBytes.enumerated().map { index, size in
            let seconds = max(plan.intervalSeconds, plan.sheetDuration(index))
            return Int((Double(size) * 8 / seconds).rounded(.up))
        }.max() ?? 0
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
