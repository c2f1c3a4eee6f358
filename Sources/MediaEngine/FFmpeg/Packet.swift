import CAV
import Glibc

/// Owns one AVPacket.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(AVFailure) {
        guard let packet = av_packet_alloc() else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "av_packet_alloc")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    func unref() { av_packet_unref(pointer) }

    /// The packet's payload bytes.
    var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// Lends the payload in place, without a copy, for the duration of `body` only (the bytes belong to
    /// the packet and change with it).
    func withData<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let count = pointer.pointee.data == nil ? 0 : max(0, Int(pointer.pointee.size))
        return try withExtendedLifetime(self) { try body(UnsafeBufferPointer(start: pointer.pointee.data, count: count)) }
    }

    /// Replaces the payload (keeping timestamps and flags).
    func setBytes(_ bytes: [UInt8]) throws(AVFailure) {
        let replacement = try Packet()
        guard let size = Int32(exactly: bytes.count) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_new_packet") }
        var status = av_new_packet(replacement.pointer, size)
        if status < 0 { throw AVFailure(code: status, operation: "av_new_packet") }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { replacement.pointer.pointee.data.update(from: base, count: bytes.count) }
        }
        status = av_packet_copy_props(replacement.pointer, pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_packet_copy_props") }
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, replacement.pointer)
    }

    /// A new packet referencing the same data (to hold it for later).
    func clone() throws(AVFailure) -> Packet {
        let copy = try Packet()
        let status = av_packet_ref(copy.pointer, pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_packet_ref") }
        return copy
    }

    var streamIndex: Int { Int(pointer.pointee.stream_index) }
    var pts: Int64 { pointer.pointee.pts }
    var dts: Int64 { pointer.pointee.dts }
    var duration: Int64 { pointer.pointee.duration }
    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// Copies keep the keyframe flag (a sync sample, a random-access indicator) only on clean starts:
    /// players seek to flagged samples and begin decoding there.
    func keepKeyframeFlagOnlyIfClean(_ rule: CleanStart) {
        if isKeyframe, !rule.isClean(self) { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
    }
    /// Decoded but not shown: outside the source's edit list.
    var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
}

/// An encoded packet as a value — payload, timing, flags — so it can cross threads checked (`Sendable`): an
/// edge's thread hands these to the writer, where a `Packet` (one AVPacket) stays with the thread that made it.
struct EncodedPacket: Sendable {
    var bytes: [UInt8]
    var pts: Int64
    var dts: Int64
    var duration: Int64
    var flags: Int32

    init(_ packet: Packet) {
        bytes = packet.bytes
        pts = packet.pts
        dts = packet.dts
        duration = packet.duration
        flags = packet.pointer.pointee.flags
    }

    /// A new AVPacket holding a copy of the payload and the timing.
    func packet() throws(AVFailure) -> Packet {
        let made = try Packet()
        guard let size = Int32(exactly: bytes.count) else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "av_new_packet") }
        let status = av_new_packet(made.pointer, size)
        if status < 0 { throw AVFailure(code: status, operation: "av_new_packet") }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { made.pointer.pointee.data.update(from: base, count: bytes.count) }
        }
        made.pointer.pointee.pts = pts
        made.pointer.pointee.dts = dts
        made.pointer.pointee.duration = duration
        made.pointer.pointee.flags = flags
        return made
    }
}
