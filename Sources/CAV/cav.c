// RTLD_DEFAULT (cav_trim_heap).
#define _GNU_SOURCE
#include "CAV.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Macros Swift cannot import

int cav_averror(int posix_errno) { return AVERROR(posix_errno); }
const int CAV_AVERROR_EOF = AVERROR_EOF;
const int CAV_AVERROR_EAGAIN = AVERROR(EAGAIN);
const int CAV_AVERROR_PATCHWELCOME = AVERROR_PATCHWELCOME;
const int CAV_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
const int CAV_AVERROR_DECODER_NOT_FOUND = AVERROR_DECODER_NOT_FOUND;
const int CAV_AVERROR_ENCODER_NOT_FOUND = AVERROR_ENCODER_NOT_FOUND;
const int CAV_AVERROR_ENOMEM = AVERROR(ENOMEM);
const int64_t CAV_NOPTS_VALUE = AV_NOPTS_VALUE;

AVRational cav_time_base_q(void) { return AV_TIME_BASE_Q; }

const char *cav_strerror(int errnum, char *buf, size_t buf_size) {
    if (buf_size == 0) return buf;
    if (av_strerror(errnum, buf, buf_size) < 0) {
        snprintf(buf, buf_size, "error %d", errnum);
    }
    return buf;
}

// MARK: - Scaling

int cav_sws_scale_frame(struct SwsContext *context, const AVFrame *frame, uint8_t *dst, int dst_stride) {
    uint8_t *planes[4] = {dst, NULL, NULL, NULL};
    int strides[4] = {dst_stride, 0, 0, 0};
    return sws_scale(context, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
}

int cav_sws_scale_to_frame(struct SwsContext *context, const uint8_t *src, int src_stride, int src_height, AVFrame *frame) {
    const uint8_t *planes[4] = {src, NULL, NULL, NULL};
    int strides[4] = {src_stride, 0, 0, 0};
    return sws_scale(context, planes, strides, 0, src_height, frame->data, frame->linesize);
}

// One loop per pixel size, so each copy is a few stores rather than a call.
#define CAV_TRANSFORM_LOOP(BYTES)                                                                                \
    for (int y = 0; y < h; y++) {                                                                                \
        const uint8_t *row = from + (ptrdiff_t)y * in_stride;                                                    \
        for (int x = 0; x < w; x++) {                                                                            \
            int x2 = a * x + c * y + tx, y2 = b * x + d * y + ty;                                                \
            uint8_t *out = to + (ptrdiff_t)y2 * out_stride + (ptrdiff_t)x2 * (BYTES);                            \
            const uint8_t *in = row + (ptrdiff_t)x * (BYTES);                                                    \
            for (int k = 0; k < (BYTES); k++) out[k] = in[k];                                                    \
        }                                                                                                        \
    }

void cav_transform_plane(const uint8_t *from, int in_stride, uint8_t *to, int out_stride, int w, int h, int bytes,
                         int a, int b, int c, int d) {
    int tx = (a < 0 ? w - 1 : 0) + (c < 0 ? h - 1 : 0);
    int ty = (b < 0 ? w - 1 : 0) + (d < 0 ? h - 1 : 0);
    switch (bytes) {
    case 1: CAV_TRANSFORM_LOOP(1) break;
    case 2: CAV_TRANSFORM_LOOP(2) break;
    case 3: CAV_TRANSFORM_LOOP(3) break;
    default: CAV_TRANSFORM_LOOP(bytes) break;
    }
}

int cav_frame_fill_black(AVFrame *frame) {
    ptrdiff_t linesizes[4];
    for (int i = 0; i < 4; i++) linesizes[i] = frame->linesize[i];
    return av_image_fill_black(frame->data, linesizes, frame->format, frame->color_range, frame->width, frame->height);
}

int cav_frame_transform(const AVFrame *src, AVFrame *dst, int a, int b, int c, int d) {
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(src->format);
    if (!desc || !(desc->flags & AV_PIX_FMT_FLAG_PLANAR) || (desc->flags & AV_PIX_FMT_FLAG_BITSTREAM) ||
        (desc->flags & AV_PIX_FMT_FLAG_HWACCEL))
        return AVERROR(EINVAL);
    int swaps = (a == 0);
    // Subsampled chroma turned by 90° needs equal horizontal and vertical subsampling.
    if (swaps && desc->log2_chroma_w != desc->log2_chroma_h) return AVERROR(EINVAL);
    int planes = av_pix_fmt_count_planes(src->format);
    for (int p = 0; p < planes; p++) {
        int bytes = (desc->comp[0].depth + 7) / 8;
        if (bytes != 1 && bytes != 2) return AVERROR(EINVAL);
        int chroma = (p == 1 || p == 2) && desc->nb_components >= 3;
        int w = chroma ? AV_CEIL_RSHIFT(src->width, desc->log2_chroma_w) : src->width;
        int h = chroma ? AV_CEIL_RSHIFT(src->height, desc->log2_chroma_h) : src->height;
        cav_transform_plane(src->data[p], src->linesize[p], dst->data[p], dst->linesize[p], w, h, bytes, a, b, c, d);
    }
    return 0;
}

// MARK: - Logging

static int cav_print_level = AV_LOG_QUIET;
static _Thread_local char cav_last_error[512];

static void cav_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > AV_LOG_ERROR && level > cav_print_level) return;
    char line[1024];
    int print_prefix = 1;
    va_list copy;
    va_copy(copy, vl);
    av_log_format_line2(avcl, level, fmt, copy, line, sizeof line, &print_prefix);
    va_end(copy);
    if (level <= AV_LOG_ERROR) {
        // Keep the message without its trailing newline; the first error usually names the cause.
        size_t n = strnlen(line, sizeof line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n > 0) snprintf(cav_last_error, sizeof cav_last_error, "%s", line);
    }
    if (level <= cav_print_level) fputs(line, stderr);
}

