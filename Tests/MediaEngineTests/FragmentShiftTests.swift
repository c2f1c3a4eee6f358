import Foundation
@testable import MediaEngine
import PropertyBased
import PropertySupport
import Testing

/// A manifest cut's fMP4 edges read the source's own fragments: the init section before its first `moof`, and each
/// track's stored decode time (`tfdt`). What a spool holds comes from a server: any bytes give a layout or a typed error.
struct FragmentShiftTests {
    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)] }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }

    static func scratch(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fragments-\(UUID().uuidString).mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Boxes of the kinds the layout reads, with sizes a file may claim (too small, past the end, 64-bit) and payloads
    /// of any bytes: `layout` and `firstSamplesPastTheEnd` return or throw, never trap or read past the bytes.
    @Test func anyBoxesGiveALayoutOrAnError() async throws {
        let typeNames = ["ftyp", "moov", "moof", "traf", "tfhd", "tfdt", "trun", "mdat", "styp", "sidx", "free"]
        let sizeValues: [UInt32] = [0, 1, 7, 8, 16, 24, 0x7FFF_FFFF, 0xFFFF_FFFF]
        let types = Gen.int(in: 0...(typeNames.count - 1)).map { typeNames[$0] }
        let sizes = Gen.int(in: 0...(sizeValues.count - 1)).map { sizeValues[$0] }
        let payload = Gen.int(in: 0...255).map { UInt8($0) }.array(of: 0...40)
        let one = zip(types, sizes, Gen.bool, payload).map { (type: String, size: UInt32, honest: Bool, bytes: [UInt8]) -> [UInt8] in
            honest ? Self.box(type, bytes) : Self.u32(size) + Array(type.utf8) + bytes
        }
        await propertyCheck(count: 150, input: one.array(of: 0...8)) { boxes in
            guard let path = try? Self.scratch(boxes.flatMap { $0 }) else { return }
            defer { unlink(path) }
            do throws(MediaError) {
                let layout = try FragmentShift.layout(of: path, name: "spool")
                #expect(!layout.initBytes.isEmpty && !layout.storedMinusRead.isEmpty)
            } catch {
                #expect(!error.reason.isEmpty && error.path == "spool")
            }
            _ = try? StreamOpening.firstSamplesPastTheEnd(path: path)
        }
    }

    /// A fragment header without an init section before it is refused, saying so.
    @Test func aFragmentWithoutAnInitSectionIsRefused() throws {
        let traf = Self.box("traf", Self.box("tfhd", [0, 2, 0, 0] + Self.u32(1)) + Self.box("tfdt", [1, 0, 0, 0] + Self.u32(0) + Self.u32(512)))
        let path = try Self.scratch(Self.box("moof", Self.box("mfhd", Self.u32(0) + Self.u32(1)) + traf) + Self.box("mdat", [0, 0, 0, 1]))
        defer { unlink(path) }
        #expect(throws: MediaError.self) { try FragmentShift.layout(of: path, name: "spool") }
    }
}
