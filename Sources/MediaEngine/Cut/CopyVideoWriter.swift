import CAV

/// Stream copy of the video: every packet from the plan's keyframe through the last one it needs, in
/// decode order, shifted by the plan's offset. Leading pictures of an open GOP at the keyframe (shown
/// before it, referencing the group before) are left out: they would not decode, and lie before the start.
final class CopyVideoWriter: VideoWriter {
    let outputIndex: Int
    private let output: OutputFile
    private let timeBase: AVRational
    private let video: VideoCut
    private var started = false
    private(set) var reachedPlannedEnd = false
    private(set) var latestPresentedEnd = Int64.min
    let notices: [CutNotice] = []

    init(output: OutputFile, outputIndex: Int, stream: UnsafeMutablePointer<AVStream>, video: VideoCut) {
        self.output = output
        self.outputIndex = outputIndex
        self.timeBase = stream.pointee.time_base
        self.video = video
    }

    func consume(_ packet: Packet) throws -> Bool {
        let timing = packet.timing
        if !started {
            guard timing.isSame(as: video.keyframe) else { return false }
            started = true
            if video.carriesEncoderInfo { try packet.setBytes(video.beginning.carried(into: packet.bytes)) }
        }
        if timing.pts < video.keyframe.pts, !timing.isKeyframe { return false }
        latestPresentedEnd = max(latestPresentedEnd, timing.pts.plus(max(0, timing.duration)))
        // A missing presentation time (AVI) takes the decode time; a missing decode time (Matroska's first
        // blocks) stays missing, and the muxer derives it from the presentation times.
        packet.pointer.pointee.pts = timing.pts
        packet.shift(by: video.shift)
        try output.write(packet, stream: outputIndex, timeBase: timeBase)
        if timing.isSame(as: video.lastNeeded) {
            reachedPlannedEnd = true
            return true
        }
        return false
    }

    func finish() throws {}
}