void cav_log_configure(int print_level) {
    cav_print_level = print_level;
    av_log_set_level(print_level > AV_LOG_ERROR ? print_level : AV_LOG_ERROR);
    av_log_set_callback(cav_log_callback);
}

void cav_log_last_error(char *buf, size_t buf_size) {
    if (buf_size == 0) return;
    snprintf(buf, buf_size, "%s", cav_last_error);
}

void cav_log_clear_last_error(void) { cav_last_error[0] = '\0'; }

// MARK: - PNG

typedef struct {
    char *errbuf;
    size_t errlen;
} cav_png_error_sink;

static void cav_png_error(png_structp png, png_const_charp msg) {
    cav_png_error_sink *sink = png_get_error_ptr(png);
    if (sink && sink->errbuf && sink->errlen) snprintf(sink->errbuf, sink->errlen, "%s", msg);
    png_longjmp(png, 1);
}

static void cav_png_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;  // libpng's default prints "libpng warning: …" to stderr; vtrim stays quiet.
}

static int cav_is_ascii(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s > 0x7e) return 0;
    return 1;
}

static atomic_int cav_stop_requested = 0;

void cav_request_stop(void) { atomic_store_explicit(&cav_stop_requested, 1, memory_order_relaxed); }

int cav_png_write_rgb24(const char *path, int width, int height, const uint8_t *rgb, int stride,
                        const char *const *text_keys, const char *const *text_values, int text_count,
                        int compression_level, char *errbuf, size_t errlen) {
    if (errbuf && errlen) errbuf[0] = '\0';
    if (width <= 0 || height <= 0 || stride < width * 3 || !rgb) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "invalid image %dx%d", width, height);
        return -1;
    }
    FILE *volatile file = fopen(path, "wb");
    if (!file) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "%s", strerror(errno));
        return -2;
    }
    cav_png_error_sink sink = {errbuf, errlen};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, cav_png_error, cav_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_textp volatile texts = NULL;
    if (!png || !info) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "out of memory");
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -3;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(texts);
        fclose(file);
        return -4;
    }
    png_init_io(png, file);
    png_set_compression_level(png, compression_level);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (text_count > 0) {
        texts = calloc((size_t)text_count, sizeof(png_text));
        if (!texts) png_error(png, "out of memory");
        for (int i = 0; i < text_count; i++) {
            png_textp t = &texts[i];
            t->key = (png_charp)text_keys[i];
            t->text = (png_charp)text_values[i];
            t->text_length = strlen(text_values[i]);
            // tEXt is Latin-1 only; UTF-8 (paths with non-ASCII names) goes into iTXt.
            t->compression = cav_is_ascii(text_values[i]) ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
        }
        png_set_text(png, info, texts, text_count);
    }
    png_write_info(png, info);
    // A large sheet takes seconds to compress: an interrupt stops it at the next row, not after the last.
    for (int y = 0; y < height; y++) {
        if (atomic_load_explicit(&cav_stop_requested, memory_order_relaxed)) png_error(png, "interrupted");
        png_write_row(png, rgb + (size_t)y * (size_t)stride);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(texts);
    int failed = ferror(file);
    if (fclose(file) != 0 || failed) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "%s", strerror(errno ? errno : EIO));
        return -5;
    }
    return 0;
}

