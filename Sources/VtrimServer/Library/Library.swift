import Foundation
import LibraryFiles
import Locking
import WorkerProtocol

/// The clips `vtrim serve` offers: the media files under its folders (the walker's rules, vtrim's own outputs
/// listed under their sources; a file given instead of a folder is served alone), each with a stable id derived
/// from its folder and relative path — the client never sends a path.
///
/// The folders are walked on a thread of their own, never on a request: first what the state database knew is
/// listed (a large library shows at once), then a walk checks it, then inotify names each folder that changes and
/// only that folder is listed again (where inotify is missing or out of watches, a full walk every
/// `fallbackRescanSeconds`). Each walk publishes an immutable snapshot with its orders made; a request takes the
/// snapshot and pages through it. Probe summaries (duration, codec) come from the background prober and from
/// requests, are kept per file version, and go to the state database too (`StateDatabase`: files, probes).
final class Library: Sendable {
    struct Clip: Sendable {
        let id: String
        /// Below the served folder ("trip/beach.mp4"); with several folders, prefixed by the folder's name.
        let relativePath: String
        let path: String
        let version: FileVersion
        /// vtrim's outputs beside it made from it (serve's `{stem}.{start}-{end}.cut.{ext}`, the CLI's
        /// `{stem}.cut.{ext}`): listed under their source, never as clips of their own.
        var cuts: [Clip] = []
        /// Why its folder cannot be listed now (the clip is as last seen), or nil.
        var folderProblem: String?
        /// Which served folder it is under, and its path there: its row in the state database.
        var root = 0
        var relativeInRoot = ""

        var size: Int64 { version.sizeBytes }
        var modifiedSeconds: Double { Double(version.modifiedNanoseconds) / 1e9 }
    }

    static let fallbackRescanSeconds = 10.0
    /// Changes are applied once the folders are quiet this long, or at the latest after `latestApplySeconds`.
    static let quietMilliseconds: Int32 = 200
    static let latestApplySeconds = 1.0
    static let saveEverySeconds = 5.0
    /// A file being written is listed once nothing has written to it (and its size held) this long (`--settle`).
    let settleSeconds: Double
    static let fullProbeCacheEntries = 256

    let roots: [String]
    private let resolvedRoots: [String]
    private let rootIsFile: [Bool]
    /// Each root's key in the state database (nil: it could not be stat'ed at start, and is not kept).
    private let rootKeys: [RootKey?]
    private let state: StateDatabase?
    /// This set of folders, for the rows that belong to the library as a whole (the cuts made).
    let key: String

    struct Snapshot: Sendable {
        var clips: [Clip] = []
        var byID: [String: Clip] = [:]
        /// Each listed clip's position in `clips`, by id (outputs are in `byID` only).
        var positionByID: [String: Int] = [:]
        /// Lower-cased UTF-8 of each clip's relative path, for search and the path order; the name's, a 0 byte, then
        /// the path's, for the name order; the id as a number (ids are 16 lower-case hex digits: the same order).
        var lowerPaths: [[UInt8]] = []
        var nameKeys: [[UInt8]] = []
        var idNumbers: [UInt64] = []
        /// Each clip's summary as of `epoch` (probed clips), aligned with `clips`.
        var summaries: [ClipSummary?] = []
        var probedCount = 0
        /// Every order, made by the scanning thread when the snapshot is (never on a request).
        var orders: [OrderKey: [Int]] = [:]
        var generation = 0
        var epoch = 0
        /// A walk has finished (before, the clips are the state database's).
        var walked = false
        /// Every folder is watched (false: full rescans every `fallbackRescanSeconds`).
        var watching = false
        /// Folders that could not be listed, with why.
        var problems: [(folder: String, reason: String)] = []
    }

    struct OrderKey: Hashable, Sendable {
        let sort: ClipQuery.Sort
        let order: ClipQuery.Order
    }

    private let snapshot = Locked(Snapshot())
    private let summaries = Locked<[String: (version: FileVersion, summary: ClipSummary)]>([:])
    private let summariesChanged = Locked(false)
    /// The clips whose summary changed since the last save (their paths): written on their own while the tree is as
    /// it was, instead of comparing every row (at 100,000 clips a whole comparison every 5 s of probing kept two
    /// copies of the rows and grew the heap).
    private let summariesToSave = Locked<[String]>([])
    private let probesToSave = Locked<[StateDatabase.ProbeRow]>([])
    private let derived = Locked<[DerivedKey: [Int]]>([:])
    private let probes = Locked<[String: (version: FileVersion, json: JSON)]>([:])
    private let stopped = Locked(false)
    private let started = Locked(false)
    private let finished = DispatchSemaphore(value: 0)

