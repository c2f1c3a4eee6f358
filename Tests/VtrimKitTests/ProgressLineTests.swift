import PropertyBased
import PropertySupport
import Testing
@testable import VtrimKit

/// The terminal's progress line: the run's figure, the files running, the bytes URLs fetched, the time left.
@Suite struct ProgressLineTests {
    @Test(arguments: [
        (1, 4, 0.5, ["a.mp4"], 0.5, Int64(0), "[1/4] 50% a.mp4"),
        (0, 1, 0.25, ["https://example.com/v.m3u8"], 10.0, Int64(5 << 20),
         "[0/1] 25% https://example.com/v.m3u8 · 5.0 MiB fetched, 512.0 KiB/s · ETA 0:30"),
        (2, 9, 0.01, ["a", "b", "c", "d", "e"], 3.0, Int64(900), "[2/9] 1% a, b, c +2 · 900 bytes fetched, 300 bytes/s"),
        (0, 1, 0.5, [], 0.2, Int64(3 << 30), "[0/1] 50% · 3.00 GiB fetched"),
    ])
    func lines(done: Int, total: Int, fraction: Double, running: [String], elapsed: Double, bytes: Int64, expected: String) {
        #expect(ProgressLine.text(done: done, total: total, fraction: fraction, running: running, elapsedSeconds: elapsed,
                                  fetchedBytes: bytes) == expected)
    }

    /// Any counts, fraction, time and bytes give a line (a trap ends the run, failing it), its percent within 0–100.
    @Test func anyFiguresGiveALine() async {
        await propertyCheck(count: 1000, input: Wild.int, Wild.double, Wild.double, Wild.int64) { done, fraction, elapsed, bytes in
            let line = ProgressLine.text(done: done, total: 1, fraction: fraction, running: ["x"], elapsedSeconds: elapsed, fetchedBytes: bytes)
            let percent = line.split(separator: " ").dropFirst().first.flatMap { Int($0.dropLast()) }
            #expect(percent.map { (0...100).contains($0) } == true, "\(line)")
        }
    }
}