int cav_png_read_rgb24(const char *path, uint8_t **out_rgb, int *width, int *height, char *errbuf,
                       size_t errlen) {
    // The simplified API reports errors in the struct, no setjmp needed on our side.
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *out_rgb = NULL;
    if (!png_image_begin_read_from_file(&image, path)) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "%s", image.message);
        return -1;
    }
    image.format = PNG_FORMAT_RGB;
    size_t size = PNG_IMAGE_SIZE(image);
    uint8_t *buffer = malloc(size);
    if (!buffer) {
        png_image_free(&image);
        if (errbuf && errlen) snprintf(errbuf, errlen, "out of memory");
        return -2;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "%s", image.message);
        free(buffer);
        return -3;
    }
    *out_rgb = buffer;
    *width = (int)image.width;
    *height = (int)image.height;
    return 0;
}

void cav_free(void *p) { free(p); }

const char *cav_png_version(void) {
    return png_get_libpng_ver(NULL);
}

// ---- libavfilter through dlopen (see CAV.h) ----
#include <dlfcn.h>
#include <pthread.h>

#define CAV_STRINGIFY2(x) #x
#define CAV_STRINGIFY(x) CAV_STRINGIFY2(x)

static struct {
    AVFilterGraph *(*graph_alloc)(void);
    void (*graph_free)(AVFilterGraph **);
    const AVFilter *(*get_by_name)(const char *);
    int (*graph_create_filter)(AVFilterContext **, const AVFilter *, const char *, const char *, void *, AVFilterGraph *);
    AVFilterInOut *(*inout_alloc)(void);
    void (*inout_free)(AVFilterInOut **);
    int (*graph_parse_ptr)(AVFilterGraph *, const char *, AVFilterInOut **, AVFilterInOut **, void *);
    int (*graph_config)(AVFilterGraph *, void *);
    int (*buffersrc_add_frame_flags)(AVFilterContext *, AVFrame *, int);
    int (*buffersink_get_frame)(AVFilterContext *, AVFrame *);
    int loaded;
} cav_filter;
static pthread_once_t cav_filter_once = PTHREAD_ONCE_INIT;

