import DiskNames
import Foundation
import TestSupport
import Testing

/// A file whose name is not UTF-8 (`caf\xe9.mp4`, Latin-1 from an old Samba share or a ZIP) is walked, probed and cut
/// like any other, named on the command line or found in a folder; reports show its odd byte escaped.
struct DiskNameCLITests {
    static let latin1Name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)

    @Test func aNameThatIsNotUTF8IsProbedAndCut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The shell makes the name from its bytes (a test's own arguments are UTF-8 strings).
        let made = try await Run.tool("sh", ["-c", "cp \"$0\" \"$1/$(printf 'caf\\351.mp4')\"", TestPaths.fixture("h264-aac.mp4"), folder.path])
        try #require(made.status == 0, "\(made)")

        let walked = try await Run.vtrim(["probe", "-r", "--json", folder.path])
        #expect(walked.status == 0, "\(walked)")
        #expect(walked.jsonLines.compactMap { $0["path"] as? String } == [folder.file("caf\\xe9.mp4")], "\(walked)")
        #expect((walked.jsonLines.first?["duration"] as? Double ?? 0) > 1, "\(walked)")

        // Named on the command line, as its bytes.
        let named = try await Run.tool("sh", ["-c", "exec \"$0\" probe --json \"$1/$(printf 'caf\\351.mp4')\"", TestPaths.vtrimBinary, folder.path])
        #expect(named.status == 0 && named.jsonLines.first?["error"] == nil, "\(named)")

        let cut = try await Run.vtrim(["cut", "-r", "--json", folder.path, "--start", "0.5", "--end", "1.5"])
        #expect(cut.status == 0, "\(cut)")
        #expect(cut.jsonLines.first?["output"] as? String == folder.file("caf\\xe9.cut.mp4"), "\(cut)")
        let names = Set(DiskFile.names(in: folder.path)?.map(DiskName.bytes) ?? [])
        #expect(names == [Self.latin1Name, Array("caf".utf8) + [0xE9] + Array(".cut.mp4".utf8)], "\(names)")
        let output = DiskName.string(bytes: Array("caf".utf8) + [0xE9] + Array(".cut.mp4".utf8))
        #expect((DiskFile.status(folder.file(output))?.st_size ?? 0) > 1000)
    }
}
