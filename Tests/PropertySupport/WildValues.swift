import PropertyBased

/// Values a file, a list or a request can hold, for the property tests of every function that takes one: the edge
/// cases (0, negatives, subnormals, 1e-300, 1e300, NaN, ±infinity, Int64.min/max) half of the time, arbitrary
/// values the other half.
public enum Wild {
    public static let specialDoubles: [Double] = [
        0, -0.0, 1, -1, 0.5, 2.5, 1e-300, -1e-300, 1e300, -1e300, .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9.223372036854775e18,
        -9.223372036854775e18, 4.9e-324, 1e-7, 86_400, 360_000, 0.3, 29.97, 30000.0 / 1001,
    ]

    public static let specialInt64s: [Int64] = [
        0, 1, -1, 2, .min, .max, .min + 1, .max - 1, Int64(Int32.min), Int64(Int32.max), Int64(UInt32.max), 1_000_000, -1_000_000,
        90_000, 1 << 62, -(1 << 62),
    ]

    /// Any double: a special one, a small or a huge one, of either sign.
    public static let double = zip(Gen.int(in: 0...3), Gen.element(of: specialDoubles), Gen.double(in: -1e6...1e6),
                                   Gen.int(in: -1074...1023), Gen.double(in: 1..<2), Gen.bool)
        .map { pick, special, small, exponent, significand, negative -> Double in
            switch pick {
            case 0, 1: return special ?? 0
            case 2: return small
            default: return Double(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
            }
        }

    /// Any Int64: a special one or any other.
    public static let int64 = zip(Gen.bool, Gen.element(of: specialInt64s), Gen.int64())
        .map { special, value, any in special ? value ?? 0 : any }

    /// Any Int (as Int64 on this platform).
    public static let int = int64.map { Int($0) }

    /// Text made of the pieces lists and times are made of — digits, separators, signs, exponents, words, quotes,
    /// line breaks, timecodes, a stray byte — in any order.
    public static let text = Gen.element(of: [
        "0", "1", "9", "59", "99", "-", "+", ".", ",", ":", ";", "e", "E", "1e300", "-1e-300", "nan", "inf", "end", "end-5",
        "\n", "\r\n", "\"", "\"\"", " ", "\t", "#", "..", "00:00:01:00", "23:59:59:29", "99:99:99:99", "10:00:00;02",
        "001  AX V C ", "* FROM CLIP NAME: ", "FCM: DROP FRAME\n", "{", "}", "[", "]", "cutSegments", "start", "label",
        "OTIO_SCHEMA", "é", "\u{0}", "\u{FEFF}", "9223372036854775807", "-9223372036854775808", "0x10",
    ]).map { $0 ?? "" }.array(of: 0...40).map { $0.joined() }
}
