import Foundation

/// The byte ranges of a remote file held so far, each kept once at its own offsets (not rounded to blocks: a fast
/// thumbnail fetches its keyframe's bytes and no more). Ranges never overlap: what arrives twice (two readers fetching
/// the same bytes at once) is kept the first time. Past `maximumBytes`, the oldest ranges are dropped. Pure.
struct ByteExtents {
    let maximumBytes: Int64
    /// Starts, sorted, and each start's bytes.
    private var starts: [Int64] = []
    private var bytesAt: [Int64: Data] = [:]
    /// Starts in the order they were stored (the oldest dropped first).
    private var stored: [Int64] = []
    private(set) var totalBytes: Int64 = 0

    init(maximumBytes: Int64) {
        self.maximumBytes = maximumBytes
    }

    /// The index of the last start at or before `position` (nil: none).
    private func index(atOrBefore position: Int64) -> Int? {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// The held bytes from `position` on within one range (empty when `position` is not held).
    func held(at position: Int64) -> Data {
        guard let index = index(atOrBefore: position), let data = bytesAt[starts[index]] else { return Data() }
        let within = position - starts[index]
        guard within < Int64(data.count) else { return Data() }
        return data.suffix(from: data.startIndex + Int(within))
    }

    /// Where the first range starting after `position` begins (a fetch from `position` stops there).
    func nextStart(after position: Int64) -> Int64? {
        let following = (index(atOrBefore: position) ?? -1) + 1
        return following < starts.count ? starts[following] : nil
    }

    /// `count` bytes at `position` when all are held (across adjacent ranges), else nil.
    func bytes(at position: Int64, count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let run = held(at: position + Int64(out.count))
            guard !run.isEmpty else { return nil }
            out += run.prefix(count - out.count)
        }
        return out
    }

    /// Keeps `data`, which begins at byte `start`: the parts not held already.
    mutating func insert(_ data: Data, at start: Int64) {
        let end = start + Int64(data.count)
        var position = start
        while position < end {
            let heldRun = Int64(held(at: position).count)
            if heldRun > 0 {
                position += heldRun
                continue
            }
            let gapEnd = min(end, nextStart(after: position) ?? end)
            let from = data.startIndex + Int(position - start), to = data.startIndex + Int(gapEnd - start)
            add(Data(data[from..<to]), at: position)
            position = gapEnd
        }
        while totalBytes > maximumBytes, !stored.isEmpty {
            let oldest = stored.removeFirst()
            if let data = bytesAt.removeValue(forKey: oldest), let index = index(atOrBefore: oldest), starts[index] == oldest {
                starts.remove(at: index)
                totalBytes -= Int64(data.count)
            }
        }
    }

    private mutating func add(_ data: Data, at start: Int64) {
        guard !data.isEmpty else { return }
        starts.insert(start, at: (index(atOrBefore: start) ?? -1) + 1)
        bytesAt[start] = data
        stored.append(start)
        totalBytes += Int64(data.count)
    }

    /// The ranges held, in order (for tests).
    var ranges: [Range<Int64>] { starts.compactMap { start in bytesAt[start].map { start..<(start + Int64($0.count)) } } }
}
