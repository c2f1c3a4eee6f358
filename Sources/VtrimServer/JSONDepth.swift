/// How deep a JSON text's arrays and objects nest, counted on its bytes before it is decoded, so that a crafted body
/// (`[[[[…` a million deep) is refused without recursing through it. Strings are skipped, escapes included.
enum JSONDepth {
    static func fits(_ bytes: some Sequence<UInt8>, limit: Int) -> Bool {
        var depth = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return true
    }
}
