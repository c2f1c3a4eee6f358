import PropertyBased
import PropertySupport
@testable import RemoteInput
import Testing

/// HLS playlists as FFmpeg 5.1's hls muxer writes them (TS, fMP4 with EXT-X-MAP, one file with byte ranges), a
/// master with an audio-only entry, and the errors that name their line.
@Suite struct PlaylistTests {
    static let ts = """
    #EXTM3U
    #EXT-X-VERSION:3
    #EXT-X-TARGETDURATION:6
    #EXT-X-MEDIA-SEQUENCE:0
    #EXT-X-PLAYLIST-TYPE:VOD
    #EXTINF:6.000000,
    seg000.ts
    #EXTINF:6.000000,
    seg001.ts
    #EXTINF:2.500000,
    seg002.ts
    #EXT-X-ENDLIST

    """

    @Test func mediaPlaylistOfTransportStreamSegments() throws {
        guard case let .media(playlist) = try M3U8Parser.parse(Self.ts) else { Issue.record("not a media playlist"); return }
        #expect(playlist.segments.map(\.uri) == ["seg000.ts", "seg001.ts", "seg002.ts"])
        #expect(playlist.segmentStartsSeconds == [0, 6, 12])
        #expect(playlist.durationSeconds == 14.5)
        #expect(playlist.ended && playlist.encryption == nil && playlist.initSections.isEmpty)
        #expect(playlist.segments.map(\.line) == [7, 9, 11])
    }

    @Test func fragmentedMP4WithOneFileAndByteRanges() throws {
        let text = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MAP:URI="media.m4s",BYTERANGE="812@0"
        #EXTINF:6.000000,
        #EXT-X-BYTERANGE:1000@812
        media.m4s
        #EXTINF:6.000000,
        #EXT-X-BYTERANGE:2000
        media.m4s
        #EXT-X-ENDLIST
        """
        guard case let .media(playlist) = try M3U8Parser.parse(text) else { Issue.record("not a media playlist"); return }
        #expect(playlist.initSections == [.init(uri: "media.m4s", byteRange: ByteRange(offset: 0, length: 812))])
        #expect(playlist.segments.map(\.byteRange) == [ByteRange(offset: 812, length: 1000), ByteRange(offset: 1812, length: 2000)])
        #expect(playlist.segments.allSatisfy { $0.initSection == 0 })
    }

    @Test func masterPlaylistVariantsAndChoice() throws {
        let text = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",DEFAULT=YES,URI="a.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"
        audio.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aud"
        mid/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720
        high/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180
        low/index.m3u8
        """
        guard case let .master(master) = try M3U8Parser.parse(text) else { Issue.record("not a master playlist"); return }
        #expect(master.variants.map(\.uri) == ["audio.m3u8", "mid/index.m3u8", "high/index.m3u8", "low/index.m3u8"])
        #expect(master.variants[0].isAudioOnly && !master.variants[1].isAudioOnly && !master.variants[2].isAudioOnly)
        #expect(master.renditions == [.init(type: "AUDIO", groupID: "aud", name: "English", uri: "a.m3u8", isDefault: true)])
        #expect(master.variants[1].audioGroup == "aud")
        let table: [(String, Int)] = [("highest", 2), ("lowest", 3), ("720p", 2), ("360p", 1), ("480p", 1), ("100p", 3),
                                      ("1000000", 1), ("10", 3), ("5000000", 2)]
        for (text, expected) in table {
            #expect(VariantChoice(text)?.choose(master.variants) == expected, "--variant \(text)")
        }
        for bad in ["", "p", "0p", "-5", "x720", "high"] { #expect(VariantChoice(bad) == nil, "--variant \(bad)") }
    }

    @Test(arguments: [
        ("seg.ts\n", 1, "does not begin with #EXTM3U"),
        ("#EXTM3U\nseg000.ts\n", 2, "has no EXTINF"),
        ("#EXTM3U\n#EXTINF:abc,\nseg.ts", 2, "EXTINF duration"),
        ("#EXTM3U\n#EXTINF:-1,\nseg.ts", 2, "EXTINF duration"),
        ("#EXTM3U\n#EXTINF:nan,\nseg.ts", 2, "EXTINF duration"),
        ("#EXTM3U\n#EXTINF:1e300,\nseg.ts", 2, "EXTINF duration"),
        ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:0@5\nseg.ts", 3, "not length[@offset]"),
        ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807\nseg.ts", 3, "offset"),
        ("#EXTM3U\n#EXT-X-MAP:BYTERANGE=\"5@0\"\n", 2, "EXT-X-MAP without a URI"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8", 2, "without a BANDWIDTH"),
        ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\n", 2, "unclosed quote"),
    ])
    func errorsNameTheLine(text: String, line: Int, words: String) {
        #expect {
            _ = try M3U8Parser.parse(text)
        } throws: { error in
            guard let failure = error as? M3U8Parser.Failure else { return false }
            return failure.line == line && failure.reason.contains(words)
        }
    }

    @Test func liveAndEncryptedPlaylistsSaySo() throws {
        guard case let .media(live) = try M3U8Parser.parse("#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\nb.ts\n") else {
            Issue.record("not a media playlist"); return
        }
        #expect(!live.ended && live.encryption == "AES-128")
    }

    /// Any text gives a playlist or a typed failure, never a trap or a hang.
    @Test func anyTextParsesOrFails() async {
        let pieces = Gen.element(of: ["#EXTM3U\n", "#EXTINF:", "6.0,", "-1,", "\n", "seg.ts\n", "#EXT-X-BYTERANGE:", "100@", "9223372036854775807",
                                      "#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"", "\"", "#EXT-X-STREAM-INF:BANDWIDTH=", "RESOLUTION=", "x",
                                      "#EXT-X-ENDLIST\n", "#EXT-X-DISCONTINUITY\n", "#EXT-X-KEY:METHOD=", ",", "="]).map { $0 ?? "" }
        await propertyCheck(count: 400, input: zip(pieces.array(of: 0...60), Wild.text)) { parts, noise in
            _ = try? M3U8Parser.parse(parts.joined() + noise)
            _ = try? M3U8Parser.parse("#EXTM3U\n" + noise)
        }
    }
}

@Suite struct SegmentChoiceTests {
    static let tenOfSix = (starts: (0..<10).map { Double($0) * 6 }, durations: Array(repeating: 6.0, count: 10))

