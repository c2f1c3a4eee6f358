import CAV

/// One libavfilter graph: a `buffer` (video) or `abuffer` (audio) source, a chain of filters given as text, and a
/// buffer sink. Built and run on one thread (FFmpeg's filter objects stay with the thread that made them).
/// libavfilter is loaded on first use (`cav_avfilter_available`).
final class FilterChain {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private let output: Frame

    /// `sourceName`: "buffer" or "abuffer"; `sourceArguments` its options (size, format, time base …); `chain` the
    /// filters between source and sink, as `ffmpeg -vf`/`-af` would take them.
    init(sourceName: String, sourceArguments: String, chain: String) throws(AVFailure) {
        output = try Frame()
        guard cav_avfilter_available() != 0 else {
            throw AVFailure(code: cav_averror(ENOSYS), operation: "dlopen libavfilter (\(chain))")
        }
        guard let graph = cav_avfilter_graph_alloc() else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avfilter_graph_alloc") }
        self.graph = graph
        // The caller's decoder threads are its thread budget; the graph stays on this one.
        graph.pointee.nb_threads = 1
        var status = cav_avfilter_graph_create_filter(&source, cav_avfilter_get_by_name(sourceName), "in", sourceArguments, nil, graph)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_create_filter(\(sourceName))") }
        let sinkName = sourceName == "abuffer" ? "abuffersink" : "buffersink"
        status = cav_avfilter_graph_create_filter(&sink, cav_avfilter_get_by_name(sinkName), "out", nil, nil, graph)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_create_filter(\(sinkName))") }
        // As FFmpeg's filtering example: parse_ptr takes both lists and leaves in them what it did not link;
        // whatever they hold afterwards is freed here.
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
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_parse_ptr(\(chain))") }
        status = cav_avfilter_graph_config(graph, nil)
        if status < 0 { throw AVFailure(code: status, operation: "avfilter_graph_config(\(chain))") }
    }

    deinit {
        // Only a graph that was made: freeing nothing must not load libavfilter.
        if graph != nil { cav_avfilter_graph_free(&graph) }
    }

    /// Sends `frame` (nil: the end of the input) and hands every frame the chain then has to `handle` (the frame is
    /// reused by the next one). The caller keeps its own reference to `frame`.
    func filter(_ frame: Frame?, _ handle: (Frame) throws(AVFailure) -> Void) throws(AVFailure) {
        let status = cav_av_buffersrc_add_frame_flags(source, frame?.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        if status < 0 { throw AVFailure(code: status, operation: "av_buffersrc_add_frame_flags") }
        while true {
            output.unref()
            let received = cav_av_buffersink_get_frame(sink, output.pointer)
            if received == CAV_AVERROR_EAGAIN || received == CAV_AVERROR_EOF { return }
            if received < 0 { throw AVFailure(code: received, operation: "av_buffersink_get_frame") }
            try handle(output)
        }
    }
}
