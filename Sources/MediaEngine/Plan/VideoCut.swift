/// A range's cut of the video: ticks of the source stream (`OutputVideo.timeBase`), on its own timestamps.
public struct VideoCut: Sendable, Equatable, Codable {
    /// Reading (and decoding) starts at this keyframe.
    public var keyframe: VideoPacket
    /// The frame a player shows at `start` (pts).
    public var frameAtStart: Int64
    /// The output's first presented frame (pts): the frame at `start`, or the keyframe when the lead-in is shown.
    public var firstShown: Int64
    /// The last packet written (copy modes) or sent to the decoder (exact), in decode order.
    public var lastNeeded: VideoPacket
    /// The last frame that begins before `end` (pts).
    public var lastWanted: Int64
    /// Where `lastWanted` ends: the next frame's pts (or its own duration at the stream's end). A join's next
    /// range starts at or after it, so no frame is shown twice.
    public var lastWantedEnd: Int64
    /// Where the output stops presenting (source ticks).
    public var presentedEnd: Int64
    /// Output ticks = source ticks − shift (copied packets; exact: frames after the first).
    public var shift: Int64
    /// The source time (ticks) at output time 0; equal to `shift` but in exact cuts whose first frame is
    /// shown whole (then `shift` is smaller by what that frame gains).
    public var outputZero: Int64
    /// MP4/MOV: the length of this range's edit (ticks of `OutputVideo.editTimeBase`), so the edit ends exactly where
    /// the cut does. Nil where the container has no edit lists.
    public var editDuration: Int64?
    /// Copies into MP4/MOV: where the latest frame among the written packets ends (source ticks), past
    /// `presentedEnd` when frames after `end` are written for the ones before it; a join's next range follows it.
    public var writtenEnd: Int64? = nil
    /// Exact cuts: the re-encoded frames' timing, on the output's exact grid (`OutputVideo.exactTimeBase`).
    public var exact: ExactTiming?
    /// The requested range in ticks (the start rounded down, the end up, to the stream's grid).
    public var startTicks: Int64
    public var endTicks: Int64
    /// The first copied access unit gets the source's x264 version SEI (`encoder_info_carried`).
    public var carriesEncoderInfo = false
    /// Where this cut's output zero lands on a joined output's timeline (exact cuts: `ExactTiming.outputStart`);
    /// zero for a single cut.
    public var outputStart = OutputTicks.zero
    /// A smart cut's re-encoded tail followed by the next range's head (a join): its decode times are set this
    /// many ticks early, as the head's are, so they stay in order across the seam. 0 for a single cut.
    public var tailDecodeDelay: Int64 = 0
    /// A join's head after a seam whose tail leaves it less room than the copied keyframe's reorder delay (an open
    /// GOP's leading pictures on both sides): its decode times are set this many ticks early instead. nil: K1's delay.
    public var headDecodeDelay: Int64?
    /// A smart join's range whose copied keyframe decodes less far ahead than another range's: its copied packets are
    /// written this many ticks earlier than their own decode times, so the whole output has one decode delay (the
    /// largest) and ranges with different delays still join. 0 elsewhere.
    public var copiedDecodeLead: Int64 = 0
    /// The delay the copied keyframe decodes ahead of its presentation on the output: its own plus `copiedDecodeLead`.
    func copiedKeyframeDelay(_ smart: SmartCutPlan) -> Int64 { smart.firstCopied.pts.minus(smart.firstCopied.dts).plus(copiedDecodeLead) }
    /// A single smart range of a constant-rate source whose copied keyframe lost its leading pictures: every packet's
    /// decode time on one grid (`DecodeGrid`); nil keeps the edges' and the source's own.
    public var decodeGrid: DecodeGrid?

    /// The decode time the keyframe is written with (source ticks): its own, or where it has none the one
    /// `DecodeTimeFill` gives the first packet of a range (`decodeDelayFrames`: the stream's reorder delay).
    public func keyframeDecodeTime(decodeDelayFrames: Int) -> Int64 {
        keyframe.dts != keyframe.pts || decodeDelayFrames == 0 ? keyframe.dts
            : keyframe.pts.minus(Int64(decodeDelayFrames).times(max(0, keyframe.duration)))
    }

    /// Where a copied packet's source time (pts or dts) lands on the output.
    public func output(_ sourceTicks: Int64) -> OutputTicks { outputStart.plus(sourceTicks.minus(shift)) }

    /// What copied packets' timestamps move by: source ticks minus this are output ticks.
    var packetShift: Int64 { shift.minus(outputStart.value) }
}

/// An exact cut's output timing, in ticks of the output's exact grid (`OutputVideo.exactTimeBase`): the source's,
/// refined (as FFmpeg's MP4 muxer refines it) to at least 10000 ticks a second, so a coarse source grid (1/10, 1/600)
/// does not round the range; every source tick is a whole number of these.
public struct ExactTiming: Sendable, Equatable, Codable {
    /// Output time 0: `start` (or the keyframe when the video starts later) in these ticks.
    public var zero: Int64
    /// Output ticks of frames after the first = their source time in these ticks − `shift`.
    public var shift: Int64
    /// `end` in these ticks: the last frame lasts until here.
    public var end: Int64
    /// The ticks are an AVI source's frame slots, written into AVI: a frame lasts only its own slot, so the
    /// last one is written again in the cut's last slot for the file to last until `end`.
    public var fillsLastSlot = false
    /// Where this cut begins on a joined output's timeline (these ticks); zero for a single cut.
    public var outputStart = OutputTicks.zero

    /// Where a re-encoded frame after the first (at `fineTicks` of the source, in these ticks) lands on the output.
    func output(_ fineTicks: Int64) -> OutputTicks { outputStart.plus(fineTicks.minus(shift)) }

    /// Where the cut ends on the output.
    var outputEnd: OutputTicks { outputStart.plus(end.minus(zero)) }
}
