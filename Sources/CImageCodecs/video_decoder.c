#include <stdlib.h>
#include <string.h>
#include "include/cvideo.h"
#include "video_library.h"

struct cic_video_decoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    uint32_t width;
    uint32_t height;
    /* The demuxer has no more packets and the decoder was told so: only buffered frames remain. */
    int draining;
};

/* FFmpeg's text for an error code ("Invalid data found when processing input"). */
static int32_t fail_av(cic_status *status, const char *what, int error) {
    char text[128];
    if (av_strerror(error, text, sizeof text) < 0) snprintf(text, sizeof text, "error %d", error);
    return cic_fail(status, CIC_BAD_INPUT, "%s: %s", what, text);
}

void cic_video_close(cic_video_decoder *decoder) {
    if (!decoder) return;
    if (decoder->frame) av_frame_free(&decoder->frame);
    if (decoder->packet) av_packet_free(&decoder->packet);
    if (decoder->codec) avcodec_free_context(&decoder->codec);
    if (decoder->format) avformat_close_input(&decoder->format);
    free(decoder);
}

int32_t cic_video_open(const char *path, uint32_t max_side, cic_video_decoder **result, cic_video_info *info,
                       cic_status *status) {
    *result = NULL;
    memset(info, 0, sizeof *info);
    if (cic_av_load(status) != CIC_OK) return status->code;
    cic_video_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return cic_fail(status, CIC_IO_ERROR, "out of memory");

    /* The MP4/QuickTime demuxer named, not probed for: a file that only looks like a playlist or a
       concat script must not make FFmpeg open other files. Its references to external media stay
       off (enable_drefs defaults to 0) and only plain files may be opened. */
    const AVInputFormat *mp4 = av_find_input_format("mp4");
    if (!mp4) {
        cic_video_close(decoder);
        return cic_fail(status, CIC_IO_ERROR, "libavformat.so.59 has no MP4 demuxer");
    }
    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    int error = avformat_open_input(&decoder->format, path, mp4, &options);
    av_dict_free(&options);
    if (error < 0) {
        decoder->format = NULL;
        cic_video_close(decoder);
        return fail_av(status, "not a readable MP4 file", error);
    }
    int stream = av_find_best_stream(decoder->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (stream < 0) {
        cic_video_close(decoder);
        return cic_fail(status, CIC_BAD_INPUT, "the MP4 file holds no video stream");
    }
    decoder->stream = stream;
    for (unsigned i = 0; i < decoder->format->nb_streams; i++) {
        if ((int)i != stream) decoder->format->streams[i]->discard = AVDISCARD_ALL;
    }
    AVStream *video = decoder->format->streams[stream];
    AVCodecParameters *parameters = video->codecpar;
    snprintf(info->codec, sizeof info->codec, "%s", avcodec_get_name(parameters->codec_id));
    if (parameters->codec_id != AV_CODEC_ID_HEVC && parameters->codec_id != AV_CODEC_ID_H264) {
        cic_video_close(decoder);
        return cic_fail(status, CIC_BAD_INPUT, "the video is %s; HEVC or H.264 is read", info->codec);
    }
    if (parameters->width <= 0 || parameters->height <= 0 || (uint32_t)parameters->width > max_side ||
        (uint32_t)parameters->height > max_side) {
        int width = parameters->width, height = parameters->height;
        cic_video_close(decoder);
        return cic_fail(status, CIC_BAD_INPUT, "the video's frame size %dx%d is not one of 1...%u pixels a side", width, height,
                        max_side);
    }
    decoder->width = info->width = (uint32_t)parameters->width;
    decoder->height = info->height = (uint32_t)parameters->height;
    info->frame_count = video->nb_frames > 0 ? (uint64_t)video->nb_frames : 0;

    const AVCodec *codec = avcodec_find_decoder(parameters->codec_id);
    decoder->codec = codec ? avcodec_alloc_context3(codec) : NULL;
    decoder->packet = av_packet_alloc();
    decoder->frame = av_frame_alloc();
    if (!codec || !decoder->codec || !decoder->packet || !decoder->frame) {
        cic_video_close(decoder);
        return cic_fail(status, CIC_IO_ERROR, "libavcodec.so.59 has no %s decoder, or memory ran out", info->codec);
    }
    error = avcodec_parameters_to_context(decoder->codec, parameters);
    if (error < 0) {
        cic_video_close(decoder);
        return fail_av(status, "the video's codec parameters", error);
    }
    /* A damaged stream fails instead of being concealed (gray or smeared blocks would color points
       wrongly); frames much larger than declared are refused by the decoder before it allocates
       them (it checks the coded size, which rounds the frame up to whole blocks of up to 64
       pixels); one thread, so that only one frame is decoded, and held, at a time. */
    decoder->codec->err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK | AV_EF_BITSTREAM;
    decoder->codec->max_pixels = ((int64_t)decoder->width + 64) * ((int64_t)decoder->height + 64);
    decoder->codec->thread_count = 1;
    error = avcodec_open2(decoder->codec, codec, NULL);
    if (error < 0) {
        cic_video_close(decoder);
        return fail_av(status, "the video's decoder cannot start", error);
    }
    *result = decoder;
    cic_succeed(status);
    return CIC_OK;
}

/* The decoded frame, checked, into the caller's NV12 buffers. */
static int32_t copy_frame(cic_video_decoder *decoder, uint8_t *luma, size_t luma_size, uint8_t *chroma, size_t chroma_size,
                          cic_video_frame *out, cic_status *status) {
    const AVFrame *frame = decoder->frame;
    if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags) {
        return cic_fail(status, CIC_BAD_INPUT, "a frame of the video is damaged (the decoder flagged it corrupt)");
    }
    if (frame->width != (int)decoder->width || frame->height != (int)decoder->height) {
        return cic_fail(status, CIC_BAD_INPUT, "a frame of the video is %dx%d; the file declares %ux%u", frame->width,
                        frame->height, decoder->width, decoder->height);
    }
    enum AVPixelFormat format = (enum AVPixelFormat)frame->format;
    if (format != AV_PIX_FMT_YUV420P && format != AV_PIX_FMT_YUVJ420P && format != AV_PIX_FMT_NV12) {
        const char *name = av_get_pix_fmt_name(format);
        return cic_fail(status, CIC_BAD_INPUT, "the video's frames are %s; 8-bit YUV 4:2:0 (yuv420p, nv12) is read",
                        name ? name : "of an unknown pixel format");
    }
    size_t w = decoder->width, h = decoder->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (luma_size != w * h || chroma_size != 2 * cw * ch) {
        return cic_fail(status, CIC_IO_ERROR, "the frame buffers are %zu and %zu bytes, not %zu and %zu", luma_size, chroma_size,
                        w * h, 2 * cw * ch);
    }
    for (size_t y = 0; y < h; y++) memcpy(luma + y * w, frame->data[0] + (ptrdiff_t)y * frame->linesize[0], w);
    for (size_t y = 0; y < ch; y++) {
        uint8_t *row = chroma + y * 2 * cw;
        if (format == AV_PIX_FMT_NV12) {
            memcpy(row, frame->data[1] + (ptrdiff_t)y * frame->linesize[1], 2 * cw);
        } else {
            const uint8_t *cb = frame->data[1] + (ptrdiff_t)y * frame->linesize[1];
            const uint8_t *cr = frame->data[2] + (ptrdiff_t)y * frame->linesize[2];
            for (size_t x = 0; x < cw; x++) {
                row[2 * x] = cb[x];
                row[2 * x + 1] = cr[x];
            }
        }
    }
    out->ended = 0;
    out->full_range = format == AV_PIX_FMT_YUVJ420P || frame->color_range == AVCOL_RANGE_JPEG;
    out->bt709 = frame->colorspace == AVCOL_SPC_BT709;
    cic_succeed(status);
    return CIC_OK;
}

