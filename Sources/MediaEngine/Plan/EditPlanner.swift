/// Puts ranges planned one by one (`RangePlanner`) into one output — one range or many, the same way — and
/// decides the output once (`OutputPlan`): pure, so tests build the range drafts from facts made by hand. Each range
/// keeps its own timing, moved to where it begins on the output's timeline, so its frames follow the range before it
/// without a gap or an overlap; decode times stay in order across each seam.
enum EditPlanner {
    enum Decision {
        case plan(EditPlan)
        /// Smart was asked but the ranges cannot all be joined smartly: plan every range exactly.
        case replanExact(SmartFallback)
    }

    /// What the edit is planned from besides its ranges: the source as the first range's survey read it (what is
    /// alike in every range), the kept streams (`StreamSelection`), the ranges' labels and how a join's audio meets.
    struct Edit {
        var source: CutFacts
        var streams: [KeptStream]
        var streamNotices: [CutNotice]
        var labels: [String?] = []
        var audioSeams: AudioSeams = .nearest
        /// Smart was asked but could not join: the ranges were planned again exactly, for this reason.
        var replannedBecause: SmartFallback?
    }

    static func plan(_ drafts: [RangeDraft], edit: Edit) throws(MediaError) -> Decision {
        let path = edit.source.path
        guard let first = drafts.first else {
            throw MediaError(.invalidRange, path: path, operation: "ranges", reason: "no range to keep")
        }
        let mode = first.mode
        let requested = edit.source.requestedMode
        var sampleEntry = first.sampleEntry
        var smartHeader = first.smartHeader
        if requested == .smart, drafts.count > 1, drafts.contains(where: { $0.mode == .smart }) {
            if let fallback = drafts.lazy.compactMap(\.smartFallback).first { return .replanExact(fallback) }
            if let why = smartMismatch(drafts) { return .replanExact(.rangesDiffer(why)) }
            // Ranges re-encoded whole take the copied ranges' sample entry and stream header (its parameter set ids).
            guard let copying = drafts.first(where: { $0.range.smart?.reencodesWhole == false }) else { return .replanExact(.nothingToCopy) }
            sampleEntry = copying.sampleEntry
            smartHeader = copying.smartHeader
        }
        let container = edit.source.container
        // Copies into MP4/MOV: each range's packets follow the ones before in the media, and an edit per range shows
        // only its own frames.
        let editsPerRange = drafts.count > 1 && first.range.video != nil && container.editLists && (mode == .copy || mode == .keyframe)
        if editsPerRange, let entry = sampleEntry, drafts.contains(where: { $0.sampleEntry != entry }) {
            throw MediaError(.unsupportedContainer, path: path, operation: "join",
                             reason: "the ranges' parameter sets differ, so their copies cannot share one track in \(container.formatName)",
                             remedy: .joinSmartOrOtherContainer)
        }
        let stream = edit.source.video.map { OutputVideo.make($0, mode: mode, container: container) }
        var placed = RangePlacement.place(drafts.map(\.range), stream: stream, mode: mode, container: container,
                                          editsPerRange: editsPerRange, labels: edit.labels)
        // A smart cut's decode times: re-encoded parts whose decode times rise across every seam, one step apart where
        // they can (`SeamDecodeTimes`) — a join that finds no such choice is made exactly (a range ending among an open
        // GOP's leading pictures: gridded anyway, FFmpeg's decoder drops the next head's last frames); then, from a
        // constant-rate source, every packet on one grid (`DecodeGrid`). A single range keeps the writers' defaults.
        if mode == .smart {
            if placed.ranges.count > 1 { OneDecodeDelay.apply(&placed.ranges) }
            let chosen = SeamDecodeTimes.delays(placed.ranges)
            if chosen == nil, placed.ranges.count > 1 { return .replanExact(.rangesDiffer(SeamDecodeTimes.problem)) }
            for (index, delay) in (chosen ?? []).enumerated() {
                // A single range's head keeps K1's own delay, as it always has; only its tail moves onto the copy's.
                if placed.ranges.count > 1 { placed.ranges[index].video?.headDecodeDelay = delay.head }
                placed.ranges[index].video?.tailDecodeDelay = delay.tail
            }
            if let facts = edit.source.video { DecodeGrid.apply(&placed.ranges, frameTicks: facts.constantFrameTicks) }
        }
        let output = OutputPlanner.output(placed, drafts: drafts, edit: edit, mode: mode, sampleEntry: sampleEntry,
                                          smartHeader: smartHeader, stream: stream, editsPerRange: editsPerRange)
        return .plan(EditPlan(output: output, ranges: placed.ranges))
    }

    /// Why smart ranges cannot share one video track: their sample entries (the record every range's samples
    /// refer to) or their stream headers differ. (Copied keyframes' decode delays may differ: `OneDecodeDelay`.)
    static func smartMismatch(_ drafts: [RangeDraft]) -> String? {
        let copying = drafts.filter { $0.range.smart?.reencodesWhole != true }
        if let entry = copying.first?.sampleEntry, copying.contains(where: { $0.sampleEntry != entry }) {
            return "the parameter sets differ between ranges"
        }
        if Set(copying.map(\.smartHeader?.units)).count > 1 {
            return "the sequence headers differ between ranges"
        }
        return nil
    }
}

/// A smart join's one decode delay: the largest any range's copied keyframe has; each other copying range's packets
/// decode earlier by the difference (their bytes as they are), so ranges whose keyframes decode at different delays
/// (an HEVC stream's IDR and its CRAs) join smart rather than all exact, and decode times keep one step. Pure.
enum OneDecodeDelay {
    static func apply(_ ranges: inout [RangePlan]) {
        func own(_ range: RangePlan) -> Int64? {
            guard let smart = range.smart, !smart.reencodesWhole else { return nil }
            return max(0, smart.firstCopied.pts.minus(smart.firstCopied.dts))
        }
        guard let largest = ranges.compactMap(own).max() else { return }
        for index in ranges.indices {
            if let delay = own(ranges[index]) { ranges[index].video?.copiedDecodeLead = largest.minus(delay) }
        }
    }
}
