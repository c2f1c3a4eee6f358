import Foundation
@testable import MediaEngine
import TestSupport
import Testing

/// The waveform of a clip without pictures: each column's loudest sample, against ffmpeg's own decode of
/// the same audio (f32, every channel) binned the same way.
struct AudioPeaksTests {
    static func reference(_ path: String, start: Double, end: Double, columns: Int) async throws -> [Float] {
        let raw = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-acodec", "pcm_f32le", "-"])
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
                                             "-of", "csv=p=0", path])
        let fields = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard raw.status == 0, fields.count == 2 else { throw ReferenceError(message: raw.stderr + probe.stderr) }
        let (rate, channels) = (fields[0], fields[1])
        let samples = raw.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var peaks = [Float](repeating: 0, count: columns)
        for index in 0..<(samples.count / channels) {
            let seconds = Double(index) / Double(rate)
            guard seconds >= start, seconds < end else { continue }
            let column = min(columns - 1, Int((seconds - start) / (end - start) * Double(columns)))
            for channel in 0..<channels { peaks[column] = max(peaks[column], min(1, abs(samples[index * channels + channel]))) }
        }
        return peaks
    }

    @Test(arguments: ["audio-only.m4a", "h264-aac.mp4", "vp9-opus.webm"])
    func columnsHoldTheLoudestSampleOfTheirTime(_ file: String) async throws {
        let path = TestPaths.fixture(file)
        let (start, end, columns) = (0.5, 1.5, 40)
        let peaks = try AudioPeaks.read(path: path, startSeconds: start, endSeconds: end, columns: columns)
        let expected = try await Self.reference(path, start: start, end: end, columns: columns)
        #expect(peaks.count == columns)
        #expect(expected.contains { $0 > 0.01 }, "the reference is silent")
        // Columns at a boundary may take a sample more or less (priming, timestamps); nearly all agree.
        let close = zip(peaks, expected).filter { abs($0 - $1) < 0.02 }.count
        #expect(close >= columns - 2, "\(peaks) vs \(expected)")
    }

    @Test func pastTheEndIsSilenceAndNoRangeIsRefused() async throws {
        let path = TestPaths.fixture("audio-only.m4a")
        let peaks = try AudioPeaks.read(path: path, startSeconds: 10, endSeconds: 11, columns: 8)
        #expect(peaks == [Float](repeating: 0, count: 8))
        #expect(throws: MediaError.self) { try AudioPeaks.read(path: path, startSeconds: 1, endSeconds: 1, columns: 8) }
        #expect(throws: MediaError.self) { try AudioPeaks.read(path: path, startSeconds: 0, endSeconds: 1, columns: 0) }
        #expect(throws: MediaError.self) { try AudioPeaks.read(path: TestPaths.fixture("not-video.mp4"), startSeconds: 0, endSeconds: 1, columns: 8) }
    }
}
