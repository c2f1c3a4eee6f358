import Foundation
import Testing
import TestSupport
@testable import VtrimServer

/// The cache's eviction: least recently used first, never what is pinned or held by a response, and a preview larger
/// than the whole cache not before it has been served once.
struct DiskCacheTests {
    @Test func aPreviewLargerThanTheCacheStaysUntilServedAndUnheld() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskCache(folder: folder.path, limitBytes: 1000)
        let preview = "previews/p.mp4"
        try FileManager.default.createDirectory(atPath: cache.path("previews"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: cache.path(preview), contents: Data(count: 5000)))
        cache.add(preview, bytes: 5000, keepUntilServed: true)
        _ = try cache.store("tiles/a.png", data: Data(count: 10))
        #expect(cache.lookup(preview) != nil, "evicted before it was served")

        // A HEAD reads nothing: it does not count as served.
        do {
            let head = cache.hold(preview, serving: false)
            #expect(head != nil)
        }
        _ = try cache.store("tiles/b.png", data: Data(count: 10))
        #expect(cache.lookup(preview) != nil)

        // A GET holds it while it reads: kept even past the limit; once it is done, the next store evicts it.
        do {
            let get = try #require(cache.hold(preview, serving: true))
            try withExtendedLifetime(get) {
                _ = try cache.store("tiles/c.png", data: Data(count: 10))
                #expect(cache.lookup(preview) != nil, "evicted while a response read it")
            }
        }
        _ = try cache.store("tiles/d.png", data: Data(count: 10))
        #expect(cache.lookup(preview) == nil)
        #expect(!FileManager.default.fileExists(atPath: cache.path(preview)))
        #expect(cache.hold(preview, serving: true) == nil)
    }
}
