import LibraryFiles
import PropertyBased
import PropertySupport
import Testing
@testable import VtrimServer

/// A change patched into the library's snapshot gives the listing a rebuild of the same clips gives: every order (ties
/// and clips without a duration included), the summaries, the search keys, the clips addressable by id — whatever
/// came, went or changed; and nothing changed patches nothing.
struct SnapshotPatchTests {
    /// Per slot of a small universe of names (so that names, sizes, dates and durations tie): absent, or a version
    /// (size, date) and a duration the prober knows (0: none, else 1 + its tenth of a second).
    static let slot = zip(Gen.int(in: 0...2), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...3))
    static let names = ["A/x.mp4", "a/x.mp4", "a/X.mp4", "b/y.mov", "b/é.mp4", "x.mp4", "a/b/c.mkv", "A/y.mov"]

    @Test func aPatchListsWhatARebuildLists() async {
        await propertyCheck(count: 500, input: Self.slot.array(of: Self.names.count), Self.slot.array(of: Self.names.count),
                            Gen.int(in: 0...Int(UInt16.max))) { before, after, shuffle in
            Self.check(before: before, after: after, shuffle: shuffle)
        }
    }

    static func clips(_ slots: [(Int, Int, Int, Int)]) -> (clips: [Library.Clip], known: [String: (version: FileVersion, summary: ClipSummary)]) {
        var clips: [Library.Clip] = [], known: [String: (version: FileVersion, summary: ClipSummary)] = [:]
        for (index, (presence, size, date, duration)) in slots.enumerated() where presence > 0 {
            let relative = names[index]
            let version = FileVersion(sizeBytes: Int64(size), modifiedNanoseconds: Int64(date))
            let clip = Library.Clip(id: Library.identifier(root: "/r", relative: relative), relativePath: relative, path: "/r/" + relative,
                                    version: version)
            clips.append(clip)
            if duration > 0 {
                known[clip.path] = (version, ClipSummary(durationSeconds: Double(duration - 1) / 10, codec: "h264", hasVideo: true,
                                                         displayWidth: nil, displayHeight: nil, failure: nil))
            }
        }
        return (clips, known)
    }

    static func check(before: [(Int, Int, Int, Int)], after: [(Int, Int, Int, Int)], shuffle: Int) {
        let (old, oldKnown) = clips(before)
        let (new, newKnown) = clips(after)
        // The prober's table when the change comes: what it knew of the files still there.
        let known = oldKnown.merging(newKnown) { _, now in now }
        var oldSnapshot = Library.indexed(old.enumerated().sorted { ($0.offset * 7 + shuffle) % 11 < ($1.offset * 7 + shuffle) % 11 }.map(\.element))
        Library.summarize(&oldSnapshot, known)
        var rebuilt = Library.indexed(new)
        Library.summarize(&rebuilt, known)
        let change = Library.SnapshotChange(gone: Set(old.map(\.id)).subtracting(new.map(\.id)), clips: new, outputs: [])
        guard let patched = Library.patched(oldSnapshot, change, known: known) else {
            #expect(old.map(\.id) == new.map(\.id) && old.map(\.version) == new.map(\.version), "nothing patched for a change")
            return
        }
        func ids(_ snap: Library.Snapshot, _ key: Library.OrderKey) -> [String] { (snap.orders[key] ?? []).map { snap.clips[$0].id } }
        for sort in ClipQuery.Sort.allCases {
            for order in ClipQuery.Order.allCases {
                let key = Library.OrderKey(sort: sort, order: order)
                #expect(ids(patched, key) == ids(rebuilt, key), "\(sort) \(order): \(before) → \(after)")
            }
        }
        #expect(Set(patched.byID.keys) == Set(rebuilt.byID.keys))
        #expect(patched.probedCount == rebuilt.probedCount)
        for (position, clip) in patched.clips.enumerated() {
            let other = rebuilt.positionByID[clip.id] ?? -1
            #expect(patched.positionByID[clip.id] == position && other >= 0)
            guard other >= 0 else { continue }
            #expect(patched.summaries[position] == rebuilt.summaries[other] && patched.lowerPaths[position] == rebuilt.lowerPaths[other]
                    && patched.nameKeys[position] == rebuilt.nameKeys[other] && clip.version == rebuilt.clips[other].version)
        }
        #expect(patched.clips.count == rebuilt.clips.count)
    }
}