static void cav_filter_load(void) {
    // The same major version the headers describe: Debian 12's FFmpeg 5.1 is libavfilter.so.8.
    void *library = dlopen("libavfilter.so." CAV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define CAV_LOAD(field, symbol) *(void **)(&cav_filter.field) = dlsym(library, symbol); if (!cav_filter.field) return;
    CAV_LOAD(graph_alloc, "avfilter_graph_alloc")
    CAV_LOAD(graph_free, "avfilter_graph_free")
    CAV_LOAD(get_by_name, "avfilter_get_by_name")
    CAV_LOAD(graph_create_filter, "avfilter_graph_create_filter")
    CAV_LOAD(inout_alloc, "avfilter_inout_alloc")
    CAV_LOAD(inout_free, "avfilter_inout_free")
    CAV_LOAD(graph_parse_ptr, "avfilter_graph_parse_ptr")
    CAV_LOAD(graph_config, "avfilter_graph_config")
    CAV_LOAD(buffersrc_add_frame_flags, "av_buffersrc_add_frame_flags")
    CAV_LOAD(buffersink_get_frame, "av_buffersink_get_frame")
#undef CAV_LOAD
    cav_filter.loaded = 1;
}

int cav_avfilter_available(void) {
    pthread_once(&cav_filter_once, cav_filter_load);
    return cav_filter.loaded;
}

AVFilterGraph *cav_avfilter_graph_alloc(void) { return cav_avfilter_available() ? cav_filter.graph_alloc() : NULL; }
void cav_avfilter_graph_free(AVFilterGraph **graph) { if (graph && *graph && cav_avfilter_available()) cav_filter.graph_free(graph); }
const AVFilter *cav_avfilter_get_by_name(const char *name) { return cav_avfilter_available() ? cav_filter.get_by_name(name) : NULL; }
int cav_avfilter_graph_create_filter(AVFilterContext **context, const AVFilter *filter, const char *name, const char *args,
                                     void *opaque, AVFilterGraph *graph) {
    return cav_avfilter_available() ? cav_filter.graph_create_filter(context, filter, name, args, opaque, graph) : AVERROR(ENOSYS);
}
AVFilterInOut *cav_avfilter_inout_alloc(void) { return cav_avfilter_available() ? cav_filter.inout_alloc() : NULL; }
void cav_avfilter_inout_free(AVFilterInOut **inout) { if (inout && *inout && cav_avfilter_available()) cav_filter.inout_free(inout); }
int cav_avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, AVFilterInOut **outputs,
                                 void *log_context) {
    return cav_avfilter_available() ? cav_filter.graph_parse_ptr(graph, filters, inputs, outputs, log_context) : AVERROR(ENOSYS);
}
int cav_avfilter_graph_config(AVFilterGraph *graph, void *log_context) {
    return cav_avfilter_available() ? cav_filter.graph_config(graph, log_context) : AVERROR(ENOSYS);
}
int cav_av_buffersrc_add_frame_flags(AVFilterContext *context, AVFrame *frame, int flags) {
    return cav_avfilter_available() ? cav_filter.buffersrc_add_frame_flags(context, frame, flags) : AVERROR(ENOSYS);
}
int cav_av_buffersink_get_frame(AVFilterContext *context, AVFrame *frame) {
    return cav_avfilter_available() ? cav_filter.buffersink_get_frame(context, frame) : AVERROR(ENOSYS);
}

/* Adds a chapter to an output context (times in µs), as the ffmpeg CLI copies chapters: libavformat has
   no public function for it, and avformat_free_context frees what is added here. */
int cav_add_chapter(AVFormatContext *s, int64_t id, int64_t start_us, int64_t end_us, const char *title) {
    AVChapter *chapter = av_mallocz(sizeof(*chapter));
    if (!chapter) return AVERROR(ENOMEM);
    chapter->id = id;
    chapter->time_base = (AVRational){1, 1000000};
    chapter->start = start_us;
    chapter->end = end_us;
    if (title && av_dict_set(&chapter->metadata, "title", title, 0) < 0) { av_free(chapter); return AVERROR(ENOMEM); }
    int status = av_dynarray_add_nofree(&s->chapters, (int *)&s->nb_chapters, chapter);
    if (status < 0) { av_dict_free(&chapter->metadata); av_free(chapter); }
    return status;
}

