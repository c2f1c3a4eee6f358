/// The start of a VP9 frame's uncompressed header (VP9 bitstream specification 0.6, §6.2): what a smart cut must
/// know of the source's frames and check on its edges' — VP9 has no sequence header, so the profile, bit depth,
/// colour space, range and subsampling a decoder uses come with each keyframe (and intra-only frame), and a
/// decoder does not complain when they change mid-stream (a 10-bit edge spliced before 8-bit GOPs decodes).
/// Parsed by hand: libavcodec's VP9 parser keeps none of these fields, and its CBS reader is not public API.
/// Every read is bounded by the bytes given: a damaged frame gives nil, never a trap.
struct VP9FrameHeader: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A keyframe: decodable on its own, resets every reference.
        case keyframe
        /// An inter frame that codes no motion (refreshes references without depending on them).
        case intraOnly
        case inter
        /// Shows a frame decoded earlier (`frame_to_show_map_idx`); no picture of its own.
        case showExisting
    }

    /// VP9's colour spaces (`color_space`), numbered as the specification does.
    enum ColorSpace: Int, Sendable {
        case unknown = 0, bt601 = 1, bt709 = 2, smpte170 = 3, smpte240 = 4, bt2020 = 5, reserved = 6, rgb = 7
    }

    /// What keyframes (and intra-only frames of profiles above 0) state of their pictures.
    struct ColorConfig: Equatable, Sendable {
        var bitDepth: Int
        var colorSpace: ColorSpace
        /// `color_range`: true for full range (0–255), false for studio range.
        var fullRange: Bool
        var subsamplingX: Int
        var subsamplingY: Int
    }

    var profile: Int
    var kind: Kind
    /// `show_frame` (true for `showExisting`): a keyframe not shown (a forward keyframe) is no place to copy from.
    var showFrame: Bool
    var errorResilient: Bool
    /// Keyframes and intra-only frames; nil for inter frames, which inherit it.
    var color: ColorConfig?
    /// The coded size (`frame_width_minus_1 + 1`…), keyframes and intra-only frames.
    var width: Int?
    var height: Int?

    /// A keyframe that is shown: where a copy may start.
    var isShownKeyframe: Bool { kind == .keyframe && showFrame }

    /// The header of `frame` (one frame, not a superframe: see `VP9Superframe.frames`); nil when it is not a VP9
    /// frame header or ends before the fields read.
    init?(_ frame: [UInt8]) {
        var bits = RBSPBits(rbsp: frame)
        guard bits.read(2) == 2, let low = bits.read(1), let high = bits.read(1) else { return nil }
        profile = high << 1 | low
        if profile == 3 { guard bits.read(1) == 0 else { return nil } }
        guard let showExisting = bits.read(1) else { return nil }
        if showExisting == 1 {
            guard bits.read(3) != nil else { return nil }
            (kind, showFrame, errorResilient, color, width, height) = (.showExisting, true, false, nil, nil, nil)
            return
        }
        guard let frameType = bits.read(1), let shown = bits.read(1), let resilient = bits.read(1) else { return nil }
        showFrame = shown == 1
        errorResilient = resilient == 1
        if frameType == 0 {
            kind = .keyframe
            guard Self.readSyncCode(&bits), let color = Self.readColorConfig(&bits, profile: profile) else { return nil }
            self.color = color
        } else {
            let intraOnly = showFrame ? 0 : bits.read(1)
            guard let intraOnly else { return nil }
            if !errorResilient { guard bits.read(2) != nil else { return nil } }  // reset_frame_context
            guard intraOnly == 1 else {
                (kind, color, width, height) = (.inter, nil, nil, nil)
                return
            }
            kind = .intraOnly
            guard Self.readSyncCode(&bits) else { return nil }
            if profile > 0 {
                guard let color = Self.readColorConfig(&bits, profile: profile) else { return nil }
                self.color = color
            } else {
                // Profile 0's intra-only frames state nothing: 8-bit 4:2:0 BT.601, studio range (§7.2).
                color = ColorConfig(bitDepth: 8, colorSpace: .bt601, fullRange: false, subsamplingX: 1, subsamplingY: 1)
            }
            guard bits.read(8) != nil else { return nil }  // refresh_frame_flags
        }
        guard let widthMinusOne = bits.read(16), let heightMinusOne = bits.read(16) else { return nil }
        width = widthMinusOne + 1
        height = heightMinusOne + 1
    }

    private static func readSyncCode(_ bits: inout RBSPBits) -> Bool {
        bits.read(8) == 0x49 && bits.read(8) == 0x83 && bits.read(8) == 0x42
    }

    private static func readColorConfig(_ bits: inout RBSPBits, profile: Int) -> ColorConfig? {
        var depth = 8
        if profile >= 2 {
            guard let twelve = bits.read(1) else { return nil }
            depth = twelve == 1 ? 12 : 10
        }
        guard let space = bits.read(3).flatMap(ColorSpace.init(rawValue:)) else { return nil }
        let oddProfile = profile == 1 || profile == 3
        if space != .rgb {
            guard let range = bits.read(1) else { return nil }
            var (x, y) = (1, 1)
            if oddProfile {
                guard let readX = bits.read(1), let readY = bits.read(1), bits.read(1) == 0 else { return nil }
                (x, y) = (readX, readY)
            }
            return ColorConfig(bitDepth: depth, colorSpace: space, fullRange: range == 1, subsamplingX: x, subsamplingY: y)
        }
        // RGB is 4:4:4 full range, and only in profiles 1 and 3.
        guard oddProfile, bits.read(1) == 0 else { return nil }
        return ColorConfig(bitDepth: depth, colorSpace: space, fullRange: true, subsamplingX: 0, subsamplingY: 0)
    }
}

/// A VP9 packet holds one frame or a superframe: frames back to back with an index at the end (Annex B of the
/// VP9 specification) — libvpx puts a hidden alt-ref frame and the frame shown after it in one packet.
enum VP9Superframe {
    /// The packet's frames in decode order; the packet itself when it has no valid index; nil when the index
    /// claims more bytes than the packet holds before it.
    static func frames(in packet: [UInt8]) -> [[UInt8]]? {
        guard let marker = packet.last, marker & 0xE0 == 0xC0 else { return [packet] }
        let sizeBytes = Int(marker >> 3 & 3) + 1, count = Int(marker & 7) + 1
        let indexSize = 2 + sizeBytes * count
        // The index begins and ends with the marker byte; otherwise the last byte is only frame data.
        guard packet.count >= indexSize, packet[packet.count - indexSize] == marker else { return [packet] }
        var frames: [[UInt8]] = []
        var offset = 0, entry = packet.count - indexSize + 1
        let dataEnd = packet.count - indexSize
        for _ in 0..<count {
            var size = 0
            for byte in 0..<sizeBytes { size |= Int(packet[entry + byte]) << (8 * byte) }
            entry += sizeBytes
            guard size > 0, size <= dataEnd - offset else { return nil }
            frames.append(Array(packet[offset..<(offset + size)]))
            offset += size
        }
        return frames
    }

    /// The headers of the packet's frames, in decode order; nil when the packet or a frame's header is damaged.
    static func headers(in packet: [UInt8]) -> [VP9FrameHeader]? {
        guard let frames = frames(in: packet) else { return nil }
        var headers: [VP9FrameHeader] = []
        for frame in frames {
            guard let header = VP9FrameHeader(frame) else { return nil }
            headers.append(header)
        }
        return headers
    }
}
