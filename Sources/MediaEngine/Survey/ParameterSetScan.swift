import CAV
import Foundation
import Locking

/// What a stream's parameter sets are read against: its codec (H.264 or HEVC, else nil), its record
/// (`extradata`: avcC/hvcC, or Annex B sets) and sample entry tag, as values another thread can hold.
struct SourceRecord: Sendable {
    var codec: NALUnits.Codec?
    var extradata: [UInt8]
    var tag: String?

    init(_ parameters: AVCodecParameters) {
        codec = parameters.codec_id == AV_CODEC_ID_HEVC ? .hevc : parameters.codec_id == AV_CODEC_ID_H264 ? .h264 : nil
        extradata = parameters.extradataBytes
        tag = parameters.codec_tag == 0 ? nil : Probe.fourCC(parameters.codec_tag)
    }
}

/// The range's parameter sets (`PacketReader.parameterSets`) read on a thread of its own, through a demuxer of its
/// own, while the planner's thread runs the smart encoder's trial: a smart cut's plan waits for the longer of the
/// two rather than their sum. The demuxer is opened without reading into the streams (a second probe would cost
/// what the overlap saves), so its stream must be the planner's — same index, id and codec — or `value` is nil
/// and the planner reads the sets itself.
final class ParameterSetScan: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Set once by the scan's thread before it signals `done`; read after waiting.
    private let result = Locked<Result<SourceParameterSets??, MediaError>?>(nil)

    init(path: String, index: Int, streamID: Int32, codecID: UInt32, record: SourceRecord, mode: CutMode,
         from keyframe: VideoPacket, through last: VideoPacket?, origin: Int64) {
        let status = DetachedThread.create { [self] in
            let outcome = Result { () throws(MediaError) -> SourceParameterSets?? in
                let input = try InputFile(path: path, analyze: false)
                guard let stream = input.stream(index), stream.pointee.id == streamID,
                      stream.pointee.codecpar?.pointee.codec_id.rawValue == codecID else { return .none }
                let reader = PacketReader(input: input, index: index, stream: stream, path: path)
                let sets = try StageTimes.measure("parameter sets") { () throws(MediaError) in
                    try reader.parameterSets(record, mode: mode, from: keyframe, through: last, origin: origin)
                }
                return .some(sets)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        // No thread (out of threads or memory): no outcome, so `value` is nil and the planner reads the sets itself.
        if status != 0 { done.signal() }
    }

    /// Waits for the scan: the sets (nil inside: none readable), or nil when this scan could not stand in for the
    /// planner's own read (another stream at the index, the file would not open again, or reading failed: the
    /// planner's read meets that itself and says so).
    func value() -> SourceParameterSets?? {
        done.wait()
        guard case let .success(sets)? = result.withLock({ $0.take() }) else { return nil }
        return sets
    }
}