int cav_audio_encoder_like(AVCodecContext *encoder, const AVCodecContext *decoder, int64_t bit_rate, int global_header) {
    if (decoder->sample_rate <= 0 || decoder->ch_layout.nb_channels <= 0 || decoder->ch_layout.nb_channels > 64) return AVERROR(EINVAL);
    const enum AVSampleFormat *formats = encoder->codec ? encoder->codec->sample_fmts : NULL;
    int supported = formats == NULL;
    for (; formats && *formats != AV_SAMPLE_FMT_NONE; formats++) if (*formats == decoder->sample_fmt) supported = 1;
    if (!supported) return AVERROR(ENOSYS);
    encoder->sample_fmt = decoder->sample_fmt;
    encoder->sample_rate = decoder->sample_rate;
    int status = av_channel_layout_copy(&encoder->ch_layout, &decoder->ch_layout);
    if (status < 0) return status;
    encoder->time_base = (AVRational){1, decoder->sample_rate};
    if (bit_rate > 0) encoder->bit_rate = bit_rate;
    if (global_header) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    return 0;
}

int cav_audio_encoder_for(AVCodecContext *encoder, const AVCodecContext *decoder, int64_t bit_rate, int global_header) {
    if (decoder->sample_rate <= 0 || decoder->ch_layout.nb_channels <= 0 || decoder->ch_layout.nb_channels > 64) return AVERROR(EINVAL);
    const AVCodec *codec = encoder->codec;
    if (!codec) return AVERROR(EINVAL);
    /* The decoder's format, else one of the same width (s32 for 24-bit FLAC), else the encoder's first. */
    enum AVSampleFormat format = AV_SAMPLE_FMT_NONE;
    const enum AVSampleFormat *formats = codec->sample_fmts;
    if (!formats) format = decoder->sample_fmt;
    for (const enum AVSampleFormat *f = formats; f && *f != AV_SAMPLE_FMT_NONE; f++) if (*f == decoder->sample_fmt) format = *f;
    for (const enum AVSampleFormat *f = formats; format == AV_SAMPLE_FMT_NONE && f && *f != AV_SAMPLE_FMT_NONE; f++)
        if (av_get_bytes_per_sample(*f) == av_get_bytes_per_sample(decoder->sample_fmt)) format = *f;
    if (format == AV_SAMPLE_FMT_NONE && formats) format = formats[0];
    if (format == AV_SAMPLE_FMT_NONE) return AVERROR(ENOSYS);
    /* The decoder's rate, else the lowest the encoder has above it, else its highest. */
    int rate = decoder->sample_rate;
    if (codec->supported_samplerates) {
        int above = 0, highest = 0, same = 0;
        for (const int *r = codec->supported_samplerates; *r; r++) {
            if (*r == decoder->sample_rate) same = 1;
            if (*r > decoder->sample_rate && (!above || *r < above)) above = *r;
            if (*r > highest) highest = *r;
        }
        rate = same ? decoder->sample_rate : above ? above : highest;
    }
    if (rate <= 0) return AVERROR(ENOSYS);
    /* The decoder's channels where the encoder takes them, else stereo (or mono from mono). */
    int channels = decoder->ch_layout.nb_channels, takes = codec->ch_layouts == NULL;
    for (const AVChannelLayout *l = codec->ch_layouts; l && l->nb_channels; l++) if (l->nb_channels == channels) takes = 1;
    av_channel_layout_uninit(&encoder->ch_layout);
    int status = 0;
    if (takes && decoder->ch_layout.order != AV_CHANNEL_ORDER_UNSPEC) status = av_channel_layout_copy(&encoder->ch_layout, &decoder->ch_layout);
    else av_channel_layout_default(&encoder->ch_layout, takes ? channels : (channels == 1 ? 1 : 2));
    if (status < 0) return status;
    encoder->sample_fmt = format;
    encoder->sample_rate = rate;
    encoder->time_base = (AVRational){1, rate};
    if (av_get_bytes_per_sample(format) == 4 && !av_sample_fmt_is_planar(format) && decoder->bits_per_raw_sample > 0)
        encoder->bits_per_raw_sample = decoder->bits_per_raw_sample;
    if (bit_rate > 0) encoder->bit_rate = bit_rate;
    if (global_header) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    return 0;
}

