import PropertyBased
import PropertySupport
import Testing
@testable import VtrimServer
import LibraryFiles

/// `GET /api/clips`' query, cursors and pages: any parameters a client sends give a query or a 400's reason (never a
/// trap); a cursor comes back as itself; paging with cursors visits every clip once, in order, whatever the values
/// (ties, missing durations) and the page size.
@Suite struct ClipListingTests {
    static let names = ["after", "offset", "limit", "sort", "order", "q", "video", "codec", "min_duration", "max_duration", "colour"]
    static let values = zip(Wild.text, Wild.int64, Wild.double, Gen.element(of: ["name", "desc", "1", "0", "h264", "c1.", "500", "501"]),
                            Gen.int(in: 0...3))
        .map { text, integer, number, word, pick -> String in
            switch pick {
            case 0: return text
            case 1: return "\(integer)"
            case 2: return "\(number)"
            default: return word ?? ""
            }
        }
    static let parameters = zip(Gen.element(of: names), values).array(of: 0...6).map { pairs in
        Dictionary(pairs.map { ($0.0 ?? "q", $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func anyParametersGiveAQueryOrAReason() async {
        await propertyCheck(count: 2000, input: Self.parameters) { parameters in
            Self.checkParse(parameters)
        }
    }

    static func checkParse(_ parameters: [String: String]) {
        switch ClipQuery.parse(parameters) {
        case let .success(query):
            #expect((1...ClipQuery.maximumLimit).contains(query.limit))
            #expect(query.offset.map { $0 >= 0 } ?? true)
            #expect(!(query.offset != nil && query.after != nil))
        case let .failure(problem):
            #expect(!problem.message.isEmpty)
        }
    }

    @Test(arguments: [["limit": "0"], ["limit": "1000000000"], ["sort": "colour"], ["after": "c1.x"], ["after": "abc"],
                      ["offset": "-1"], ["offset": "1", "after": "c1.AAAA"], ["min_duration": "nan"], ["min_duration": "2", "max_duration": "1"],
                      ["video": "yes"], ["codec": "h 264"], ["unknown": "1"]])
    func refused(_ parameters: [String: String]) async {
        guard case .failure = ClipQuery.parse(parameters) else {
            Issue.record("\(parameters) was taken")
            return
        }
    }

    static let sortValue = zip(Gen.int(in: 0...3), Gen.int(in: 0...255).array(of: 0...40), Wild.int64, Wild.double)
        .map { kind, bytes, integer, number -> SortValue in
            switch kind {
            case 0: return .text(bytes.map { UInt8($0) })
            case 1: return .integer(integer)
            case 2: return number.isNaN ? .missing : .number(number)
            default: return .missing
            }
        }
    static let id = Gen.int(in: 0...15).array(of: 16).map { digits in digits.map { String($0, radix: 16) }.joined() }

    @Test func aCursorComesBackAsItself() async {
        await propertyCheck(count: 1000, input: Self.sortValue, Self.id, Gen.bool) { value, id, descending in
            Self.checkRoundTrip(value, id, descending)
        }
    }

    static func checkRoundTrip(_ value: SortValue, _ id: String, _ descending: Bool) {
        let sort: ClipQuery.Sort
        switch value {
        case .text: sort = .path
        case .integer: sort = .size
        case .number, .missing: sort = .duration
        }
        let cursor = ClipCursor(sort: sort, order: descending ? .desc : .asc, value: value, id: id)
        #expect(ClipCursor(cursor.text) == cursor)
    }

    /// Any text is a cursor or not; one that is reads back from its own text as itself.
    @Test func anyTextIsACursorOrNot() async {
        await propertyCheck(count: 2000, input: Wild.text) { text in
            for candidate in [text, "c1." + text] {
                if let cursor = ClipCursor(candidate) { #expect(ClipCursor(cursor.text) == cursor, "\(candidate)") }
            }
        }
    }

    /// Values with many ties and missing ones, in either order, paged with cursors at any page size.
    static let listing = zip(zip(Gen.int(in: 0...5), Gen.bool).array(of: 0...120), Gen.int(in: 1...40), Gen.bool)

    @Test func cursorsVisitEveryItemOnceInOrder() async {
        await propertyCheck(count: 400, input: Self.listing) { entries, limit, descending in
            Self.checkPaging(entries, limit: limit, descending: descending)
        }
    }

    static func checkPaging(_ entries: [(Int, Bool)], limit: Int, descending: Bool) {
        let order: ClipQuery.Order = descending ? .desc : .asc
        let values = entries.map { $0.1 ? SortValue.missing : .number(Double($0.0)) }
        let ids = entries.indices.map { index -> String in
            let text = String(index, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        let ordered = entries.indices.sorted { values[$0].precedes(values[$1], id: ids[$0], otherID: ids[$1], order: order) }
        var query = ClipQuery()
        query.sort = .duration
        query.order = order
        query.limit = limit
        var seen: [Int] = []
        for _ in 0...(entries.count + 1) {
            let page = ClipPager.page(ordered: ordered, query: query, value: { values[$0] }, id: { ids[$0] })
            #expect(page.total == entries.count)
            seen += page.positions
            guard let next = page.next else { break }
            // Through its text, as a client sends it back.
            query.after = ClipCursor(next.text)
            #expect(query.after != nil)
        }
        #expect(seen == ordered)
        // Missing values come last, in either order.
        if let firstMissing = seen.firstIndex(where: { values[$0] == .missing }) {
            #expect(seen[firstMissing...].allSatisfy { values[$0] == .missing })
        }
    }
}

/// The library's orders, made with typed keys for speed, are exactly `SortValue.precedes`' (which the cursors and the
/// pager use): for any clips — same names in other folders, equal sizes and dates, missing durations.
@Suite struct LibraryOrderTests {
    static let clips = zip(Gen.int(in: 0...3), Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 0...2), Gen.int(in: 0...3))
        .array(of: 0...60)

    @Test func ordersAreThePagersOrder() async {
        await propertyCheck(count: 300, input: Self.clips) { entries in
            Self.check(entries)
        }
    }

    static func check(_ entries: [(Int, Int, Int, Int, Int)]) {
        var listed: [Library.Clip] = []
        var known: [String: (version: FileVersion, summary: ClipSummary)] = [:]
        for (index, entry) in entries.enumerated() {
            let relative = ["A", "b", "a"][entry.0 % 3] + "/" + ["x.mp4", "X.mp4", "y.mov", "x.mp4.mp4", "é.mp4"][entry.1]
            let version = FileVersion(sizeBytes: Int64(entry.2), modifiedNanoseconds: Int64(entry.3))
            let clip = Library.Clip(id: Library.identifier(root: "/r", relative: relative + "\(index)"), relativePath: relative,
                                    path: "/r/\(index)/" + relative, version: version)
            listed.append(clip)
            if entry.4 > 0 {
                known[clip.path] = (version, ClipSummary(durationSeconds: Double(entry.4 % 2), codec: "h264", hasVideo: true,
                                                         displayWidth: nil, displayHeight: nil, failure: nil))
            }
        }
        var snapshot = Library.indexed(listed)
        Library.summarize(&snapshot, known)
        for sort in ClipQuery.Sort.allCases {
            for order in ClipQuery.Order.allCases {
                let expected = snapshot.clips.indices.sorted { a, b in
                    Library.sortValue(snapshot, a, sort).precedes(Library.sortValue(snapshot, b, sort), id: snapshot.clips[a].id,
                                                                  otherID: snapshot.clips[b].id, order: order)
                }
                #expect(snapshot.orders[Library.OrderKey(sort: sort, order: order)] == expected, "\(sort) \(order)")
            }
        }
    }
}
