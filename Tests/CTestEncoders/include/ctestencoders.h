/*
 * The encoder the tests use to write fixtures in the layout Record3D exports (EXR depth maps). It
 * is built from CImageCodecs' own library loader but kept out of the product, which only reads EXR.
 */
#ifndef CTESTENCODERS_H
#define CTESTENCODERS_H

#include <cimagecodecs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes width * height float32 samples (row-major) as a ZIP-compressed scanline EXR with one
 * channel `channel`, stored as half when `half` is 1, else as float, to `path` through a temporary
 * file renamed when complete. For test fixtures in the layout Record3D exports. */
int32_t cic_exr_write(const char *path, const float *samples, uint32_t width, uint32_t height, const char *channel,
                      int32_t half, cic_status *status);

#ifdef __cplusplus
}
#endif

#endif
