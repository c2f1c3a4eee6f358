import Foundation

/// Bytes a plan carries (parameter sets, a stream's x264 SEI, an AV1 sequence header) written into its JSON as one
/// base64 string rather than an array of numbers, which took four times the room.
@propertyWrapper
public struct Base64Bytes: Sendable, Equatable, Hashable, Codable {
    public var wrappedValue: [UInt8]

    public init(wrappedValue: [UInt8]) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Swift.Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
        }
        wrappedValue = [UInt8](data)
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(wrappedValue).base64EncodedString())
    }
}

/// `Base64Bytes` for bytes a plan may not have: absent from the JSON when nil.
@propertyWrapper
public struct OptionalBase64Bytes: Sendable, Equatable, Hashable, Codable {
    public var wrappedValue: [UInt8]?

    public init(wrappedValue: [UInt8]?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try Base64Bytes(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        if let wrappedValue { try Base64Bytes(wrappedValue: wrappedValue).encode(to: encoder) } else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is nil bytes (the synthesised decoder would ask for the wrapper itself and fail).
    public func decode(_ type: OptionalBase64Bytes.Type, forKey key: Key) throws -> OptionalBase64Bytes {
        try decodeIfPresent(type, forKey: key) ?? OptionalBase64Bytes(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// Nil bytes leave the key out.
    public mutating func encode(_ value: OptionalBase64Bytes, forKey key: Key) throws {
        if value.wrappedValue != nil { try encodeIfPresent(value, forKey: key) }
    }
}