int cav_audio_fifo_write_part(AVAudioFifo *fifo, const AVFrame *frame, int offset, int count, int channels, enum AVSampleFormat format) {
    if (offset < 0 || count < 0 || offset > frame->nb_samples - count) return AVERROR(EINVAL);
    if (frame->ch_layout.nb_channels != channels || frame->format != format) return AVERROR(EINVAL);
    int planar = av_sample_fmt_is_planar(frame->format);
    int bytes = av_get_bytes_per_sample(frame->format);
    int planes = planar ? channels : 1;
    if (planes < 1 || planes > 64 || bytes <= 0) return AVERROR(EINVAL);
    void *data[64] = {0};
    for (int i = 0; i < planes; i++) data[i] = frame->extended_data[i] + (size_t)offset * bytes * (planar ? 1 : channels);
    int written = av_audio_fifo_write(fifo, data, count);
    return written < 0 ? written : 0;
}

int cav_audio_fifo_write_silence(AVAudioFifo *fifo, enum AVSampleFormat format, int channels, int count) {
    if (count <= 0) return 0;
    uint8_t **data = NULL;
    int status = av_samples_alloc_array_and_samples(&data, NULL, channels, count, format, 0);
    if (status < 0) return status;
    av_samples_set_silence(data, 0, count, channels, format);
    int written = av_audio_fifo_write(fifo, (void **)data, count);
    av_freep(&data[0]);
    av_freep(&data);
    return written < 0 ? written : 0;
}

int cav_audio_fifo_read_frame(AVAudioFifo *fifo, const AVCodecContext *encoder, AVFrame *frame, int count) {
    av_frame_unref(frame);
    frame->nb_samples = count;
    frame->format = encoder->sample_fmt;
    frame->sample_rate = encoder->sample_rate;
    int status = av_channel_layout_copy(&frame->ch_layout, &encoder->ch_layout);
    if (status < 0) return status;
    status = av_frame_get_buffer(frame, 0);
    if (status < 0) return status;
    int read = av_audio_fifo_read(fifo, (void **)frame->extended_data, count);
    return read < 0 ? read : (read == count ? 0 : AVERROR(EINVAL));
}

int cav_audio_encoder_for_preview(AVCodecContext *encoder, const AVCodecContext *decoder, int global_header) {
    if (decoder->sample_rate <= 0 || decoder->ch_layout.nb_channels <= 0) return AVERROR(EINVAL);
    static const int rates[] = {96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350};
    int rate = 48000;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) if (rates[i] == decoder->sample_rate) rate = rates[i];
    encoder->sample_fmt = AV_SAMPLE_FMT_FLTP;
    encoder->sample_rate = rate;
    av_channel_layout_uninit(&encoder->ch_layout);
    av_channel_layout_default(&encoder->ch_layout, decoder->ch_layout.nb_channels == 1 ? 1 : 2);
    encoder->time_base = (AVRational){1, rate};
    encoder->bit_rate = decoder->ch_layout.nb_channels == 1 ? 96000 : 160000;
    if (global_header) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    return 0;
}

SwrContext *cav_preview_resampler(const AVCodecContext *decoder, const AVCodecContext *encoder) {
    AVChannelLayout input = {0};
    /* A stream that gives only its channel count (PCM in AVI) is taken in the default order for that count. */
    if (decoder->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) av_channel_layout_default(&input, decoder->ch_layout.nb_channels);
    else if (av_channel_layout_copy(&input, &decoder->ch_layout) < 0) return NULL;
    SwrContext *swr = NULL;
    int status = swr_alloc_set_opts2(&swr, &encoder->ch_layout, encoder->sample_fmt, encoder->sample_rate, &input, decoder->sample_fmt,
                                     decoder->sample_rate, 0, NULL);
    av_channel_layout_uninit(&input);
    if (status < 0 || swr_init(swr) < 0) {
        swr_free(&swr);
        return NULL;
    }
    return swr;
}

