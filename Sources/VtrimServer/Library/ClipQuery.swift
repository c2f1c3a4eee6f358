import Foundation

/// What `GET /api/clips` asks for, validated where it enters: the page (`after` a cursor or at an `offset`),
/// its size, the order, the text searched for and the filters on probed facts. Every value comes from a request,
/// so parsing returns a query or the 400's reason, never traps.
struct ClipQuery: Sendable, Equatable {
    enum Sort: String, Sendable, CaseIterable {
        /// The relative path (folders first by name, then the file).
        case path
        /// The file's name, then its path.
        case name
        /// The modification time.
        case date
        case size
        /// Clips not yet probed (or unreadable) come last, whatever the order.
        case duration
    }

    enum Order: String, Sendable, CaseIterable { case asc, desc }

    /// The filters that only probed clips can pass.
    struct Filters: Sendable, Equatable, Hashable {
        var hasVideo: Bool?
        var codec: String?
        var minimumSeconds: Double?
        var maximumSeconds: Double?

        var isEmpty: Bool { hasVideo == nil && codec == nil && minimumSeconds == nil && maximumSeconds == nil }
    }

    static let maximumLimit = 500
    static let defaultLimit = 100
    static let maximumSearchCharacters = 200

    var sort: Sort = .path
    var order: Order = .asc
    var limit = ClipQuery.defaultLimit
    /// Lower-cased; matched against the relative path.
    var search = ""
    var filters = Filters()
    var after: ClipCursor?
    var offset: Int?

