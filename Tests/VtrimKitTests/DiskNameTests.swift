import DiskNames
import Foundation
import LibraryFiles
import PropertyBased
import PropertySupport
import Testing
import TestSupport
import WorkerProtocol

/// Names on disk that are not UTF-8, carried in a String (`DiskName`): every byte string comes back as itself, people
/// see its odd bytes escaped, and the walk lists such a file under the name it has.
struct DiskNameTests {
    /// Bytes of names as they come: mostly ASCII, Latin-1 and UTF-8 pieces, stray continuation bytes, the carrying
    /// scalars' own UTF-8 (F4 8F BE/BF xx) and anything else; never NUL (no name holds one).
    static let pieces: [[UInt8]] = [
        [0x61], [0x2E], [0x2F], [0xE9], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x8E, 0xAC], [0x80], [0xBF], [0xC0, 0xAF],
        [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBE, 0xA9], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF], [0xFF],
    ]
    static let piece = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }
    static let name = zip(piece.array(of: 0...12), Gen.int(in: 1...255).map { UInt8($0) }.array(of: 0...6))
        .map { (pieces: [[UInt8]], noise: [UInt8]) -> [UInt8] in Array(pieces.joined()) + noise }

    @Test func everyByteStringRoundTrips() async {
        await propertyCheck(count: 2000, input: Self.name) { (bytes: [UInt8]) in
            Self.checkRoundTrip(bytes)
        }
    }

    static func checkRoundTrip(_ bytes: [UInt8]) {
        let carried = DiskName.string(bytes: bytes)
        #expect(DiskName.bytes(carried) == bytes, "\(bytes) → \(Array(carried.unicodeScalars))")
        // Names that are UTF-8 (without the carrying scalars) are carried as themselves.
        let text = String(validating: bytes, as: UTF8.self)
        let plain = text.map { !$0.unicodeScalars.contains(where: { $0.value >= 0x10FF80 }) } ?? false
        if plain {
            #expect(carried == text && !DiskName.hasEscapes(carried))
        } else {
            #expect(DiskName.hasEscapes(carried))
        }
        // What people see holds no carrying scalar; a JSON line stays JSON and reads back as the same text.
        let shown = DiskName.display(carried)
        #expect(!DiskName.hasEscapes(shown))
        let line = DiskName.displayInJSON(JSON.string(carried).serialized)
        let read = (try? JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed)) as? String
        #expect(read == shown, "\(line)")
        let terminated: [UInt8] = DiskName.withCString(carried) { pointer in
            (0..<bytes.count + 1).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(terminated == bytes + [0])
    }

    @Test(arguments: [
        (Array("caf".utf8) + [0xE9] + Array(".mp4".utf8), "caf\\xe9.mp4"),
        (Array("café.mp4".utf8), "café.mp4"),
        ([0xF4, 0x8F, 0xBE, 0x80], "\\xf4\\x8f\\xbe\\x80"),
        ([0x80, 0x41], "\\x80A"),
    ])
    func namesAreShownWithTheirOddBytesEscaped(bytes: [UInt8], shown: String) {
        #expect(DiskName.display(DiskName.string(bytes: bytes)) == shown)
    }

    /// `caf\xe9.mp4` from an old Samba share: walked, listed under its own bytes, and found again from that name.
    @Test func aWalkListsANameThatIsNotUTF8() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let name = DiskName.string(bytes: Array("caf".utf8) + [0xE9] + Array(".mp4".utf8))
        #expect(DiskFile.write([0, 0, 0, 8], to: folder.file(name)))
        let files = try InputWalker(recursive: true).expand([folder.path])
        #expect(files == [folder.file(name)])
        #expect(DiskFile.names(in: folder.path)?.map(DiskName.bytes) == [Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)])
        #expect(FileVersion.of(folder.file(name))?.sizeBytes == 4)
    }
}
