// CAV: FFmpeg 5.1 and libpng headers for Swift, plus shims for what Swift cannot import.
// Every cav_* symbol exists because Swift cannot see the C construct it replaces; the reason is
// given next to each one.
#ifndef CAV_H
#define CAV_H

#include <stddef.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavformat/avformat.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/timecode.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// AVERROR(e) is a function-like macro; AVERROR_EOF and AV_NOPTS_VALUE are built from macros
// the importer rejects ("structure not supported").
int cav_averror(int posix_errno);
extern const int CAV_AVERROR_EOF;
extern const int CAV_AVERROR_EAGAIN;
extern const int CAV_AVERROR_PATCHWELCOME;
extern const int CAV_AVERROR_INVALIDDATA;
extern const int CAV_AVERROR_DECODER_NOT_FOUND;
extern const int CAV_AVERROR_ENCODER_NOT_FOUND;
extern const int CAV_AVERROR_ENOMEM;
extern const int64_t CAV_NOPTS_VALUE;

// AV_TIME_BASE_Q is a compound literal.
AVRational cav_time_base_q(void);

// av_err2str is a macro over a compound-literal buffer. Writes the text into buf and returns buf.
const char *cav_strerror(int errnum, char *buf, size_t buf_size);

// av_log's callback receives a va_list, which Swift cannot format. This installs a C callback that
// prints FFmpeg's messages up to `print_level` to stderr (AV_LOG_QUIET prints nothing) and keeps
// the last error-level message of the calling thread, so vtrim can quote FFmpeg's reason in its own
// one-line errors without letting a damaged file flood stderr.
void cav_log_configure(int print_level);
// Copies the calling thread's last recorded FFmpeg error message (empty if none) into buf.
void cav_log_last_error(char *buf, size_t buf_size);
void cav_log_clear_last_error(void);

// AVFrame.data/linesize are fixed-size C arrays (8-tuples in Swift). Scales `frame` into a packed
// buffer of `dst_format` (e.g. AV_PIX_FMT_RGB24) with `dst_stride` bytes per row; returns sws_scale's
// result (the output height) or a negative AVERROR.
int cav_sws_scale_frame(struct SwsContext *context, const AVFrame *frame, uint8_t *dst, int dst_stride);
// The reverse, for the image encoders: scales a packed picture (`src`, `src_stride` bytes per row,
// `src_height` rows) into the planes of an allocated `frame`.
int cav_sws_scale_to_frame(struct SwsContext *context, const uint8_t *src, int src_stride, int src_height, AVFrame *frame);

// Moves every plane of a planar frame (8- or 16-bit samples) by the axis-aligned map x' = a·x + c·y,
// y' = b·x + d·y (a..d in {-1, 0, 1}) into `dst`, which must be allocated with the transformed size and
// the same format. Used to bake a display rotation into pixels when the output cannot carry it.
// Returns 0, or AVERROR(EINVAL) for formats it cannot move (packed, bitstream, odd chroma layouts).
int cav_frame_transform(const AVFrame *src, AVFrame *dst, int a, int b, int c, int d);
// Paints an allocated frame black (av_image_fill_black, whose ptrdiff_t line sizes Swift cannot pass from
// AVFrame's int array): a smart cut's trial frame.
int cav_frame_fill_black(AVFrame *frame);
int cav_add_chapter(AVFormatContext *s, int64_t id, int64_t start_us, int64_t end_us, const char *title);

// Sample-exact audio (joins): an encoder set up like a decoder (rate, channel layout, sample format, 1/rate time
// base); AVERROR(ENOSYS) when the encoder does not take the decoder's sample format.
int cav_audio_encoder_like(AVCodecContext *encoder, const AVCodecContext *decoder, int64_t bit_rate, int global_header);
/* An audio encoder set up for a decoder's samples in whatever form the encoder takes: the decoder's sample format, rate and
   channels where the encoder has them, else the nearest it has (a resampler converts); its bit depth kept. */
int cav_audio_encoder_for(AVCodecContext *encoder, const AVCodecContext *decoder, int64_t bit_rate, int global_header);
// Appends `count` samples of `frame` from sample `offset` to `fifo`; AVERROR(EINVAL) outside the frame or when the
// frame's channels or sample format are not the fifo's (`channels`, `format`).
int cav_audio_fifo_write_part(AVAudioFifo *fifo, const AVFrame *frame, int offset, int count, int channels, enum AVSampleFormat format);
// Appends `count` samples of silence in the fifo's format.
int cav_audio_fifo_write_silence(AVAudioFifo *fifo, enum AVSampleFormat format, int channels, int count);
// A frame of `count` samples in the encoder's format taken from `fifo` (its buffer allocated here).
int cav_audio_fifo_read_frame(AVAudioFifo *fifo, const AVCodecContext *encoder, AVFrame *frame, int count);