    @Test(arguments: [
        (31.0, 37.0, 5...6), (30.0, 36.0, 5...5), (0.0, 0.0, 0...0), (0.0, 60.0, 0...9), (59.9, 60.0, 9...9),
        (35.999, 36.001, 5...6), (-5.0, 3.0, 0...0), (70.0, 80.0, 9...9), (-3.0, -1.0, 0...0), (12.0, 12.0, 2...2),
    ])
    func overlappingSegments(start: Double, end: Double, expected: ClosedRange<Int>) {
        #expect(SegmentChoice.overlapping(startsSeconds: Self.tenOfSix.starts, durationsSeconds: Self.tenOfSix.durations,
                                          startSeconds: start, endSeconds: end) == expected, "\(start)–\(end)")
    }

    @Test func widenedStaysInside() {
        #expect(SegmentChoice.widened(5...6, before: true, after: false, count: 10) == 4...6)
        #expect(SegmentChoice.widened(0...0, before: true, after: true, count: 10) == 0...1)
        #expect(SegmentChoice.widened(9...9, before: false, after: true, count: 10) == 9...9)
        #expect(SegmentChoice.overlapping(startsSeconds: [], durationsSeconds: [], startSeconds: 0, endSeconds: 1) == nil)
    }

    /// Any times (NaN, infinities, reversed) give segments inside the playlist.
    @Test func anyTimesGiveSegmentsInside() async {
        await propertyCheck(count: 400, input: Wild.double, Wild.double, Gen.int(in: 1...40)) { start, end, count in
            let starts = (0..<count).map { Double($0) * 4 }, durations = Array(repeating: 4.0, count: count)
            let chosen = SegmentChoice.overlapping(startsSeconds: starts, durationsSeconds: durations, startSeconds: start, endSeconds: end)
            #expect(chosen.map { $0.lowerBound >= 0 && $0.upperBound < count } == true)
        }
    }
}