/* `count` samples at `input` (NULL: the resampler's own delay) converted by `swr` and queued in `fifo`. */
static int resample_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const uint8_t **input, int count,
                              const AVCodecContext *decoder, const AVCodecContext *encoder) {
    int64_t room = av_rescale_rnd(swr_get_delay(swr, decoder->sample_rate) + count, encoder->sample_rate, decoder->sample_rate,
                                  AV_ROUND_UP) + 32;
    if (room <= 0 || room > (1 << 24)) return AVERROR(EINVAL);
    uint8_t **planes = NULL;
    int status = av_samples_alloc_array_and_samples(&planes, NULL, encoder->ch_layout.nb_channels, (int)room, encoder->sample_fmt, 0);
    if (status < 0) return status;
    int converted = swr_convert(swr, planes, (int)room, input, count);
    if (converted > 0) {
        int written = av_audio_fifo_write(fifo, (void **)planes, converted);
        if (written < 0) converted = written;
    }
    av_freep(&planes[0]);
    av_freep(&planes);
    return converted < 0 ? converted : 0;
}

int cav_resample_part_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const AVFrame *frame, int offset, int count,
                                const AVCodecContext *decoder, const AVCodecContext *encoder) {
    if (!frame || offset < 0 || count <= 0 || offset > frame->nb_samples - count) return AVERROR(EINVAL);
    if (frame->format != decoder->sample_fmt || frame->ch_layout.nb_channels != decoder->ch_layout.nb_channels
        || frame->sample_rate != decoder->sample_rate) return AVERROR(EINVAL);
    int channels = frame->ch_layout.nb_channels, planar = av_sample_fmt_is_planar(frame->format);
    int bytes = av_get_bytes_per_sample(frame->format), planes = planar ? channels : 1;
    if (planes < 1 || planes > 64 || bytes <= 0) return AVERROR(EINVAL);
    const uint8_t *input[64] = {0};
    for (int i = 0; i < planes; i++) input[i] = frame->extended_data[i] + (size_t)offset * bytes * (planar ? 1 : channels);
    return resample_into_fifo(swr, fifo, input, count, decoder, encoder);
}

int cav_resample_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const AVFrame *frame, const AVCodecContext *decoder,
                           const AVCodecContext *encoder) {
    if (frame && (frame->format != decoder->sample_fmt || frame->ch_layout.nb_channels != decoder->ch_layout.nb_channels
                  || frame->sample_rate != decoder->sample_rate || frame->nb_samples < 0)) return AVERROR(EINVAL);
    return resample_into_fifo(swr, fifo, frame ? (const uint8_t **)frame->extended_data : NULL, frame ? frame->nb_samples : 0,
                              decoder, encoder);
}

#include <malloc.h>

int cav_return_blocks_from(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

// Under ASan or TSan glibc's malloc is never called, so its arenas are set up by the first malloc_trim, and that
// set-up is not thread-safe: two edges ending at once crashed in mtrim (CI, ASan; 27 of 200 runs of 8 threads calling
// malloc_trim at once). There is nothing to give back there; elsewhere the lock keeps the calls apart anyway.
static pthread_mutex_t cav_trim_lock = PTHREAD_MUTEX_INITIALIZER;

int cav_cpu_has_avx512(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? 1 : 0;
#else
    return 0;
#endif
}

void cav_trim_heap(void) {
    if (dlsym(RTLD_DEFAULT, "__sanitizer_get_current_allocated_bytes") != NULL) return;
    pthread_mutex_lock(&cav_trim_lock);
    malloc_trim(0);
    pthread_mutex_unlock(&cav_trim_lock);
}
