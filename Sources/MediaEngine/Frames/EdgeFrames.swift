import CAV
import Locking

/// Pictures the scene pass of `cut --propose scenes` has decoded that a smart head will encode again: from each frame
/// that scores as a cut up to the next keyframe, held as references (no copies) within a memory budget until the head
/// that starts there takes them. Such a head does not seek and decode its group of pictures a second time. A head
/// takes a run only when the run holds every frame it encodes, decoded as its own decoder would decode them; any
/// other head decodes from its keyframe as before.
public final class EdgeFrames: Sendable {
    /// What runs may hold at once: 256 MiB, about 190 pictures of 720p or 40 of 4K.
    public static let defaultBudgetBytes = 256 << 20

    /// A run of consecutive pictures in presentation order, the first of them a possible cut, closed by the next keyframe
    /// (not held).
    struct Run: Sendable {
        var id: Int
        var firstPts: Int64
        var closingPts: Int64
        var bytes: Int
    }

    private struct State: Sendable {
        var closed: [Run] = []
        var nextRun = 0
        /// Bytes of the runs held and of the one being filled.
        var bytes = 0
        var served = 0
    }

    public let budgetBytes: Int
    private let state = Locked(State())
    /// Each picture goes from the scene pass to the one head that takes its run, keyed by its run's id, in order.
    private let pictures = HandOff<Int, Frame>()

    public init(budgetBytes: Int = defaultBudgetBytes) {
        self.budgetBytes = max(0, budgetBytes)
    }

    /// Heads served from held pictures so far.
    public var served: Int { state.withLock { $0.served } }
    /// Runs held, not yet taken.
    public var runCount: Int { state.withLock { $0.closed.count } }

    /// Whether a run from `firstPts` closed by the keyframe at `closingPts` holds every frame of a head that starts with
    /// the frame at `frameAtStart` and ends before `end` (source ticks): the run's frames are every picture between.
    static func covers(firstPts: Int64, closingPts: Int64, frameAtStart: Int64, end: Int64) -> Bool {
        frameAtStart < end && firstPts <= frameAtStart && end <= closingPts
    }

    /// The pictures of the run that holds a head's frames, in order, taken out (each run serves one head: its pictures are
    /// handed to the encoder), and the keyframe that closed it.
    func take(frameAtStart: Int64, end: Int64) -> (frames: [Frame], closingPts: Int64)? {
        let found = state.withLock { state -> Run? in
            guard let index = state.closed.firstIndex(where: {
                Self.covers(firstPts: $0.firstPts, closingPts: $0.closingPts, frameAtStart: frameAtStart, end: end)
            }) else { return nil }
            let run = state.closed.remove(at: index)
            state.bytes = max(0, state.bytes - run.bytes)
            state.served += 1
            return run
        }
        guard let found else { return nil }
        return (pictures.takeAll { $0 == found.id }, found.closingPts)
    }

    fileprivate func newRun() -> Int {
        state.withLock { state in
            defer { state.nextRun &+= 1 }
            return state.nextRun
        }
    }

    /// Room for `bytes` more within the budget, claimed if there is.
    fileprivate func claim(_ bytes: Int) -> Bool {
        state.withLock { state in
            let (total, overflow) = state.bytes.addingReportingOverflow(bytes)
            guard !overflow, total <= budgetBytes else { return false }
            state.bytes = total
            return true
        }
    }

    fileprivate func keep(_ picture: sending Frame, run: Int) {
        pictures.put(picture, key: run)
    }

    fileprivate func close(_ run: Run) {
        state.withLock { $0.closed.append(run) }
    }

    /// A run that will serve no head: its pictures and their bytes given back.
    fileprivate func discard(run: Int, bytes: Int) {
        _ = pictures.takeAll { $0 == run }
        state.withLock { $0.bytes = max(0, $0.bytes - bytes) }
    }
}

/// The scene pass's side of `EdgeFrames`: sees every picture the decoder gives, in order, and keeps runs. A run ends
/// unkept where it would not be what a head's own decoder gives: a damaged picture or a decoder error within it, a
/// picture without a time or not later than the one before (then the pictures between two times need not be the run's),
/// the budget spent, or the file ending before a keyframe.
struct EdgeFrameCollector {
    let target: EdgeFrames
    private var open: (id: Int, firstPts: Int64, bytes: Int, errors: Int)?
    /// The time of the picture before, any run or none.
    private var previousPts: Int64?

    init(_ target: EdgeFrames) {
        self.target = target
    }

    /// One decoded picture. `timestamp`: its time (source ticks; nil without one); `startsRun`: it scores as a cut;
    /// `decoderErrors`: the decoder's error count after it.
    mutating func take(_ frame: Frame, timestamp: Int64?, startsRun: Bool, decoderErrors: Int) {
        let isKey = frame.pointer.pointee.key_frame != 0
        let inOrder = timestamp.map { now in previousPts.map { now > $0 } ?? true } ?? false
        previousPts = timestamp
        if let current = open {
            if decoderErrors != current.errors || frame.isDamaged || !inOrder {
                drop()
            } else if isKey, let timestamp {
                open = nil
                target.close(EdgeFrames.Run(id: current.id, firstPts: current.firstPts, closingPts: timestamp, bytes: current.bytes))
            } else if !append(frame) {
                drop()
            }
        }
        // A cut on a keyframe needs no head.
        if open == nil, startsRun, !isKey, !frame.isDamaged, inOrder, let timestamp {
            open = (target.newRun(), timestamp, 0, decoderErrors)
            if !append(frame) { drop() }
        }
    }

    /// The file ended: a run without a keyframe after it is no head's.
    mutating func finish() {
        drop()
    }

    /// Whether the picture was kept: not over the budget, nor (out of memory) unreferenced — the head then decodes.
    private mutating func append(_ frame: Frame) -> Bool {
        guard let id = open?.id else { return false }
        let f = frame.pointer.pointee
        let size = av_image_get_buffer_size(AVPixelFormat(rawValue: f.format), f.width, f.height, 1)
        guard size > 0, target.claim(Int(size)) else { return false }
        open?.bytes += Int(size)
        guard let picture = try? frame.reference() else { return false }
        target.keep(picture, run: id)
        return true
    }

    private mutating func drop() {
        if let current = open { target.discard(run: current.id, bytes: current.bytes) }
        open = nil
    }
}
