import Foundation
import LibraryFiles
import Testing
import TestSupport
@testable import VtrimKit

struct OutputNamingTests {
    @Test(arguments: [
        (OutputChoice.besideInput, "clips/a.b.mp4", ".thumbs.png", "clips/a.b.thumbs.png"),
        (OutputChoice.besideInput, "clip", ".cut.mp4", "clip.cut.mp4"),
        (OutputChoice.besideInput, "dir.x/.hidden", ".thumbs.png", "dir.x/.hidden.thumbs.png"),
        (OutputChoice.file("/tmp/o.png"), "clips/a.mp4", ".thumbs.png", "/tmp/o.png"),
        (OutputChoice.folder("out"), "clips/a.mp4", ".thumbs.png", "out/a.thumbs.png"),
        (OutputChoice.folder("out/"), "a.MOV", ".cut.MOV", "out/a.cut.MOV"),
    ])
    func outputPaths(_ choice: OutputChoice, _ input: String, _ suffix: String, _ expected: String) async {
        #expect(choice.path(for: input, suffix: suffix) == expected)
    }

    /// One left-to-right pass: a value is never scanned again, whatever order the values come in.
    @Test(arguments: [
        ("{stem}-{index}", "a{index}", "a{index}-3"),
        ("{index}{stem}", "{end}", "3{end}"),
        ("{stem}.{ext}", "x", "x.mp4"),
        ("{{stem}}", "x", "{x}"),
        ("{stem", "x", "{stem"),
        ("{unknown}-{stem}", "x", "{unknown}-x"),
        ("}{stem}{", "x", "}x{"),
    ])
    func templatesAreFilledInOnePass(_ template: String, _ stem: String, _ expected: String) async {
        for _ in 0..<20 {
            #expect(OutputNamer.fill(template, ["stem": stem, "index": "3", "ext": "mp4", "end": "9"]) == expected)
        }
    }

    @Test func cutKeepsTheInputExtension() async {
        #expect(CutRequest.suffix(for: "a/b.MKV") == ".cut.MKV")
        #expect(CutRequest.suffix(for: "noext") == ".cut.mp4")
    }

    @Test func temporaryNamesAreHiddenMarkedAndKeepTheExtension() async {
        let target = OutputTarget(path: "/tmp/out/clip.cut.mp4", overwrite: false)
        let temporary = target.temporaryPath()
        let name = (temporary as NSString).lastPathComponent
        #expect(temporary.hasPrefix("/tmp/out/.clip.cut" + OutputTarget.temporaryMarker))
        #expect(name.hasSuffix(".mp4"))
        #expect(target.temporaryPath() != temporary)
    }

    @Test func sameFileThroughSymlinksAndSpellings() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.file("a.mp4")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.mp4"), withDestinationPath: file)
        #expect(OutputTarget.sameFile(file, folder.file("link.mp4")))
        #expect(OutputTarget.sameFile(file, folder.path + "/./a.mp4"))
        #expect(OutputTarget.sameFile(file, folder.path + "/sub/../a.mp4"))
        #expect(!OutputTarget.sameFile(file, folder.file("b.mp4")))
    }
}
