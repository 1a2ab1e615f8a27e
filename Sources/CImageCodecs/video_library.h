/*
 * FFmpeg's libavformat, libavcodec and libavutil, opened with dlopen on the first video rather
 * than linked: they bring dozens of codec libraries of their own (x264, x265, dav1d, vpx, ...)
 * that every cloudgen process would load at start, for the one source that reads a video
 * (stray:, its rgb.mp4; Docs/architecture.md, "Start-up").
 *
 * video_decoder.c includes this header instead of the libav headers alone and calls FFmpeg as
 * usual: each function it uses is a macro for a pointer in cic_av_functions, typed from its
 * declaration. The struct layouts it reads (AVFrame, AVStream, AVCodecParameters) are those of the
 * sonames below, whose headers Debian's libav*-dev packages install.
 */
#ifndef CIC_VIDEO_LIBRARY_H
#define CIC_VIDEO_LIBRARY_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include "codecs_internal.h"

/* X(library, function): the library is 0 libavutil, 1 libavcodec, 2 libavformat. */
#define CIC_AV_FUNCTIONS(X) \
    X(0, av_dict_free) X(0, av_dict_set) X(0, av_frame_alloc) X(0, av_frame_free) X(0, av_frame_unref) \
    X(0, av_get_pix_fmt_name) X(0, av_log_set_level) X(0, av_strerror) \
    X(1, av_packet_alloc) X(1, av_packet_free) X(1, av_packet_unref) X(1, avcodec_alloc_context3) \
    X(1, avcodec_find_decoder) X(1, avcodec_free_context) X(1, avcodec_get_name) X(1, avcodec_open2) \
    X(1, avcodec_parameters_to_context) X(1, avcodec_receive_frame) X(1, avcodec_send_packet) \
    X(2, av_find_best_stream) X(2, av_find_input_format) X(2, av_read_frame) X(2, avformat_close_input) \
    X(2, avformat_open_input)

#define CIC_AV_FIELD(library, name) __typeof__(name) *name;
typedef struct cic_av_functions {
    CIC_AV_FUNCTIONS(CIC_AV_FIELD)
} cic_av_functions;
#undef CIC_AV_FIELD

extern cic_av_functions cic_av;

/* Loads the three libraries once per process and fills cic_av: CIC_OK, or CIC_IO_ERROR naming the
   library and its Debian package, on this call and every later one. Call it before any FFmpeg function. */
int32_t cic_av_load(cic_status *status);

#define av_dict_free cic_av.av_dict_free
#define av_dict_set cic_av.av_dict_set
#define av_frame_alloc cic_av.av_frame_alloc
#define av_frame_free cic_av.av_frame_free
#define av_frame_unref cic_av.av_frame_unref
#define av_get_pix_fmt_name cic_av.av_get_pix_fmt_name
#define av_log_set_level cic_av.av_log_set_level
#define av_strerror cic_av.av_strerror
#define av_packet_alloc cic_av.av_packet_alloc
#define av_packet_free cic_av.av_packet_free
#define av_packet_unref cic_av.av_packet_unref
#define avcodec_alloc_context3 cic_av.avcodec_alloc_context3
#define avcodec_find_decoder cic_av.avcodec_find_decoder
#define avcodec_free_context cic_av.avcodec_free_context
#define avcodec_get_name cic_av.avcodec_get_name
#define avcodec_open2 cic_av.avcodec_open2
#define avcodec_parameters_to_context cic_av.avcodec_parameters_to_context
#define avcodec_receive_frame cic_av.avcodec_receive_frame
#define avcodec_send_packet cic_av.avcodec_send_packet
#define av_find_best_stream cic_av.av_find_best_stream
#define av_find_input_format cic_av.av_find_input_format
#define av_read_frame cic_av.av_read_frame
#define avformat_close_input cic_av.avformat_close_input
#define avformat_open_input cic_av.avformat_open_input

#endif
