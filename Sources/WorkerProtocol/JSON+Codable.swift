import Foundation

/// JSON values inside Codable messages (a plan carried back to the worker that writes it). Decoding reads an
/// object's members in whatever order the decoder gives: what is carried this way is read by key, not shown.
extension JSON: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case let .bool(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .int(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .number(value):
            var container = encoder.singleValueContainer()
            // Not a number is not JSON: as `serialized` writes it.
            if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case let .string(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .array(values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case let .object(members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = .object(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(JSON.self, forKey: $0)) })
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var values: [JSON] = []
            while !unkeyed.isAtEnd { values.append(try unkeyed.decode(JSON.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

extension JSON {
    /// A Codable value as a JSON value (how a plan travels inside a message, both ways): with `decoded(as:)`, the
    /// one encoding between the worker that plans and the one that writes.
    public init<Value: Encodable>(encoding value: Value) throws {
        self = try JSON(parsing: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// The Codable value this JSON value encodes.
    public func decoded<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(serialized.utf8))
    }
}
