import Testing
import WorkerProtocol
@testable import VtrimKit

struct JSONTests {
    @Test(arguments: [
        (JSON.number(2), "2"),
        (JSON.number(0.1), "0.1"),
        (JSON.number(1.0 / 3), "0.3333333333333333"),
        (JSON.number(-0.5), "-0.5"),
        (JSON.number(.nan), "null"),
        (JSON.number(.infinity), "null"),
        (JSON.int(-7), "-7"),
        (JSON.string("a\"b\\c\nd\u{1}"), #""a\"b\\c\nd\u0001""#),
        (JSON.string("ünïcode ✓"), "\"ünïcode ✓\""),
        (JSON.null, "null"),
        (JSON.bool(true), "true"),
    ])
    func serializes(_ value: JSON, _ text: String) async {
        #expect(value.serialized == text)
    }

    @Test func objectsKeepKeyOrder() async {
        let object = JSON.object([("path", .string("x")), ("b", .array([.int(1), .null])), ("a", .object([]))])
        #expect(object.serialized == #"{"path":"x","b":[1,null],"a":{}}"#)
    }
}