    private struct DerivedKey: Hashable {
        let generation: Int
        let epoch: Int
        let sort: ClipQuery.Sort
        let order: ClipQuery.Order
        let search: String
        let filters: ClipQuery.Filters
    }

    /// `state`: where what is walked and probed is kept across runs (nil: nowhere).
    init(folders: [String], state: StateDatabase?, settleSeconds: Double = 3) {
        self.settleSeconds = settleSeconds.isFinite ? max(0, settleSeconds) : 3
        // A folder given twice (or by two names) is served once.
        var seen = Set<String>()
        var unique: [(given: String, real: String)] = []
        for folder in folders {
            let real = LibraryTree.realLocation(folder)
            if seen.insert(real).inserted { unique.append((folder, real)) }
        }
        roots = unique.map(\.given)
        let resolved = unique.map(\.real)
        resolvedRoots = resolved
        // Whether each root is a file (`vtrim serve clip.mp4`), decided once: a folder that goes away stays a folder.
        rootIsFile = roots.map { !InputWalker.isDirectory($0) }
        rootKeys = resolved.map(RootKey.of)
        self.state = state
        key = Library.identifier(root: resolved.joined(separator: "\u{0}"), relative: "index")
    }

    /// Starts the scanning thread (once); why it could not be started (out of threads or memory), or nil. Without it
    /// the folders are walked once, here, and the listing says why it does not follow them.
    @discardableResult
    func start(create: (@escaping @Sendable () -> Void) -> Int32 = DetachedThread.create) -> String? {
        guard !started.withLock({ flag in defer { flag = true }; return flag }) else { return nil }
        let status = create { [self] in
            scanLoop()
            finished.signal()
        }
        guard status != 0 else { return nil }
        let problem = "no thread could be started for the library's scan (\(DetachedThread.reason(status))); "
            + "the folders were read once, at start: files added, changed or probed since are not shown"
        _ = loadState()
        var tree = LibraryTree(roots: roots, rootIsFile: rootIsFile)
        tree.scanAll()
        publish(tree, watching: false, problem: (".", problem))
        finished.signal()
        return problem
    }

    /// Stops the scanning thread, which saves the walk (with the summaries made since the last save) before it ends;
    /// waits for it at most a few seconds.
    func stop() {
        guard !stopped.withLock({ flag in defer { flag = true }; return flag }) else { return }
        if started.withLock({ $0 }) { _ = finished.wait(timeout: .now() + 5) }
        // What the last save may not have had (a probe that ended meanwhile, or a scan that did not end in time).
        if let state {
            probesToSave.withLock { rows in
                state.storeProbes(rows)
                rows = []
            }
        }
    }

    var current: Snapshot { snapshot.withLock { $0 } }

