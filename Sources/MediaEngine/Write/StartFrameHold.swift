import CAV

/// The frame shown at a cut's start: decoded frames arrive in presentation order, and the latest one at
/// or before `start` is the one a player shows there (DESIGN.md), so it is held until a later frame (or
/// the end of input) releases it to be encoded at output time 0.
final class StartFrameHold {
    private let startTicks: Int64
    private var held: Frame?

    init(startTicks: Int64) { self.startTicks = startTicks }

    /// Takes `frame` (moving its data) when it is at or before the start; returns whether it did.
    func take(_ frame: Frame) throws -> Bool {
        guard frame.timestamp <= startTicks else { return false }
        let holder = try held ?? Frame()
        holder.unref()
        av_frame_move_ref(holder.pointer, frame.pointer)
        held = holder
        return true
    }

    /// The held frame, once.
    func release() -> Frame? {
        defer { held = nil }
        return held
    }
}