    /// The query the parameters make, or why they make none.
    static func parse(_ parameters: [String: String]) -> Result<ClipQuery, Problem> {
        var query = ClipQuery()
        let known: Set<String> = ["after", "offset", "limit", "sort", "order", "q", "video", "codec", "min_duration", "max_duration"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            return .failure(Problem("unknown parameter \(unknown.prefix(40)); give \(known.sorted().joined(separator: ", "))"))
        }
        if let text = parameters["sort"] {
            guard let sort = Sort(rawValue: text) else {
                return .failure(Problem("sort is one of \(Sort.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
            query.sort = sort
        }
        if let text = parameters["order"] {
            guard let order = Order(rawValue: text) else { return .failure(Problem("order is asc or desc")) }
            query.order = order
        }
        if let text = parameters["limit"] {
            guard text.count <= 12, let limit = Int(text), (1...maximumLimit).contains(limit) else {
                return .failure(Problem("limit is a whole number from 1 to \(maximumLimit)"))
            }
            query.limit = limit
        }
        if let text = parameters["q"] {
            guard text.count <= maximumSearchCharacters else { return .failure(Problem("q is at most \(maximumSearchCharacters) characters")) }
            query.search = text.lowercased()
        }
        if let text = parameters["video"] {
            switch text {
            case "1", "true": query.filters.hasVideo = true
            case "0", "false": query.filters.hasVideo = false
            default: return .failure(Problem("video is 1 (clips with a picture) or 0 (sound only)"))
            }
        }
        if let text = parameters["codec"] {
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
            let lowered = text.lowercased()
            guard (1...32).contains(lowered.count), lowered.allSatisfy({ allowed.contains($0) }) else {
                return .failure(Problem("codec is a codec's name as probe gives it (h264, hevc, vp9, …)"))
            }
            query.filters.codec = lowered
        }
        for (name, keyPath) in [("min_duration", \Filters.minimumSeconds), ("max_duration", \Filters.maximumSeconds)] {
            guard let text = parameters[name] else { continue }
            guard text.count <= 24, let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 1e9 else {
                return .failure(Problem("\(name) is seconds from 0 to 10⁹"))
            }
            query.filters[keyPath: keyPath] = seconds
        }
        if let minimum = query.filters.minimumSeconds, let maximum = query.filters.maximumSeconds, minimum > maximum {
            return .failure(Problem("min_duration is more than max_duration"))
        }
        if parameters["after"] != nil, parameters["offset"] != nil { return .failure(Problem("give after or offset, not both")) }
        if let text = parameters["offset"] {
            guard text.count <= 12, let offset = Int(text), offset >= 0 else { return .failure(Problem("offset is a whole number from 0")) }
            query.offset = offset
        }
        if let text = parameters["after"] {
            guard let cursor = ClipCursor(text) else {
                return .failure(Problem("after is not a cursor this server gave (use the `next` of the page before)"))
            }
            guard cursor.sort == query.sort, cursor.order == query.order else {
                return .failure(Problem("the cursor belongs to a listing by \(cursor.sort.rawValue) \(cursor.order.rawValue), not \(query.sort.rawValue) \(query.order.rawValue)"))
            }
            query.after = cursor
        }
        return .success(query)
    }

    struct Problem: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

/// A clip's value under a sort: text compares bytewise on the lower-cased UTF-8, numbers numerically, and a
/// missing value (a duration not probed yet) after every present one in either order.
enum SortValue: Sendable, Equatable {
    case text([UInt8])
    case integer(Int64)
    case number(Double)
    case missing

    /// Whether (self, id) comes before (other, otherID) in `order`; ids break ties, so the order is total.
    func precedes(_ other: SortValue, id: String, otherID: String, order: ClipQuery.Order) -> Bool {
        let ascending = order == .asc
        switch (self, other) {
        case (.missing, .missing): break
        case (.missing, _): return false
        case (_, .missing): return true
        case let (.text(a), .text(b)):
            if a != b { return ascending ? a.lexicographicallyPrecedes(b) : b.lexicographicallyPrecedes(a) }
        case let (.integer(a), .integer(b)):
            if a != b { return ascending ? a < b : b < a }
        case let (.number(a), .number(b)):
            if a != b { return ascending ? a < b : b < a }
        default:
            // Values of different sorts never meet (a cursor is checked against its sort); order them anyway.
            return ascending ? rank < other.rank : other.rank < rank
        }
        return ascending ? id.utf8.lexicographicallyPrecedes(otherID.utf8) : otherID.utf8.lexicographicallyPrecedes(id.utf8)
    }

    private var rank: Int {
        switch self {
        case .text: return 0
        case .integer: return 1
        case .number: return 2
        case .missing: return 3
        }
    }
}

/// Where a page ended: the sort, the order, the last item's value and id. Opaque to the client (`c1.` and
/// base64url); a string that does not decode to one is refused, never guessed at.
struct ClipCursor: Sendable, Equatable {
    let sort: ClipQuery.Sort
    let order: ClipQuery.Order
    let value: SortValue
    let id: String

    init(sort: ClipQuery.Sort, order: ClipQuery.Order, value: SortValue, id: String) {
        self.sort = sort
        self.order = order
        self.value = value
        self.id = id
    }

    var text: String {
        let valueText: String
        switch value {
        case let .text(bytes): valueText = "t" + bytes.map { String(format: "%02x", $0) }.joined()
        case let .integer(number): valueText = "i\(number)"
        case let .number(number): valueText = "n\(number.bitPattern)"
        case .missing: valueText = "m"
        }
        let plain = [sort.rawValue, order.rawValue, valueText, id].joined(separator: ",")
        let encoded = Data(plain.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "c1." + encoded
    }

    init?(_ text: String) {
        guard text.hasPrefix("c1."), text.count <= 8192 else { return nil }
        var body = String(text.dropFirst(3)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard body.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }) else { return nil }
        while body.count % 4 != 0 { body += "=" }
        guard let data = Data(base64Encoded: body), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let sort = ClipQuery.Sort(rawValue: parts[0]), let order = ClipQuery.Order(rawValue: parts[1]),
              parts[3].count == 16, parts[3].allSatisfy(\.isHexDigit), let first = parts[2].first else { return nil }
        let rest = parts[2].dropFirst()
        let value: SortValue
        switch first {
        case "t":
            guard rest.count % 2 == 0, rest.count <= 8000 else { return nil }
            var bytes: [UInt8] = []
            var index = rest.startIndex
            while index < rest.endIndex {
                let next = rest.index(index, offsetBy: 2)
                guard let byte = UInt8(rest[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            value = .text(bytes)
        case "i":
            guard let number = Int64(rest) else { return nil }
            value = .integer(number)
        case "n":
            guard let bits = UInt64(rest), !Double(bitPattern: bits).isNaN else { return nil }
            value = .number(Double(bitPattern: bits))
        case "m":
            guard rest.isEmpty else { return nil }
            value = .missing
        default:
            return nil
        }
        // The value's kind must be the sort's.
        switch (sort, value) {
        case (.path, .text), (.name, .text), (.date, .integer), (.size, .integer), (.duration, .number), (.duration, .missing): break
        default: return nil
        }
        self.init(sort: sort, order: order, value: value, id: parts[3])
    }
}

/// Pages of an ordered list: `ordered` holds positions of the listed items in the query's order; `value` and
/// `id` give an item's sort value and id. Pure: a page is a slice and the next cursor.
enum ClipPager {
    struct Page: Equatable {
        var positions: [Int]
        var total: Int
        var next: ClipCursor?
        /// Where the page starts in the whole ordered list.
        var offset: Int
    }

    static func page(ordered: [Int], query: ClipQuery, value: (Int) -> SortValue, id: (Int) -> String) -> Page {
        let total = ordered.count
        var start = 0
        if let cursor = query.after {
            // The first item the cursor's item precedes: the list is sorted, so a binary search finds it.
            var low = 0, high = total
            while low < high {
                let middle = low + (high - low) / 2
                let item = ordered[middle]
                if cursor.value.precedes(value(item), id: cursor.id, otherID: id(item), order: query.order) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            start = low
        } else if let offset = query.offset {
            start = min(offset, total)
        }
        let end = start + min(query.limit, total - start)
        let positions = Array(ordered[start..<end])
        var next: ClipCursor?
        if end < total, let last = positions.last {
            next = ClipCursor(sort: query.sort, order: query.order, value: value(last), id: id(last))
        }
        return Page(positions: positions, total: total, next: next, offset: start)
    }
}
