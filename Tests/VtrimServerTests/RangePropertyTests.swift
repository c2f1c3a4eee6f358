import Foundation
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

/// A request body's nesting, counted before it is decoded: any text gets an answer, and the answer is the depth of
/// its brackets outside strings — deeper than the limit is refused, never recursed through.
@Suite struct BodyDepthPropertyTests {
    @Test func anyBodyIsMeasuredWithoutDecoding() async {
        await propertyCheck(count: 1000, input: Wild.text, Gen.int(in: 0...40), Gen.int(in: 1...20)) { text, depth, limit in
            let nested = String(repeating: "[", count: depth) + "\"" + text.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: "")
                + "[[[\"" + String(repeating: "]", count: depth)
            #expect(JSONDepth.fits(Array(nested.utf8), limit: limit) == (depth <= limit), "\(depth) deep, limit \(limit)")
        }
        #expect(!JSONDepth.fits(Array(String(repeating: "[", count: 1_000_000).utf8), limit: API.maximumDepth))
        #expect(JSONDepth.fits(Array("{\"a\": \"[[[[[[[[[[[[[[[[[[\\\"[[[[[\"}".utf8), limit: 2))
    }
}

/// A cut's owner as the state database holds it (a file on disk like any other): any text reads as an owner or as
/// none, never a trap; every owner this vtrim writes reads back as itself, and any pid or start time the text holds
/// is a positive pid and a tick count, whatever the numbers.
@Suite struct ServerOwnerPropertyTests {
    @Test func anyStoredOwnerReadsBackOrIsNone() async {
        await propertyCheck(count: 1000, input: Wild.text, Wild.int64, Wild.int64, Gen.int(in: 0...2)) { text, pid, ticks, shape in
            let stored = shape == 0 ? text : shape == 1 ? "host boot \(pid) \(ticks)" : "\(text) \(text) \(pid) \(ticks)"
            if let owner = ServerProcess(stored: stored) {
                #expect(owner.pid > 0 && ServerProcess(stored: owner.stored) == owner, "\(stored)")
            }
        }
        let me = ServerProcess.current
        #expect(me.map { ServerProcess(stored: $0.stored) == $0 } ?? false)
    }
}