// A preview's sound in a codec browsers play: the encoder set up for AAC-LC (float planar, mono or stereo as the
// source, its rate where AAC has it, else 48 kHz), and a resampler from what the decoder gives to it (NULL on failure).
int cav_audio_encoder_for_preview(AVCodecContext *encoder, const AVCodecContext *decoder, int global_header);
SwrContext *cav_preview_resampler(const AVCodecContext *decoder, const AVCodecContext *encoder);
// Converts `frame` (NULL: what the resampler still holds) and appends the samples to `fifo` (the encoder's format);
// AVERROR(EINVAL), nothing converted, for a frame whose format, channels or rate are not the decoder's at setup.
/* `count` samples of a decoded frame from `offset`, converted by `swr` into `fifo` (a cut's samples to the sample). */
int cav_resample_part_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const AVFrame *frame, int offset, int count,
                                const AVCodecContext *decoder, const AVCodecContext *encoder);
int cav_resample_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const AVFrame *frame, const AVCodecContext *decoder,
                           const AVCodecContext *encoder);

/// The one rotate/flip routine (frames and RGB pictures): the pixel at (x, y) of a w×h plane of `bytes`-byte
/// pixels goes to (a·x + c·y + tx, b·x + d·y + ty), with the translation that keeps it in the picture.
void cav_transform_plane(const uint8_t *from, int in_stride, uint8_t *to, int out_stride, int w, int h, int bytes,
                         int a, int b, int c, int d);

// libpng reports errors by longjmp, and setjmp is unavailable in Swift ("returns_twice").
// Writes an 8-bit RGB PNG to `path` with tEXt chunks (keys[i] = values[i]). Returns 0 on success;
// otherwise a negative value and a message in errbuf. The file is flushed and closed before returning
// 0 so a full disk is reported here, not lost.
/// The libpng version loaded at run time (for `vtrim --version`).
const char *cav_png_version(void);

// Asks long C loops (a PNG's rows) to stop at their next row: vtrim was interrupted.
void cav_request_stop(void);

int cav_png_write_rgb24(const char *path, int width, int height, const uint8_t *rgb, int stride,
                        const char *const *text_keys, const char *const *text_values, int text_count,
                        int compression_level, char *errbuf, size_t errlen);

// Reads a PNG into 8-bit RGB (used by tests and tools to check pixels). On success returns 0 and
// *out_rgb is malloc'ed (free with cav_free), stride = 3 * width.
int cav_png_read_rgb24(const char *path, uint8_t **out_rgb, int *width, int *height,
                       char *errbuf, size_t errlen);
void cav_free(void *p);

#endif

// libavfilter, loaded on first use (dlopen): it is needed only to tone-map HDR thumbnails, and linking it
// costs every run ~45 ms of start-up and ~8 MiB (Debian's build pulls in Vulkan, rubberband, zmq, …).
// cav_avfilter_available() loads it once (thread-safe); the other calls need it to have returned 1.
int cav_avfilter_available(void);
AVFilterGraph *cav_avfilter_graph_alloc(void);
void cav_avfilter_graph_free(AVFilterGraph **graph);
const AVFilter *cav_avfilter_get_by_name(const char *name);
int cav_avfilter_graph_create_filter(AVFilterContext **context, const AVFilter *filter, const char *name, const char *args,
                                     void *opaque, AVFilterGraph *graph);
AVFilterInOut *cav_avfilter_inout_alloc(void);
void cav_avfilter_inout_free(AVFilterInOut **inout);
int cav_avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, AVFilterInOut **outputs,
                                 void *log_context);
int cav_avfilter_graph_config(AVFilterGraph *graph, void *log_context);
int cav_av_buffersrc_add_frame_flags(AVFilterContext *context, AVFrame *frame, int flags);
int cav_av_buffersink_get_frame(AVFilterContext *context, AVFrame *frame);

// Frees of blocks of at least `bytes` go back to the system (glibc's M_MMAP_THRESHOLD, fixed: no longer rising to the
// largest block freed); 1 on success. See LargeBlockReturn.swift.
int cav_return_blocks_from(int bytes);

// Gives the malloc arenas' free memory back to the system (malloc_trim), one caller at a time; nothing under a
// sanitizer, whose allocator replaces glibc's. SmartEdge calls it when an edge's encoder is gone.
void cav_trim_heap(void);

// Whether this CPU has AVX-512 (the compiler's own CPUID check: libavutil reports it only when FFmpeg was built with
// AVX-512 code, while x264 checks for itself). EncoderChoice keeps x264 from it.
int cav_cpu_has_avx512(void);
