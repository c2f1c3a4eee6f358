import CAV

/// Black spans in decoded video, by libavfilter's `blackdetect` (a picture is black when 98 % of its pixels are at or
/// under the pixel threshold). The filter marks the frame where black starts and the first frame after it ends; their
/// own timestamps give the span (exact, not the filter's 6-digit text), and the minimum length is applied here. The
/// mean luma of the black frames is measured on the frames as they pass.
final class BlackDetector {
    private let query: ContentQuery.Black
    private var chain: FilterChain?
    private var chainKey: [Int32] = []
    private let timeBase: AVRational
    private let originMicro: Int64
    private(set) var found: [Detection] = []
    private var openStart: Int64?
    private var lumaSum = 0.0, lumaFrames = 0
    private var lastEndMicro: Int64?
    /// A new graph (the picture changed size or format) has handed out no frame yet: a span open before it continues
    /// only if its first frame is black too.
    private var freshGraph = false

    init(_ query: ContentQuery.Black, timeBase: AVRational, originMicro: Int64) {
        self.query = query
        self.timeBase = timeBase
        self.originMicro = originMicro
    }

    /// A decoded frame whose `pts` is set (stream ticks).
    func take(_ frame: Frame) throws(AVFailure) {
        let f = frame.pointer.pointee
        let key = [f.width, f.height, f.format]
        if chain == nil || key != chainKey {
            // A change of size or format mid-stream: a graph for the new one. Draining ends the old one's run without
            // marking its end, so the new graph's first frame decides whether a span open across the change continues.
            try drain()
            freshGraph = true
            chain = try FilterChain(
                sourceName: "buffer",
                sourceArguments: "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=1/1",
                chain: "blackdetect=d=0:pic_th=0.98:pix_th=\(query.pixelThreshold)")
            chainKey = key
        }
        try chain?.filter(frame) { out throws(AVFailure) in self.filtered(out) }
    }

    /// The end of the stream: a span still open lasts to the end of the last frame.
    func finish() throws(AVFailure) {
        try drain()
        if let start = openStart, let end = lastEndMicro { close(start: start, end: end) }
        openStart = nil
    }

    private func drain() throws(AVFailure) {
        try chain?.filter(nil) { out throws(AVFailure) in self.filtered(out) }
        chain = nil
    }

    private func filtered(_ frame: Frame) {
        let f = frame.pointer.pointee
        guard f.pts != CAV_NOPTS_VALUE else { return }
        let micro = av_rescale_q(f.pts, timeBase, cav_time_base_q()).minus(originMicro)
        let starts = av_dict_get(f.metadata, "lavfi.black_start", nil, 0) != nil
        if freshGraph {
            freshGraph = false
            if let start = openStart, !starts {
                close(start: start, end: micro)
                openStart = nil
            }
        }
        if av_dict_get(f.metadata, "lavfi.black_end", nil, 0) != nil, let start = openStart {
            close(start: start, end: micro)
            openStart = nil
        }
        if starts, openStart == nil {
            openStart = micro
            lumaSum = 0
            lumaFrames = 0
        }
        if openStart != nil, let luma = Self.meanLuma(frame) {
            lumaSum += luma
            lumaFrames += 1
        }
        let duration = f.pkt_duration > 0 ? av_rescale_q(f.pkt_duration, timeBase, cav_time_base_q()) : 0
        lastEndMicro = micro.plus(duration)
    }

    private func close(start: Int64, end: Int64) {
        guard end > start, Double(end.minus(start)) >= query.minSeconds * 1e6 else { return }
        let luma = lumaFrames > 0 ? ((lumaSum / Double(lumaFrames)) * 1000).rounded() / 1000 : nil
        found.append(Detection(kind: .black, startMicro: start, endMicro: end, measure: luma))
    }

    /// The mean of the luma plane (0…1 of the codes' range), read on a grid of every 4th pixel of every 4th row; nil
    /// for a picture without a luma plane of 8 to 16 bits.
    static func meanLuma(_ frame: Frame) -> Double? {
        let f = frame.pointer.pointee
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.format)), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
              descriptor.pointee.nb_components >= 1, let plane = f.data.0, f.width > 0, f.height > 0 else { return nil }
        let depth = Int(descriptor.pointee.comp.0.depth), step = Int(descriptor.pointee.comp.0.step)
        guard (8...16).contains(depth), descriptor.pointee.comp.0.plane == 0, step >= 1 else { return nil }
        let lineBytes = Int(f.linesize.0), width = Int(f.width), height = Int(f.height)
        let offset = Int(descriptor.pointee.comp.0.offset), shift = Int(descriptor.pointee.comp.0.shift)
        guard lineBytes > 0 else { return nil }
        let maximum = Double((1 << depth) - 1)
        var sum = 0.0, count = 0
        for row in stride(from: 0, to: height, by: 4) {
            let line = UnsafeRawPointer(plane).advanced(by: row * lineBytes)
            for column in stride(from: 0, to: width, by: 4) {
                let position = column * step + offset
                let code = depth > 8 ? Int(line.loadUnaligned(fromByteOffset: position, as: UInt16.self)) >> shift
                    : Int(line.load(fromByteOffset: position, as: UInt8.self)) >> shift
                sum += Double(code & ((1 << depth) - 1))
                count += 1
            }
        }
        return count > 0 ? sum / Double(count) / maximum : nil
    }
}
