/*
 * C over FFmpeg (libavformat, libavcodec, libavutil, dlopen'ed on first use) for CloudImages' video
 * reader: the frames of an MP4/QuickTime file's video stream (HEVC or H.264), decoded one at a
 * time in order, as YUV 4:2:0 bi-planar (NV12) buffers the caller owns. Only the current packet
 * and the decoder's own reference frames are held, never the whole video.
 *
 * Statuses as in cimagecodecs.h: a code and a one-line message without the file name.
 *   cic_video_open(path, max_side, &decoder, &info, &status)   reads the container's header only
 *   cic_video_next(decoder, luma, ..., chroma, ..., &frame, &status)   the next frame, or its end
 *   cic_video_close(decoder)                                  always, whatever happened
 */
#ifndef CIC_VIDEO_H
#define CIC_VIDEO_H

#include "cimagecodecs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cic_video_decoder cic_video_decoder;

typedef struct cic_video_info {
    /* The stream's frame size as the container declares it; every frame must have it. */
    uint32_t width;
    uint32_t height;
    /* The frames the container lists for the stream; 0 when it does not say. */
    uint64_t frame_count;
    /* The codec's short name ("hevc", "h264"), for messages. */
    char codec[32];
} cic_video_info;

typedef struct cic_video_frame {
    /* 0 for a frame, 1 when the stream has no more (nothing was written). */
    int32_t ended;
    /* 1: Y, Cb and Cr span 0...255 (full or JPEG range); 0: video range (16...235, 16...240). */
    int32_t full_range;
    /* 1: the BT.709 matrix; 0: BT.601, which is also what an untagged stream gets, as FFmpeg's converters assume. */
    int32_t bt709;
} cic_video_frame;

/* Opens `path` with the MP4/QuickTime demuxer only (no probing of other formats, no external
 * references, file access only) and readies the decoder of its first video stream. Refuses a
 * stream whose codec is neither HEVC nor H.264, or whose declared size is 0 or above `max_side`
 * on either side. */
int32_t cic_video_open(const char *path, uint32_t max_side, cic_video_decoder **decoder, cic_video_info *info,
                       cic_status *status);

/* Decodes the next frame into `luma` (width x height bytes) and `chroma` (interleaved Cb Cr,
 * 2 * ceil(width / 2) * ceil(height / 2) bytes), or sets frame->ended. Any error the decoder
 * detects, a frame flagged corrupt, a frame of another size than declared, or a pixel format
 * other than 8-bit 4:2:0 fails. */
int32_t cic_video_next(cic_video_decoder *decoder, uint8_t *luma, size_t luma_size, uint8_t *chroma, size_t chroma_size,
                       cic_video_frame *frame, cic_status *status);

void cic_video_close(cic_video_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
