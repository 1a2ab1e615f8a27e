/*
 * FFmpeg's libavformat, libavcodec and libavutil, opened with dlopen on the first video rather
 * than linked: they bring dozens of codec libraries of their own (x264, x265, dav1d, vpx, ...)
 * that every cloudgen process would load at start, for the one source that reads a video
 * (stray:, its rgb.mp4; Docs/architecture.md, "Start-up").
 *
 * video_decoder.c includes this header instead of the libav headers alone and calls FFmpeg as
 * usual: each function it uses is a macro for a pointer in its library's function struct, typed
 * from its declaration. The struct layouts it reads (AVFrame, AVStream, AVCodecParameters) are those of the
 * sonames below, whose headers Debian's libav*-dev packages install.
 */
#ifndef CIC_VIDEO_LIBRARY_H
#define CIC_VIDEO_LIBRARY_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include "library_loader.h"

/* One loader per library (library_loader.h's), loaded in dependency order by cic_av_load. */
#define CIC_AVUTIL_FUNCTIONS(X) \
    X(av_dict_free) X(av_dict_set) X(av_frame_alloc) X(av_frame_free) X(av_frame_unref) \
    X(av_get_pix_fmt_name) X(av_log_set_level) X(av_strerror)
#define CIC_AVCODEC_FUNCTIONS(X) \
    X(av_packet_alloc) X(av_packet_free) X(av_packet_unref) X(avcodec_alloc_context3) \
    X(avcodec_find_decoder) X(avcodec_free_context) X(avcodec_get_name) X(avcodec_open2) \
    X(avcodec_parameters_to_context) X(avcodec_receive_frame) X(avcodec_send_packet)
#define CIC_AVFORMAT_FUNCTIONS(X) \
    X(av_find_best_stream) X(av_find_input_format) X(av_read_frame) X(avformat_close_input) X(avformat_open_input)

typedef struct cic_avutil_functions {
    CIC_AVUTIL_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_avutil_functions;
typedef struct cic_avcodec_functions {
    CIC_AVCODEC_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_avcodec_functions;
typedef struct cic_avformat_functions {
    CIC_AVFORMAT_FUNCTIONS(CIC_FUNCTION_FIELD)
} cic_avformat_functions;

extern cic_avutil_functions cic_avutil;
extern cic_avcodec_functions cic_avcodec;
extern cic_avformat_functions cic_avformat;

/* Loads the three libraries once per process: CIC_OK, or CIC_IO_ERROR naming the library and its
   Debian package, on this call and every later one. Call it before any FFmpeg function. */
int32_t cic_av_load(cic_status *status);

#define av_dict_free cic_avutil.av_dict_free
#define av_dict_set cic_avutil.av_dict_set
#define av_frame_alloc cic_avutil.av_frame_alloc
#define av_frame_free cic_avutil.av_frame_free
#define av_frame_unref cic_avutil.av_frame_unref
#define av_get_pix_fmt_name cic_avutil.av_get_pix_fmt_name
#define av_log_set_level cic_avutil.av_log_set_level
#define av_strerror cic_avutil.av_strerror
#define av_packet_alloc cic_avcodec.av_packet_alloc
#define av_packet_free cic_avcodec.av_packet_free
#define av_packet_unref cic_avcodec.av_packet_unref
#define avcodec_alloc_context3 cic_avcodec.avcodec_alloc_context3
#define avcodec_find_decoder cic_avcodec.avcodec_find_decoder
#define avcodec_free_context cic_avcodec.avcodec_free_context
#define avcodec_get_name cic_avcodec.avcodec_get_name
#define avcodec_open2 cic_avcodec.avcodec_open2
#define avcodec_parameters_to_context cic_avcodec.avcodec_parameters_to_context
#define avcodec_receive_frame cic_avcodec.avcodec_receive_frame
#define avcodec_send_packet cic_avcodec.avcodec_send_packet
#define av_find_best_stream cic_avformat.av_find_best_stream
#define av_find_input_format cic_avformat.av_find_input_format
#define av_read_frame cic_avformat.av_read_frame
#define avformat_close_input cic_avformat.avformat_close_input
#define avformat_open_input cic_avformat.avformat_open_input

#endif
