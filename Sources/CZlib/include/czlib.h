/*
 * zlib's raw inflate and CRC-32 for CloudArchives' zip reader (Debian's libz, linked as it is).
 *
 * Swift cannot call inflateInit2, a macro, nor size a z_stream safely across zlib versions; this
 * keeps the stream opaque. A zip member is a raw deflate stream (no zlib header or trailer), fed
 * and drained in caller-sized chunks, so no buffer is ever sized by the archive.
 */
#ifndef CZLIB_H
#define CZLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    /* More input or more output room is needed; call again. */
    CZ_MORE = 0,
    /* The deflate stream ended (its final block was read). */
    CZ_END = 1,
    /* The stream is corrupt (zlib's message is in czlib_message). */
    CZ_BAD_DATA = 2,
    /* zlib could not allocate its state. */
    CZ_NO_MEMORY = 3
};

typedef struct czlib_inflater czlib_inflater;

/* A raw-deflate inflater (32 KiB window), or NULL when memory ran out. */
czlib_inflater *czlib_inflater_open(void);

/* Inflates from `input` into `output`; `*consumed` and `*produced` tell how many bytes of each were
 * used. Returns CZ_MORE, CZ_END or CZ_BAD_DATA. No progress with both buffers non-empty means
 * the stream needs input it was not given. */
int32_t czlib_inflate(czlib_inflater *inflater, const uint8_t *input, size_t input_size, size_t *consumed,
                      uint8_t *output, size_t output_size, size_t *produced);

/* zlib's description of the last CZ_BAD_DATA ("invalid distance too far back"), never NULL. */
const char *czlib_message(const czlib_inflater *inflater);

void czlib_inflater_close(czlib_inflater *inflater);

/* The CRC-32 (zip's and PNG's) of `size` bytes, continuing from `crc` (0 to start). */
uint32_t czlib_crc32(uint32_t crc, const uint8_t *bytes, size_t size);

#ifdef __cplusplus
}
#endif

#endif
