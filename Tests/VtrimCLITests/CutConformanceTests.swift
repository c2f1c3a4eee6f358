import Foundation
import TestSupport
import Testing

/// Copy cuts of every real-world file with video: the middle 40 % of each, checked as the fixtures are.
@Suite(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"))
struct CutConformanceTests {
    static let rows = ManifestRow.load().filter {
        $0["width"] != nil && ($0["format_duration_s"].flatMap(Double.init) ?? 0) > 0
            && ($0["format_duration_s"].flatMap(Double.init) ?? 0) < 400
    }

    @Test(arguments: rows)
    func copyCut(_ row: ManifestRow) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let duration = try #require(row["format_duration_s"].flatMap(Double.init))
        let start = String(format: "%.3f", duration * 0.3), end = String(format: "%.3f", duration * 0.7)
        // A file named for no container vtrim writes (an MPEG-PS `.m2v`) is cut to MP4, whose edit list hides the
        // lead-in as ffmpeg's cut leaves it out.
        let named = (row.file as NSString).pathExtension.lowercased()
        let ext = ["mp4", "mov", "m4v", "3gp", "3g2", "mkv", "webm", "ts", "m2ts", "mts", "avi"].contains(named) ? named : "mp4"
        let ours = folder.file("ours.\(ext)"), theirs = folder.file("ffmpeg.\(ext)")
        let result = try await Run.vtrim(["cut", "--json", row.path, "--start", start, "--end", end, "-o", ours])
        let object = try #require(result.jsonLines.first, "\(result)")
        let decodable = (row["decoded_video_frames"].flatMap(Int.init) ?? 0) > 0
        if let error = object["error"] as? [String: Any] {
            // Allowed only for files with nothing to cut from: no decodable frame, no codec id, or no
            // keyframe in the range. One stderr line, exit 1, nothing left behind.
            let code = error["code"] as? String ?? ""
            #expect(!decodable || code == "invalid_range", "\(row.file): \(error)")
            #expect(["decode_failed", "unsupported_codec", "invalid_range"].contains(code), "\(row.file): \(code)")
            #expect(result.status == 1 && result.stderrLines.filter { $0.hasPrefix("vtrim: error:") }.count == 1)
            #expect(folder.entries().isEmpty)
            return
        }
        #expect(result.status == 0, "\(result)")
        #expect(try await MediaFacts.firstVideoPacketIsKeyframe(ours), "\(row.file)")
        // The sanitized pass runs vtrim on every file; the normal pass compares what it wrote with FFmpeg's cut.
        guard !TestPaths.sanitized else { return }
        let reference = try await Run.tool("ffmpeg", ["-v", "error", "-ss", start, "-to", end, "-i", row.path, "-c", "copy", theirs])
        let sourceClean = row["damaged"] == "no"
        if sourceClean {
            // Decodes cleanly (also where ffmpeg's own copy cut does not, e.g. MPEG-TS with a cut GOP).
            #expect(try await MediaFacts.decodeErrors(ours, timingAsIn: row.path).isEmpty, "\(row.file)")
        }
        let ourFrames = try await MediaFacts.videoFrameCount(ours), theirFrames = try await MediaFacts.videoFrameCount(theirs)
        if sourceClean { #expect(ourFrames > 0, "\(row.file)") }
        // Only where ffmpeg's own cut holds frames to compare with.
        guard reference.status == 0, theirFrames > 0 else { return }
        // Within one frame of ffmpeg, or fewer where ffmpeg keeps frames past the end that nothing needs.
        // ffmpeg's copy of an MPEG program stream (PTS on some packets only) loses frames at its start: 57 where
        // the ideal cut of sample_mpeg2.m2v has 60, which vtrim writes.
        #expect(ourFrames <= theirFrames + 1 || row["container"] == "mpeg", "\(row.file): frames \(ourFrames) vs ffmpeg \(theirFrames)")
        #expect(ourFrames >= theirFrames - 3, "\(row.file): frames \(ourFrames) vs ffmpeg \(theirFrames)")
        if MediaFacts.gstreamerAvailable, ["mp4", "mov", "m4v"].contains(ext.lowercased()),
           let gst = try await MediaFacts.gstreamerDuration(ours) {
            let container = try await MediaFacts.formatDuration(ours)
            let fps = row["decoded_video_frames"].flatMap(Double.init).map { $0 / duration } ?? 30
            #expect(abs(gst - container) <= 1 / max(fps, 1) + 0.002, "\(row.file): GStreamer \(gst) s vs \(container) s")
        }
    }
}
