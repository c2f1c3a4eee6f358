import Foundation
import PropertyBased
import PropertySupport
import Testing
import WorkerProtocol

/// A worker's reply lines, written by one end and read by the other with the one type (`WorkerReply`).
@Suite struct WorkerReplyTests {
    /// Every kind of reply comes back as it was written, a result's members in their order (the API shows them).
    @Test func everyReplyReadsBackAsWritten() async throws {
        let report = JSON.object([("path", .string("a.mp4")), ("output", .string("a.cut.mp4")), ("mode", .string("smart")),
                                  ("duration", .number(6.5)), ("warnings", .array([]))])
        let replies: [WorkerReply] = [
            .accepted(id: 1), .progress(id: 2, 0.25), .result(id: 3, report), .result(id: 4, report, planned: "{\"ranges\":[],\"note\":\"quotes \\\" and \\\\ survive\"}"),
            .result(id: 5, report, mime: "video/mp4; codecs=\"avc1.640028\""), .failure(id: 6, report), .bytes(id: 7, count: 1234),
        ]
        for reply in replies {
            let line = reply.line()
            #expect(line.last == 0x0A)
            let read = try #require(WorkerReply(line: line.dropLast()))
            #expect(read == reply)
            #expect(read.result?.serialized == reply.result?.serialized, "members keep their order")
        }
        #expect(WorkerReply.failure(id: 1, .object([("error", .object([("message", .string("why"))]))])).failureMessage == "why")
    }

    /// A line that is not a reply (a worker that misbehaves) is nil, never a trap or a reply with a made-up id.
    @Test func anyLineIsAReplyOrNil() async {
        await propertyCheck(count: 1000, input: Wild.text, Wild.int64) { text, id in
            for line in [text, "{\"id\": \(id), \(text)", "{\"id\": \(id), \"bytes\": \(text)}", "{\"id\": \"\(text)\"}"] {
                if let reply = WorkerReply(line: Data(line.utf8)) {
                    #expect(Int64(reply.id) == id || line == text, "\(line) read as id \(reply.id)")
                }
            }
        }
    }
}