    func clip(id: String) -> Clip? {
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return nil }
        return snapshot.withLock { $0.byID[id] }
    }

    // MARK: Pages

    struct Listing {
        let snapshot: Snapshot
        let page: ClipPager.Page
    }

    /// A page of clips for `query`, from the last snapshot: its orders are made, so a request costs a binary search
    /// and, for a search or filters not asked for just before, one pass over the clips.
    func page(_ query: ClipQuery) -> Listing {
        let snap = current
        let ordered = ordered(snap, query: query)
        let page = ClipPager.page(ordered: ordered, query: query, value: { Self.sortValue(snap, $0, query.sort) }, id: { snap.clips[$0].id })
        return Listing(snapshot: snap, page: page)
    }

    private func ordered(_ snap: Snapshot, query: ClipQuery) -> [Int] {
        let key = OrderKey(sort: query.sort, order: query.order)
        let base = snap.orders[key] ?? []
        if query.search.isEmpty, query.filters.isEmpty { return base }
        let derivedKey = DerivedKey(generation: snap.generation, epoch: snap.epoch, sort: query.sort, order: query.order,
                                    search: query.search, filters: query.filters)
        if let cached = derived.withLock({ $0[derivedKey] }) { return cached }
        var found = base
        if !query.search.isEmpty {
            let needle = Array(query.search.utf8)
            found = found.filter { Self.contains(snap.lowerPaths[$0], needle) }
        }
        if !query.filters.isEmpty {
            found = found.filter { snap.summaries[$0]?.passes(query.filters) ?? false }
        }
        derived.withLock { cache in
            // A handful of recent listings (the page asks for the same one page after page).
            if cache.count >= 16 { cache.removeAll() }
            cache[derivedKey] = found
        }
        return found
    }

    static func sortValue(_ snap: Snapshot, _ position: Int, _ sort: ClipQuery.Sort) -> SortValue {
        let clip = snap.clips[position]
        switch sort {
        case .path: return .text(snap.lowerPaths[position])
        case .name: return .text(snap.nameKeys[position])
        case .date: return .integer(clip.version.modifiedNanoseconds)
        case .size: return .integer(clip.version.sizeBytes)
        case .duration: return snap.summaries[position]?.durationSeconds.map(SortValue.number) ?? .missing
        }
    }

    /// Every order of the snapshot's clips, as `SortValue.precedes` orders them (asserted by the tests): typed keys,
    /// ties by id; descending is ascending reversed, except that clips without a duration stay last.
    static func orders(_ snap: Snapshot, only sorts: [ClipQuery.Sort] = ClipQuery.Sort.allCases) -> [OrderKey: [Int]] {
        var made: [OrderKey: [Int]] = [:]
        for sort in sorts {
            var positions = Array(snap.clips.indices)
            var missing: [Int] = []
            if sort == .duration {
                missing = positions.filter { snap.summaries[$0]?.durationSeconds == nil }.sorted { snap.idNumbers[$0] < snap.idNumbers[$1] }
                positions = positions.filter { snap.summaries[$0]?.durationSeconds != nil }
            }
            positions.sort { precedes(snap, sort, $0, $1) }
            made.merge(ordered(sort, positions, missing: missing)) { _, new in new }
        }
        return made
    }

    /// A sort's two orders from its ascending one (`missing`: clips without a duration, by id, last in both).
    static func ordered(_ sort: ClipQuery.Sort, _ ascending: [Int], missing: [Int] = []) -> [OrderKey: [Int]] {
        [OrderKey(sort: sort, order: .asc): ascending + missing, OrderKey(sort: sort, order: .desc): ascending.reversed() + missing.reversed()]
    }

    /// Whether the clip at `a` comes before the one at `b` in `sort`'s ascending order: by its typed key, ties (and,
    /// for `.duration`, clips without one) by id.
    static func precedes(_ snap: Snapshot, _ sort: ClipQuery.Sort, _ a: Int, _ b: Int) -> Bool {
        let tie = snap.idNumbers[a] < snap.idNumbers[b]
        switch sort {
        case .path: return compareBytes(snap.lowerPaths[a], snap.lowerPaths[b]).map { $0 < 0 } ?? tie
        case .name: return compareBytes(snap.nameKeys[a], snap.nameKeys[b]).map { $0 < 0 } ?? tie
        case .date:
            let (x, y) = (snap.clips[a].version.modifiedNanoseconds, snap.clips[b].version.modifiedNanoseconds)
            return x == y ? tie : x < y
        case .size:
            let (x, y) = (snap.clips[a].version.sizeBytes, snap.clips[b].version.sizeBytes)
            return x == y ? tie : x < y
        case .duration:
            guard let x = snap.summaries[a]?.durationSeconds, let y = snap.summaries[b]?.durationSeconds, x != y else { return tie }
            return x < y
        }
    }

    /// memcmp's order of two byte strings (a prefix first), nil when equal.
    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int32? {
        let common = min(a.count, b.count)
        let result = a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y -> Int32 in
                guard common > 0, let left = x.baseAddress, let right = y.baseAddress else { return 0 }
                return memcmp(left, right, common)
            }
        }
        if result != 0 { return result }
        return a.count == b.count ? nil : (a.count < b.count ? -1 : 1)
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            index += 1
        }
        return false
    }

    // MARK: Probes

    /// The clip as it is on disk now (its current version), for work that must see a change at once.
    func current(_ clip: Clip) -> Clip {
        guard let version = FileVersion.of(clip.path), version != clip.version else { return clip }
        return Clip(id: clip.id, relativePath: clip.relativePath, path: clip.path, version: version, cuts: clip.cuts,
                    folderProblem: clip.folderProblem, root: clip.root, relativeInRoot: clip.relativeInRoot)
    }

    /// The probe of a clip's version made before (in this run, or kept in the state database), if any.
    func cachedProbe(_ clip: Clip) -> JSON? {
        if let json = probes.withLock({ $0[clip.path].flatMap { $0.version == clip.version ? $0.json : nil } }) { return json }
        if let json = unsavedProbe(clip) { return json }
        guard let state, rootKeys.indices.contains(clip.root), let root = rootKeys[clip.root],
              let text = state.probe(root: root, relative: clip.relativeInRoot, version: clip.version),
              let json = try? JSON(parsing: text), case .object = json else { return nil }
        remember(clip, json)
        return json
    }

    /// A clip's whole probe (`GET /api/clips/{id}`'s object): kept in memory for the clips in use, in the state
    /// database for every clip, and summarized for the listing.
    func storeProbe(_ clip: Clip, _ json: JSON) {
        remember(clip, json)
        if let state, rootKeys.indices.contains(clip.root), let root = rootKeys[clip.root] {
            let row = StateDatabase.ProbeRow(root: root, relative: clip.relativeInRoot, version: clip.version, json: json.serialized)
            // Written with the next save (at most 5 s on), or at once when many wait or the scanning thread has made
            // its last save (the server stopping: workers still finishing). Written under the list's lock, so batches
            // reach the database in the order they were made (a newer probe never replaced by an older one).
            probesToSave.withLock { rows in
                rows.append(row)
                // Read inside this lock: stop() sets the flag before its last write under it, so no probe falls between.
                guard stopped.withLock({ $0 }) || rows.count >= Self.probesPerWrite else { return }
                state.storeProbes(rows)
                rows = []
            }
        }
        storeSummary(clip, ClipSummary(probe: json))
    }

    static let probesPerWrite = 500

    /// Probes made since the last save, before they are written.
    private func unsavedProbe(_ clip: Clip) -> JSON? {
        probesToSave.withLock { rows in
            rows.last { $0.relative == clip.relativeInRoot && $0.version == clip.version && rootKeys[clip.root] == $0.root }?.json
        }.flatMap { try? JSON(parsing: $0) }
    }

    private func remember(_ clip: Clip, _ json: JSON) {
        probes.withLock { table in
            if table.count >= Self.fullProbeCacheEntries { table.removeAll(keepingCapacity: true) }
            table[clip.path] = (clip.version, json)
        }
    }

    func storeSummary(_ clip: Clip, _ summary: ClipSummary) {
        summaries.withLock { $0[clip.path] = (clip.version, summary) }
        summariesChanged.withLock { $0 = true }
        summariesToSave.withLock { $0.append(clip.path) }
    }

    /// Up to `limit` listed clips without a summary of their current version, from `start` on in path order, and
    /// where the search ended.
    func unprobed(from start: Int, limit: Int) -> (clips: [Clip], next: Int, generation: Int) {
        let snap = current
        let known = summaries.withLock { $0 }
        var found: [Clip] = []
        let inPathOrder = snap.orders[OrderKey(sort: .path, order: .asc)] ?? []
        var position = min(max(0, start), inPathOrder.count)
        while position < inPathOrder.count, found.count < limit {
            let clip = snap.clips[inPathOrder[position]]
            if known[clip.path]?.version != clip.version, clip.folderProblem == nil { found.append(clip) }
            position += 1
        }
        return (found, position, snap.generation)
    }

    // MARK: Scanning (its own thread)

    private func scanLoop() {
        var tree = LibraryTree(roots: roots, rootIsFile: rootIsFile)
        var watch = FolderWatch()
        var saved = loadState()
        tree.scanAll()
        watch.watch(tree.folders.filter { $0.value.unreadable == nil }.keys)
        publish(tree, watching: watch.isComplete)
        save(tree, &saved, whole: true)
        var lastFullScan = ProcessInfo.processInfo.systemUptime
        var lastSave = lastFullScan
        var lastEpoch = lastFullScan
        var dirty = Set<String>()
        var settling = SettlingFiles()
        var firstDirty: Double?
        var unsaved = false
        // Whether the tree changed since the last save (else only summaries did).
        var treeUnsaved = false
        while !stopped.withLock({ $0 }) {
            let changes = watch.changes(waitingMilliseconds: Self.quietMilliseconds)
            let now = ProcessInfo.processInfo.systemUptime
            var changed = false
            var everything = changes.overflow
            // A served folder itself went away or was moved (its parent is not ours): everything is listed again.
            if changes.folders.contains(where: { folder in tree.folders[folder] == nil && roots.contains { ($0 as NSString).deletingLastPathComponent == folder } }) {
                everything = true
            }
            let ready = readyFolders(changes, &settling, now: now)
            if !ready.isEmpty {
                dirty.formUnion(ready)
                firstDirty = firstDirty ?? now
            }
            let quiet = changes.folders.isEmpty && changes.written.isEmpty && !changes.overflow
            var patch: SnapshotChange?
            if quiet, !changes.writing.isEmpty {
                // Only writes: a copy makes an event per write, so the next look is a poll period away, not at once.
                usleep(UInt32(Self.quietMilliseconds) * 1000)
            }
            // Without inotify, or with a served folder missing (nothing to watch until it is back), full rescans.
            let rootMissing = roots.indices.contains { !rootIsFile[$0] && tree.folders[roots[$0]] == nil }
            if everything || (!watch.isComplete || rootMissing) && now - lastFullScan >= Self.fallbackRescanSeconds {
                tree.scanAll(holding: settling.files)
                dirty = []
                firstDirty = nil
                changed = true
                lastFullScan = now
            } else if let first = firstDirty, quiet || now - first >= Self.latestApplySeconds {
                // The changed folders listed again once they are quiet (or at the latest after a second).
                patch = rescan(dirty, &tree, holding: settling.files)
                dirty = []
                firstDirty = nil
                changed = true
            }
            if tree.restatFiles() { (changed, patch) = (true, nil) }
            if changed {
                watch.watch(tree.folders.filter { $0.value.unreadable == nil }.keys)
                if let patch { apply(patch, tree, watching: watch.isComplete) } else { publish(tree, watching: watch.isComplete) }
                unsaved = true
                treeUnsaved = true
            }
            if now - lastEpoch >= 2, summariesChanged.withLock({ flag in defer { flag = false }; return flag }) {
                // New probes reach the listing (and its duration orders and filters) at most every 2 s.
                var next = current
                Self.summarize(&next, summaries.withLock { $0 }, reordering: [.duration])
                next.epoch += 1
                snapshot.withLock { $0 = next }
                lastEpoch = now
                unsaved = true
            }
            if unsaved, now - lastSave >= Self.saveEverySeconds {
                save(tree, &saved, whole: treeUnsaved)
                lastSave = now
                unsaved = false
                treeUnsaved = false
            }
        }
        if unsaved || summariesChanged.withLock({ $0 }) || !probesToSave.withLock({ $0.isEmpty }) { save(tree, &saved, whole: treeUnsaved) }
    }

    /// Lists the `dirty` folders again; what changed in them as a patch of the snapshot, or nil when one cannot be
    /// patched in (it became unreadable or readable, gained or lost folders, or is not known).
    private func rescan(_ dirty: Set<String>, _ tree: inout LibraryTree, holding: Set<String>) -> SnapshotChange? {
        var patch: SnapshotChange? = SnapshotChange()
        for folder in dirty {
            let before = tree.folders[folder]
            tree.rescan(folder: folder, holding: holding)
            guard let before, let after = tree.folders[folder], before.unreadable == nil, after.unreadable == nil,
                  before.subfolders == after.subfolders, tree.touched == [folder] else {
                patch = nil
                continue
            }
            let part = change(root: after.root, folder: after.relative, before: before.files, after: after.files)
            patch?.gone.formUnion(part.gone)
            patch?.clips += part.clips
            patch?.outputs += part.outputs
        }
        return patch
    }

    /// Publishes `change` as a patch of the current snapshot (a rebuild from `tree` when the snapshot is not a walk's
    /// or the watching changed).
    private func apply(_ change: SnapshotChange, _ tree: LibraryTree, watching: Bool) {
        let old = current
        guard old.generation > 0, old.walked, old.watching == watching else { return publish(tree, watching: watching) }
        // Summaries of files gone or changed are dropped, as a rebuild drops them.
        let gonePaths = change.gone.compactMap { old.byID[$0]?.path }
        summaries.withLock { table in
            for path in gonePaths { table[path] = nil }
            for clip in change.clips where table[clip.path].map({ $0.version != clip.version }) ?? false { table[clip.path] = nil }
        }
        guard var next = Self.patched(old, change, known: summaries.withLock { $0 }) else { return }
        snapshot.withLock { state in
            next.generation = state.generation + 1
            next.epoch = state.epoch
            state = next
        }
        derived.withLock { $0.removeAll() }
    }

    /// The folders to list again for `changes`: those whose entries changed, and those of files written that are done
    /// (closed, moved in, or settled); media files still being written wait in `settling`.
    private func readyFolders(_ changes: FolderWatch.Changes, _ settling: inout SettlingFiles, now: Double) -> Set<String> {
        var ready = changes.folders
        for file in changes.writing where settleSeconds > 0 && Self.isMedia(file) { settling.touch(file, at: now) }
        for file in changes.written where Self.isMedia(file) || settling.contains(file) {
            settling.remove(file)
            ready.insert((file as NSString).deletingLastPathComponent)
        }
        if settleSeconds <= 0 {
            for file in changes.writing where Self.isMedia(file) { ready.insert((file as NSString).deletingLastPathComponent) }
        }
        ready.formUnion(settling.settled(at: now, after: settleSeconds))
        return ready
    }

    private static func isMedia(_ path: String) -> Bool {
        InputWalker.mediaExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// A file's row in the state database: its root and its path there.
    private struct SavedKey: Hashable {
        let root: Int
        let relative: String
    }

    /// What the state database knew from an earlier run (or another server over the same folders), served until the
    /// first walk is done; returned as what is saved, so the next save writes only what changed.
    private func loadState() -> [SavedKey: Int] {
        guard let state else { return [:] }
        var saved: [SavedKey: StoredFile] = [:]
        for (root, key) in rootKeys.enumerated() {
            guard let key else { continue }
            for file in state.files(under: key) {
                // A file root's one row is its own name.
                if rootIsFile[root], file.relative != (roots[root] as NSString).lastPathComponent { continue }
                saved[SavedKey(root: root, relative: file.relative)] = file
            }
        }
        guard !saved.isEmpty else { return [:] }
        summaries.withLock { table in
            for (key, file) in saved {
                guard let summary = file.summary else { continue }
                table[rootIsFile[key.root] ? roots[key.root] : path(root: key.root, relative: key.relative)] = (file.version, summary)
            }
        }
        publish(files: saved.map { ($0.key.root, $0.key.relative, LibraryTree.File(version: $0.value.version, isOutput: $0.value.isOutput), nil) },
                walked: false, watching: false, problems: [])
        return saved.mapValues(\.hashValue)
    }

    private func path(root: Int, relative: String) -> String {
        let base = roots[root]
        return base.hasSuffix("/") ? base + relative : base + "/" + relative
    }

    /// `problem`: one more than the tree's unreadable folders (the library's own).
    private func publish(_ tree: LibraryTree, watching: Bool, problem: (folder: String, reason: String)? = nil) {
        var files: [(Int, String, LibraryTree.File, String?)] = []
        var problems: [(folder: String, reason: String)] = problem.map { [$0] } ?? []
        for folder in tree.folders.values {
            if let reason = folder.unreadable { problems.append((folder.relative.isEmpty ? "." : folder.relative, reason)) }
            for (name, file) in folder.files {
                files.append((folder.root, folder.relative.isEmpty ? name : folder.relative + "/" + name, file, folder.unreadable))
            }
        }
        for (root, file) in tree.singleFiles {
            files.append((root, (roots[root] as NSString).lastPathComponent, file, nil))
        }
        publish(files: files, walked: true, watching: watching, problems: problems.sorted { $0.folder < $1.folder })
    }

    private func publish(files: [(root: Int, relative: String, file: LibraryTree.File, problem: String?)], walked: Bool, watching: Bool,
                         problems: [(folder: String, reason: String)]) {
        // In no order: the snapshot's orders are made below.
        var listed: [Clip] = []
        var outputs: [Clip] = []
        for entry in files {
            let clip = makeClip(root: entry.root, relative: entry.relative, version: entry.file.version, problem: entry.problem)
            if entry.file.isOutput { outputs.append(clip) } else { listed.append(clip) }
        }
        Self.attachCuts(&listed, outputs: outputs)
        // Nothing changed (an event about a file being read or touched, a fallback rescan): the listing and its
        // version stay, so the page keeps what it shows.
        let old = current
        if old.generation > 0, old.walked == walked, old.watching == watching, old.clips.count == listed.count,
           old.byID.count == Set(listed.map(\.id) + outputs.map(\.id)).count,
           old.problems.map(\.folder) == problems.map(\.folder), old.problems.map(\.reason) == problems.map(\.reason),
           outputs.allSatisfy({ old.byID[$0.id]?.version == $0.version }),
           listed.allSatisfy({ clip in
               old.byID[clip.id].map { $0.version == clip.version && $0.relativePath == clip.relativePath && $0.folderProblem == clip.folderProblem
                   && $0.cuts.map(\.id) == clip.cuts.map(\.id) } ?? false
           }) {
            return
        }
        var next = Self.indexed(listed, outputs: outputs)
        next.walked = walked
        next.watching = watching
        next.problems = problems
        // Summaries of files that are gone or changed are dropped.
        if walked {
            let versions = Dictionary(listed.map { ($0.path, $0.version) }, uniquingKeysWith: { a, _ in a })
            summaries.withLock { table in table = table.filter { versions[$0.key] == $0.value.version } }
        }
        Self.summarize(&next, summaries.withLock { $0 })
        snapshot.withLock { state in
            next.generation = state.generation + 1
            next.epoch = state.epoch
            state = next
        }
        derived.withLock { $0.removeAll() }
    }

    /// The clip (or output) of the file at `relative` below root `root`.
    func makeClip(root: Int, relative: String, version: FileVersion, problem: String?) -> Clip {
        let isFile = rootIsFile[root]
        let prefix = roots.count > 1 && !isFile ? (roots[root] as NSString).lastPathComponent + "/" : ""
        return Clip(id: Self.identifier(root: resolvedRoots[root], relative: relative), relativePath: prefix + relative,
                    path: isFile ? roots[root] : path(root: root, relative: relative), version: version, folderProblem: problem,
                    root: root, relativeInRoot: relative)
    }

    /// Each output under the clip in its folder whose name it was made from.
    static func attachCuts(_ listed: inout [Clip], outputs: [Clip]) {
        guard !outputs.isEmpty else { return }
        var bySource: [String: Int] = [:]
        // Clips of one stem (`a.mp4`, `a.mkv`): the first by path takes its cuts, whatever order they come in.
        for (position, clip) in listed.enumerated() {
            let stem = (clip.path as NSString).deletingPathExtension
            if let other = bySource[stem], listed[other].path < clip.path { continue }
            bySource[stem] = position
        }
        for output in outputs.sorted(by: { $0.relativePath < $1.relativePath }) {
            let name = (output.path as NSString).lastPathComponent
            guard let stem = InputWalker.sourceStem(ofOutput: name) else { continue }
            let folder = (output.path as NSString).deletingLastPathComponent
            // A named output (`x.intro.cut.mkv` from a cut list's label) belongs to the longest stem that is a clip.
            var candidate = stem
            while true {
                if let position = bySource[(folder as NSString).appendingPathComponent(candidate)] {
                    listed[position].cuts.append(output)
                    break
                }
                guard let dot = candidate.lastIndex(of: ".") else { break }
                candidate = String(candidate[..<dot])
            }
        }
    }

    /// A snapshot of `listed` with its search and sort keys (summaries and orders still to make).
    static func indexed(_ listed: [Clip], outputs: [Clip] = []) -> Snapshot {
        var next = Snapshot()
        next.clips = listed
        // Outputs are addressable (to play them) but not listed as clips.
        next.byID = Dictionary((listed + outputs).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        next.positionByID = Dictionary(listed.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for clip in listed {
            let keys = searchKeys(clip)
            next.lowerPaths.append(keys.lowerPath)
            next.nameKeys.append(keys.nameKey)
            next.idNumbers.append(keys.idNumber)
        }
        return next
    }

    /// A clip's keys for search and the orders: the lower-cased UTF-8 of its relative path; its name's, a 0 byte, then
    /// the path's; its id as a number.
    static func searchKeys(_ clip: Clip) -> (lowerPath: [UInt8], nameKey: [UInt8], idNumber: UInt64) {
        let path = Array(clip.relativePath.lowercased().utf8)
        let name = path.lastIndex(of: UInt8(ascii: "/")).map { path[($0 + 1)...] } ?? path[...]
        return (path, Array(name) + [0] + path, UInt64(clip.id, radix: 16) ?? 0)
    }

    /// The snapshot's summaries of its clips' versions, and its orders (`reordering`: those that can have changed —
    /// only the duration's when the clips are the same and only summaries are new).
    static func summarize(_ snap: inout Snapshot, _ known: [String: (version: FileVersion, summary: ClipSummary)],
                          reordering sorts: [ClipQuery.Sort] = ClipQuery.Sort.allCases) {
        snap.summaries = snap.clips.map { summary(of: $0, known) }
        snap.probedCount = snap.summaries.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        snap.orders.merge(orders(snap, only: sorts)) { _, new in new }
    }

    /// The clip's summary in `known` when it is of the clip's version.
    static func summary(of clip: Clip, _ known: [String: (version: FileVersion, summary: ClipSummary)]) -> ClipSummary? {
        known[clip.path].flatMap { $0.version == clip.version ? $0.summary : nil }
    }

    /// Writes to the state database what changed since `saved` (the files listed now, with their summaries), and
    /// removes the rows of files gone; `saved` becomes what is listed — each row as its hash (100,000 rows kept whole
    /// cost about 35 MB more RSS, measured; a hash collision would leave one row unwritten until it changes again, at
    /// odds of 2⁻⁶⁴ per change). `whole`: the tree changed, every row is
    /// compared; otherwise only the rows of the clips probed since (`summariesToSave`).
    private func save(_ tree: LibraryTree, _ saved: inout [SavedKey: Int], whole: Bool) {
        let probed = summariesToSave.withLock { list in defer { list = [] }; return list }
        guard let state else { return }
        probesToSave.withLock { rows in
            state.storeProbes(rows)
            rows = []
        }
        if !whole, saveSummaries(of: probed, tree, &saved, state) { return }
        var now: [SavedKey: Int] = [:]
        now.reserveCapacity(saved.count)
        var changed: [(root: RootKey, file: StoredFile)] = []
        func add(_ root: Int, _ relative: String, _ path: String, _ file: LibraryTree.File) {
            // One entry looked up at a time: a copy of the whole table held here would be copied again by the next probe.
            let summary = summaries.withLock { $0[path] }.flatMap { $0.version == file.version ? $0.summary : nil }
            let stored = StoredFile(relative: relative, version: file.version, isOutput: file.isOutput, summary: summary)
            let key = SavedKey(root: root, relative: relative)
            if saved[key] != stored.hashValue, let rootKey = rootKeys[root] {
                changed.append((rootKey, stored))
                // Written in parts (each its own short transaction): a first save of 100,000 rows holds no second copy.
                if changed.count >= Self.rowsPerWrite {
                    state.saveFiles(changed, removed: [])
                    changed.removeAll(keepingCapacity: true)
                }
            }
            now[key] = stored.hashValue
        }
        for (folderPath, folder) in tree.folders {
            for (name, file) in folder.files {
                add(folder.root, folder.relative.isEmpty ? name : folder.relative + "/" + name,
                    folderPath.hasSuffix("/") ? folderPath + name : folderPath + "/" + name, file)
            }
        }
        for (root, file) in tree.singleFiles { add(root, (roots[root] as NSString).lastPathComponent, roots[root], file) }
        var removed: [(root: RootKey, relative: String)] = []
        // A served folder that is missing now (an unplugged drive) keeps its rows for when it is back.
        let present = Set(roots.indices.filter { rootIsFile[$0] ? tree.singleFiles[$0] != nil : tree.folders[roots[$0]] != nil })
        for key in saved.keys where now[key] == nil && present.contains(key.root) {
            if let root = rootKeys[key.root] { removed.append((root, key.relative)) }
        }
        state.saveFiles(changed, removed: removed)
        saved = now
    }

    static let rowsPerWrite = 5000

    /// The rows of the clips at `paths` with their summaries now; false (nothing written) when one is not where the
    /// tree lists it, so the caller compares every row instead.
    private func saveSummaries(of paths: [String], _ tree: LibraryTree, _ saved: inout [SavedKey: Int], _ state: StateDatabase) -> Bool {
        var updates: [(key: SavedKey, root: RootKey, file: StoredFile)] = []
        for path in Set(paths) {
            let root: Int, relative: String, file: LibraryTree.File
            if let single = roots.indices.first(where: { rootIsFile[$0] && roots[$0] == path }) {
                guard let listed = tree.singleFiles[single] else { return false }
                (root, relative, file) = (single, (path as NSString).lastPathComponent, listed)
            } else {
                let name = (path as NSString).lastPathComponent
                guard let folder = tree.folders[(path as NSString).deletingLastPathComponent], let listed = folder.files[name] else { return false }
                (root, relative, file) = (folder.root, folder.relative.isEmpty ? name : folder.relative + "/" + name, listed)
            }
            guard let rootKey = rootKeys[root] else { continue }
            let summary = summaries.withLock { $0[path] }.flatMap { $0.version == file.version ? $0.summary : nil }
            let stored = StoredFile(relative: relative, version: file.version, isOutput: file.isOutput, summary: summary)
            let key = SavedKey(root: root, relative: relative)
            if saved[key] != stored.hashValue { updates.append((key, rootKey, stored)) }
        }
        for update in updates { saved[update.key] = update.file.hashValue }
        state.saveFiles(updates.map { ($0.root, $0.file) }, removed: [])
        return true
    }

    /// 16 hex digits of FNV-1a over the folder and the relative path: stable across runs and restarts.
    static func identifier(root: String, relative: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (root + "\u{0}" + relative).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// Files that crashed a worker: not handed to the engine again until their version (size, times, inode)
/// changes (or the server restarts), so one bad file cannot keep killing workers.
final class Quarantine: Sendable {
    private let crashed = Locked<[String: (version: FileVersion, reason: String)]>([:])

    func add(_ clip: Library.Clip, reason: String) {
        crashed.withLock { $0[clip.path] = (clip.version, reason) }
    }

    /// Why the clip's current version is not given to the engine, or nil.
    func reason(_ clip: Library.Clip) -> String? {
        crashed.withLock { $0[clip.path].flatMap { $0.version == clip.version ? $0.reason : nil } }
    }
}
