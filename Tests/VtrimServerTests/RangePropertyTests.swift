import PropertyBased
import PropertySupport
import Testing
@testable import VtrimServer

/// A `Range` header from any client, for a file of any size: the whole file, a range inside it, or unsatisfiable —
/// never a trap (a trap ends the run, failing it) and never a range outside the file.
@Suite struct RangePropertyTests {
    static let header = zip(Gen.element(of: ["bytes=", "bytes= ", "items=", ""]), Wild.int64, Wild.int64, Gen.int(in: 0...4), Wild.text)
        .map { prefix, first, last, shape, text -> String in
            let prefix = prefix ?? "bytes="
            switch shape {
            case 0: return prefix + "\(first)-\(last)"
            case 1: return prefix + "\(first)-"
            case 2: return prefix + "-\(last)"
            case 3: return prefix + "\(first)-\(last),\(last)-"
            default: return prefix + text
            }
        }

    @Test func anyRangeHeaderFitsTheFile() async {
        await propertyCheck(count: 1000, input: Self.header, Wild.int64) { header, size in
            if case let .range(bytes) = FileResponses.parseRange(header, size: size) {
                #expect(bytes.lowerBound >= 0 && bytes.upperBound < size, "\(header) on \(size) bytes gave \(bytes)")
            }
        }
    }
}