int32_t cic_video_next(cic_video_decoder *decoder, uint8_t *luma, size_t luma_size, uint8_t *chroma, size_t chroma_size,
                       cic_video_frame *out, cic_status *status) {
    memset(out, 0, sizeof *out);
    for (;;) {
        int error = avcodec_receive_frame(decoder->codec, decoder->frame);
        if (error == 0) {
            int32_t code = copy_frame(decoder, luma, luma_size, chroma, chroma_size, out, status);
            av_frame_unref(decoder->frame);
            return code;
        }
        if (error == AVERROR_EOF) {
            out->ended = 1;
            cic_succeed(status);
            return CIC_OK;
        }
        if (error != AVERROR(EAGAIN)) return fail_av(status, "decoding the video", error);
        if (decoder->draining) return cic_fail(status, CIC_BAD_INPUT, "decoding the video: the decoder wants data after the end");
        /* The decoder wants data: the stream's next packet, or the end. */
        for (;;) {
            error = av_read_frame(decoder->format, decoder->packet);
            if (error == AVERROR_EOF) break;
            if (error < 0) return fail_av(status, "reading the video", error);
            if (decoder->packet->stream_index == decoder->stream) break;
            av_packet_unref(decoder->packet);
        }
        if (error == AVERROR_EOF) {
            decoder->draining = 1;
            error = avcodec_send_packet(decoder->codec, NULL);
        } else {
            error = avcodec_send_packet(decoder->codec, decoder->packet);
            av_packet_unref(decoder->packet);
        }
        if (error < 0 && error != AVERROR_EOF) return fail_av(status, "decoding the video", error);
    }
}
