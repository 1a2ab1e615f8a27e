/*
 * Encoders the tests use to write fixtures in the layouts phone apps export (JPEG color frames,
 * Record3D's EXR depth maps). They are built from CImageCodecs' own libraries and loaders but kept
 * out of the product, which only reads these formats.
 */
#ifndef CTESTENCODERS_H
#define CTESTENCODERS_H

#include <cimagecodecs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes 8-bit gray (1 channel) or RGB (3) packed rows as a baseline JPEG of `quality` 1...100,
 * into memory as cic_png_encode does (free *bytes with cic_free). The color frames of
 * phone apps' layouts are JPEG. */
int32_t cic_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int32_t channels, int32_t quality,
                        uint8_t **bytes, size_t *size, cic_status *status);

/* Writes width * height float32 samples (row-major) as a ZIP-compressed scanline EXR with one
 * channel `channel`, stored as half when `half` is 1, else as float, to `path` through a temporary
 * file renamed when complete. For test fixtures in the layout Record3D exports. */
int32_t cic_exr_write(const char *path, const float *samples, uint32_t width, uint32_t height, const char *channel,
                      int32_t half, cic_status *status);

#ifdef __cplusplus
}
#endif

#endif
