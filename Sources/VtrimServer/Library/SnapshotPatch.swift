import Foundation
import LibraryFiles

/// A change in a few folders patches the published snapshot instead of rebuilding it: the clips that came, went or
/// changed are placed into the orders by binary search, and every other clip keeps its keys, its summary and its
/// place. At 100,000 clips a rebuild made every clip, key and order again (0.6–0.8 s a change); a patch touches the
/// changed clips and copies the arrays once. A rebuild still follows a full walk, a folder that became unreadable
/// (or readable), and folders appearing or going.
extension Library {
    /// What a few folders hold now against what they held.
    struct SnapshotChange {
        /// Ids of the clips and outputs no longer there.
        var gone: Set<String> = []
        /// Every clip of the changed folders as it is now (new, changed, or as it was), with its cuts.
        var clips: [Clip] = []
        /// Every output of the changed folders.
        var outputs: [Clip] = []
    }

    /// The change of one folder whose files went from `before` to `after` (its subfolders and readability the same).
    func change(root: Int, folder relative: String, before: [String: LibraryTree.File],
                after: [String: LibraryTree.File]) -> SnapshotChange {
        func clips(_ files: [String: LibraryTree.File]) -> (clips: [Clip], outputs: [Clip]) {
            var clips: [Clip] = [], outputs: [Clip] = []
            for (name, file) in files {
                let clip = makeClip(root: root, relative: relative.isEmpty ? name : relative + "/" + name, version: file.version, problem: nil)
                if file.isOutput { outputs.append(clip) } else { clips.append(clip) }
            }
            Self.attachCuts(&clips, outputs: outputs)
            return (clips, outputs)
        }
        let was = clips(before), now = clips(after)
        let present = Set(now.clips.map(\.id) + now.outputs.map(\.id))
        return SnapshotChange(gone: Set(was.clips.map(\.id) + was.outputs.map(\.id)).subtracting(present), clips: now.clips, outputs: now.outputs)
    }

    /// `old` with `change` applied, its summaries from `known`; nil when nothing listed changed (the listing and its
    /// generation stay). Its orders are those `orders` would make of the same clips (`SnapshotPatchTests`).
    static func patched(_ old: Snapshot, _ change: SnapshotChange, known: [String: (version: FileVersion, summary: ClipSummary)]) -> Snapshot? {
        var replaced: [Int: Clip] = [:]
        var added: [Clip] = []
        for clip in change.clips {
            guard let position = old.positionByID[clip.id] else {
                added.append(clip)
                continue
            }
            let was = old.clips[position]
            if was.version != clip.version || was.relativePath != clip.relativePath || was.path != clip.path
                || was.folderProblem != clip.folderProblem || was.cuts.map(\.id) != clip.cuts.map(\.id)
                || was.cuts.map(\.version) != clip.cuts.map(\.version) {
                replaced[position] = clip
            }
        }
        let removed = Set(change.gone.compactMap { old.positionByID[$0] })
        let outputsChanged = change.gone.contains { old.byID[$0] != nil && old.positionByID[$0] == nil }
            || change.outputs.contains { old.byID[$0.id]?.version != $0.version }
        guard !replaced.isEmpty || !added.isEmpty || !removed.isEmpty || outputsChanged else { return nil }

        var next = Snapshot()
        var newPosition = [Int](repeating: -1, count: old.clips.count)
        var touched = Set<Int>()
        func append(_ clip: Clip, keys: (lowerPath: [UInt8], nameKey: [UInt8], idNumber: UInt64), summary: ClipSummary?) {
            next.clips.append(clip)
            next.lowerPaths.append(keys.lowerPath)
            next.nameKeys.append(keys.nameKey)
            next.idNumbers.append(keys.idNumber)
            next.summaries.append(summary)
        }
        for position in old.clips.indices where !removed.contains(position) {
            newPosition[position] = next.clips.count
            if let clip = replaced[position] {
                touched.insert(next.clips.count)
                append(clip, keys: searchKeys(clip), summary: summary(of: clip, known))
            } else {
                append(old.clips[position], keys: (old.lowerPaths[position], old.nameKeys[position], old.idNumbers[position]),
                       summary: old.summaries[position])
            }
        }
        for clip in added {
            touched.insert(next.clips.count)
            append(clip, keys: searchKeys(clip), summary: summary(of: clip, known))
        }
        next.byID = old.byID
        for id in change.gone { next.byID[id] = nil }
        for clip in change.clips + change.outputs { next.byID[clip.id] = clip }
        if removed.isEmpty {
            next.positionByID = old.positionByID
            for position in (next.clips.count - added.count)..<next.clips.count { next.positionByID[next.clips[position].id] = position }
        } else {
            next.positionByID = Dictionary(next.clips.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
        next.probedCount = next.summaries.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        for sort in ClipQuery.Sort.allCases {
            let ascending = (old.orders[OrderKey(sort: sort, order: .asc)] ?? []).compactMap { position -> Int? in
                let now = newPosition[position]
                return now >= 0 && !touched.contains(now) ? now : nil
            }
            next.orders.merge(placed(touched, into: ascending, by: sort, in: next)) { _, new in new }
        }
        next.walked = old.walked
        next.watching = old.watching
        next.problems = old.problems
        next.epoch = old.epoch
        return next
    }

    /// A sort's orders with the `touched` positions placed into `ascending` (the others, already in order) by binary
    /// search; for `.duration`, clips without one after the rest, by id.
    private static func placed(_ touched: Set<Int>, into ascending: [Int], by sort: ClipQuery.Sort, in snap: Snapshot) -> [OrderKey: [Int]] {
        var ordered = ascending, missing: [Int] = []
        if sort == .duration {
            let split = ascending.firstIndex { snap.summaries[$0]?.durationSeconds == nil } ?? ascending.count
            ordered = Array(ascending[..<split])
            missing = Array(ascending[split...])
        }
        for position in touched.sorted() {
            if sort == .duration, snap.summaries[position]?.durationSeconds == nil {
                insert(position, into: &missing) { snap.idNumbers[$0] < snap.idNumbers[$1] }
            } else {
                insert(position, into: &ordered) { precedes(snap, sort, $0, $1) }
            }
        }
        return Library.ordered(sort, ordered, missing: missing)
    }

    private static func insert(_ position: Int, into list: inout [Int], by before: (Int, Int) -> Bool) {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if before(list[middle], position) { low = middle + 1 } else { high = middle }
        }
        list.insert(position, at: low)
    }
}