@Suite struct RemoteURLTests {
    @Test(arguments: [
        ("https://user:pw@cdn.example.com/a/b/index.m3u8?token=secret&x=1", "https://cdn.example.com/a/b/index.m3u8?…"),
        ("http://127.0.0.1:8765/ts/index.m3u8", "http://127.0.0.1:8765/ts/index.m3u8"),
        ("HTTPS://Example.COM", "https://example.com/"),
    ])
    func redactionDropsSecrets(text: String, expected: String) throws {
        let url = try #require(RemoteURL(text))
        #expect(url.redacted == expected)
        #expect(!url.redacted.contains("secret") && !url.redacted.contains("pw"))
    }

    @Test func onlyHTTPAndHTTPSAreRead() throws {
        for bad in ["file:///etc/passwd", "ftp://host/a.ts", "http://", "rtmp://host/live", "/tmp/a.m3u8", "javascript:alert(1)"] {
            #expect(RemoteURL(bad) == nil, "\(bad)")
        }
        let base = try #require(RemoteURL("https://cdn.example.com/v/index.m3u8?sig=1"))
        #expect(base.resolving("seg000.ts")?.redacted == "https://cdn.example.com/v/seg000.ts")
        #expect(base.resolving("../other/seg.ts?tok=2")?.redacted == "https://cdn.example.com/other/seg.ts?…")
        #expect(base.resolving("file:///etc/passwd") == nil)
        #expect(base.resolving("data:video/mp2t;base64,AAAA") == nil)
        #expect(RemoteURL.looksLikeURL("file:///etc/passwd") && RemoteURL.looksLikeURL("http://x") && !RemoteURL.looksLikeURL("clip.mp4")
                && !RemoteURL.looksLikeURL("C:/x") && !RemoteURL.looksLikeURL("://x"))
    }

    @Test func contentRangeAndRetries() {
        #expect(ContentRange.parse("bytes 0-99/1000")! == (0, 99, 1000))
        #expect(ContentRange.parse("bytes 5-9/*")! == (5, 9, nil))
        for bad in [nil, "", "bytes 9-5/100", "bytes 0-99/50", "items 0-1/2", "bytes -1-5/10", "bytes 0-/10"] {
            #expect(ContentRange.parse(bad) == nil, "\(bad ?? "nil")")
        }
        #expect(RetrySchedule.retries(.status(503)) && RetrySchedule.retries(.status(429)) && RetrySchedule.retries(.transport(56)))
        #expect(!RetrySchedule.retries(.status(404)) && !RetrySchedule.retries(.status(403)) && !RetrySchedule.retries(.transport(60)))
        #expect(RetrySchedule.delaySeconds(attempt: 1, retryAfter: nil) == 0.25 && RetrySchedule.delaySeconds(attempt: 3, retryAfter: nil) == 1)
        #expect(RetrySchedule.delaySeconds(attempt: 1, retryAfter: "120") == 10 && RetrySchedule.delaySeconds(attempt: 50, retryAfter: nil) == 16)
    }
}

@Suite struct ManifestPlanTests {
    static let tenOfSix = (starts: (0..<10).map { Double($0) * 6 }, durations: Array(repeating: 6.0, count: 10))

