import Foundation
import Testing
import WorkerProtocol
@testable import VtrimKit

/// The serve worker's replies are read back with `JSON(parsing:)`: member order kept, integers as
/// integers, every escape, and hostile text refused rather than trusted.
struct JSONParsingTests {
    @Test func roundTripKeepsOrderAndKinds() async throws {
        let value = JSON.object([
            ("path", .string("a \"quoted\" \\ path\n\t\u{1}é😀")), ("zeta", .int(-9_223_372_036_854_775_808)), ("alpha", .number(0.1)),
            ("list", .array([.null, .bool(true), .bool(false), .int(0), .number(1.5e-7), .object([])])), ("big", .int(Int64.max)),
        ])
        let parsed = try JSON(parsing: value.serialized)
        #expect(parsed == value)
        #expect(parsed.serialized == value.serialized)
    }

    /// A whole double is written without a fraction and reads back as an integer: still the same number (the property
    /// test found "-1e-3001": -0.0, written "0", read back as the integer 0, was unequal).
    @Test(arguments: ["5.0", "-1e-3001", "1e2", "-0.0", "9007199254740992.0"])
    func wholeDoublesRoundTripAsTheSameNumber(text: String) async throws {
        let value = try JSON(parsing: text)
        #expect(try JSON(parsing: value.serialized) == value, "\(text) → \(value.serialized)")
        #expect(JSON.number(0.5) != .int(0) && JSON.number(9.3e18) != .int(Int64.max))
    }

    @Test(arguments: ["{\"a\":1", "[1,]", "{\"a\" 1}", "\"\\x\"", "01x", "nul", "{\"a\":1}x", "\"\u{1}\"", "", "-", "1e999"])
    func malformedTextIsRefused(text: String) async {
        #expect(throws: JSON.ParseError.self) { try JSON(parsing: text) }
    }

    @Test func deepNestingIsRefusedNotACrash() async {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSON.ParseError.self) { try JSON(parsing: deep) }
    }

    @Test func surrogatePairsAndMembers() async throws {
        let parsed = try JSON(parsing: "{\"s\":\"\\ud83d\\ude00\",\"n\":2.5}")
        #expect(parsed.member("s") == .string("😀"))
        #expect(parsed.member("n") == .number(2.5))
        #expect(parsed.member("missing") == nil)
    }
}
