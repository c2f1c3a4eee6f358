import CAV

/// HDR (PQ, HLG) frames to SDR BT.709 as a player's SDR rendering shows them, with libavfilter's standard
/// recipe: zscale to linear light (100 nits nominal peak), BT.709 primaries, Hable's tone curve without
/// desaturation, back to the BT.709 transfer. The picture is resized to the target first, so the curve
/// runs on cell-sized frames only. One graph per worker (FFmpeg objects stay on their thread); it is
/// rebuilt when the source format or the target size changes.
final class ToneMapper {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var key: Key?
    private let output: Frame

    private struct Key: Equatable {
        var width: Int32, height: Int32, format: Int32, targetWidth: Int, targetHeight: Int
    }

    init() throws(AVFailure) {
        output = try Frame()
    }

    deinit {
        // Only a graph that was built: freeing nothing must not load libavfilter.
        if graph != nil { cav_avfilter_graph_free(&graph) }
    }

    /// Whether a frame needs tone mapping: its transfer is PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    static func isHDR(_ frame: Frame) -> Bool {
        let transfer = frame.pointer.pointee.color_trc
        return transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67
    }

    /// The frame tone-mapped to 8-bit full-range RGB planes (gbrp) of `width`×`height` (coded orientation).
    /// The returned frame is reused by the next call.
    func map(_ frame: Frame, width: Int, height: Int) throws(AVFailure) -> Frame {
        let input = frame.pointer.pointee
        let wanted = Key(width: input.width, height: input.height, format: input.format, targetWidth: width, targetHeight: height)
        if wanted != key { try build(wanted, timeBase: AVRational(num: 1, den: 1)) }
        // The source keeps its own reference: the caller still owns `frame`.
        var status = cav_av_buffersrc_add_frame_flags(source, frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        if status < 0 { throw AVFailure(code: status, operation: "av_buffersrc_add_frame_flags") }
        output.unref()
        status = cav_av_buffersink_get_frame(sink, output.pointer)
        if status < 0 {
            key = nil
            throw AVFailure(code: status, operation: "av_buffersink_get_frame (tone mapping)")
        }
        return output
    }

    private func build(_ key: Key, timeBase: AVRational) throws(AVFailure) {
        cav_avfilter_graph_free(&graph)
        self.key = nil
        guard cav_avfilter_available() != 0 else {
            throw AVFailure(code: cav_averror(ENOSYS), operation: "dlopen libavfilter (tone mapping)")
        }
        guard let graph = cav_avfilter_graph_alloc() else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avfilter_graph_alloc") }
        self.graph = graph
        // The sampler's decoder threads are the thread budget; the graph stays on this one.
        graph.pointee.nb_threads = 1
        let arguments = "video_size=\(key.width)x\(key.height):pix_fmt=\(key.format):time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=1/1"
        var status = cav_avfilter_graph_create_filter(&source, cav_avfilter_get_by_name("buffer"), "in", arguments, nil, graph)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_create_filter(buffer)") }
        status = cav_avfilter_graph_create_filter(&sink, cav_avfilter_get_by_name("buffersink"), "out", nil, nil, graph)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_create_filter(buffersink)") }
        let chain = "zscale=w=\(key.targetWidth):h=\(key.targetHeight):filter=bicubic:t=linear:npl=100,format=gbrpf32le,"
            + "zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=pc,format=gbrp"
        // As FFmpeg's filtering example: parse_ptr takes both lists and leaves in them what it did not
        // link; whatever they hold afterwards is freed here.
        var outputs = cav_avfilter_inout_alloc(), inputs = cav_avfilter_inout_alloc()
        defer {
            cav_avfilter_inout_free(&outputs)
            cav_avfilter_inout_free(&inputs)
        }
        guard let outputList = outputs, let inputList = inputs else {
            throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avfilter_inout_alloc")
        }
        outputList.pointee.name = av_strdup("in")
        outputList.pointee.filter_ctx = source
        outputList.pointee.pad_idx = 0
        outputList.pointee.next = nil
        inputList.pointee.name = av_strdup("out")
        inputList.pointee.filter_ctx = sink
        inputList.pointee.pad_idx = 0
        inputList.pointee.next = nil
        status = cav_avfilter_graph_parse_ptr(graph, chain, &inputs, &outputs, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_parse_ptr(zscale, tonemap)") }
        status = cav_avfilter_graph_config(graph, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_config") }
        self.key = key
    }
}