    @Test(arguments: [(31.0, 49.0, 5, 8, [6, 7]), (31.0, 35.0, 5, 5, []), (31.0, 37.0, 5, 6, []), (0.0, 60.0, 0, 9, Array(1...8)),
                      (36.0, 48.0, 6, 7, [])])
    func edgesAndMiddle(start: Double, end: Double, first: Int, last: Int, middle: [Int]) throws {
        let plan = try #require(ManifestPlan.make(startsSeconds: Self.tenOfSix.starts, durationsSeconds: Self.tenOfSix.durations,
                                                  startSeconds: start, endSeconds: end))
        #expect(plan.first == first && plan.last == last && (plan.middle.map(Array.init) ?? []) == middle)
        #expect(plan.hasTailEdge == (last > first))
        #expect(ManifestPlan.make(startsSeconds: Self.tenOfSix.starts, durationsSeconds: Self.tenOfSix.durations, startSeconds: end, endSeconds: start) == nil)
    }

    @Test func playlistTextHasNoDiscontinuity() {
        let text = ManifestPlan.playlist([("cut.start.ts", 5.033333, nil), ("https://cdn/seg006.ts?sig=1", 6, nil),
                                          ("media.ts", 2.5, ByteRange(offset: 10, length: 20))])
        #expect(text == "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + "#EXTINF:5.033333,\ncut.start.ts\n#EXTINF:6.000000,\nhttps://cdn/seg006.ts?sig=1\n"
                + "#EXTINF:2.500000,\n#EXT-X-BYTERANGE:20@10\nmedia.ts\n#EXT-X-ENDLIST\n")
        guard case let .media(parsed)? = try? M3U8Parser.parse(text) else { Issue.record("not a playlist"); return }
        #expect(parsed.segments.count == 3 && parsed.ended && !parsed.segments.contains(where: \.followsDiscontinuity))
    }

    /// fMP4: one EXT-X-MAP, the source's init section by its absolute URL (and byte range), in force for every entry.
    @Test func playlistTextOfFragmentsNamesTheSourcesInitSection() {
        let text = ManifestPlan.playlist([("cut.start.m4s", 5.033333, nil), ("https://cdn/seg006.m4s", 6, nil)],
                                         map: ("https://cdn/init.mp4", ByteRange(offset: 0, length: 812)))
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:6\n"))
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MAP:URI=\"https://cdn/init.mp4\",BYTERANGE=\"812@0\"\n#EXTINF:5.033333,\n"))
        guard case let .media(parsed)? = try? M3U8Parser.parse(text) else { Issue.record("not a playlist"); return }
        #expect(parsed.initSections.map(\.uri) == ["https://cdn/init.mp4"] && parsed.initSections.first?.byteRange == ByteRange(offset: 0, length: 812))
        #expect(parsed.segments.map(\.initSection) == [0, 0] && !parsed.segments.contains(where: \.followsDiscontinuity))
    }

    /// A byte range inside a segment, from a file's index: inside the segment's own range, or nothing, for any numbers.
    @Test func segmentByteRangesStayInsideTheirSegment() async {
        #expect(Spool.byteRange(within: ByteRange(offset: 100, length: 50), offset: 10, length: 40) == ByteRange(offset: 110, length: 40))
        #expect(Spool.byteRange(within: ByteRange(offset: 100, length: 50), offset: 10, length: 41) == nil)
        #expect(Spool.byteRange(within: nil, offset: 7, length: 3) == ByteRange(offset: 7, length: 3))
        await propertyCheck(count: 1000, input: Wild.int64, Wild.int64, Wild.int64, Wild.int64) { base, size, offset, length in
            let segment = size >= 1 ? ByteRange(offset: base, length: size) : nil
            guard let range = Spool.byteRange(within: segment, offset: offset, length: length) else { return }
            #expect(range.length == length && length >= 1 && offset >= 0)
            if let segment {
                #expect(range.offset >= segment.offset && range.offset - segment.offset + range.length <= segment.length)
            }
        }
    }

    @Test func expiringTokensAreFound() throws {
        func urls(_ texts: [String]) throws -> [RemoteURL] { try texts.map { try #require(RemoteURL($0)) } }
        #expect(ManifestPlan.expiry(of: try urls(["https://h/a.ts?Expires=1800000000&Signature=x", "https://h/b.ts?Expires=1700000000"])) == 1_700_000_000)
        #expect(ManifestPlan.expiry(of: try urls(["https://h/a.ts?X-Amz-Date=20261130T000000Z&X-Amz-Expires=3600"])) == 1_796_000_400)
        #expect(ManifestPlan.expiry(of: try urls(["https://h/a.ts?hdnts=st=1~exp=1796000000~acl=/*~hmac=ab"])) == 1_796_000_000)
        #expect(ManifestPlan.expiry(of: try urls(["https://h/a.ts?exp=soon"])) == 0)
        #expect(ManifestPlan.expiry(of: try urls(["https://h/a.ts", "https://h/b.ts?quality=hd"])) == nil)
    }
}
